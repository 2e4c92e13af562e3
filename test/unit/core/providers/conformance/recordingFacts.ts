/**
 * What a recording says, read straight from its JSON events (no Tally code involved), so a test
 * can compare the provider's decoding with the recording itself.
 */
import { recordingText, type Wire } from './replay';

/** The JSON payload of every event of a recording (`.sse` data lines, or `.chunks.txt` lines). */
export function recordedEvents(wire: Wire, file: string): any[] {
  const text = recordingText(wire, file);
  const lines = file.endsWith('.chunks.txt') ? text.split('\n') : text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5));
  return lines.map((l) => l.trim()).filter((l) => l && l !== '[DONE]').map((l) => JSON.parse(l));
}

/** Anthropic Messages: text, thinking blocks, client tool calls, usage and stop reason as recorded. */
export function anthropicFacts(wire: Wire, file: string) {
  const events = recordedEvents(wire, file);
  const blocks = new Map<number, any>();
  for (const e of events) {
    if (e.type === 'content_block_start') blocks.set(e.index, { ...e.content_block, json: '' });
    if (e.type === 'content_block_delta') {
      const b = blocks.get(e.index);
      if (e.delta.type === 'text_delta') b.text += e.delta.text;
      if (e.delta.type === 'thinking_delta') b.thinking += e.delta.thinking;
      if (e.delta.type === 'signature_delta') b.signature += e.delta.signature;
      if (e.delta.type === 'input_json_delta') b.json += e.delta.partial_json;
    }
  }
  const ordered = [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
  const start = events.find((e) => e.type === 'message_start').message.usage;
  const end = [...events].reverse().find((e) => e.type === 'message_delta');
  return {
    text: ordered.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    thinking: ordered.filter((b) => b.type === 'thinking').map((b) => ({ text: b.thinking, signature: b.signature })),
    redacted: ordered.filter((b) => b.type === 'redacted_thinking').map((b) => b.data as string),
    calls: ordered.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.json || JSON.stringify(b.input) })),
    serverBlocks: ordered.filter((b) => b.type !== 'text' && b.type !== 'thinking' && b.type !== 'redacted_thinking' && b.type !== 'tool_use').length,
    stopReason: end.delta.stop_reason as string,
    usage: {
      input: (end.usage.input_tokens ?? start.input_tokens) as number,
      cacheRead: (end.usage.cache_read_input_tokens ?? start.cache_read_input_tokens ?? 0) as number,
      cacheWrite: (end.usage.cache_creation_input_tokens ?? start.cache_creation_input_tokens ?? 0) as number,
      output: end.usage.output_tokens as number,
      thinking: end.usage.output_tokens_details?.thinking_tokens as number | undefined,
    },
  };
}

/** OpenAI Chat Completions: content, tool calls by index, usage and finish reason as recorded. */
export function openaiChatFacts(wire: Wire, file: string) {
  const chunks = recordedEvents(wire, file);
  let text = '';
  let finish: string | undefined;
  let usage: any;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const choice of c.choices ?? []) {
      if (typeof choice.delta?.content === 'string') text += choice.delta.content;
      for (const t of choice.delta?.tool_calls ?? []) {
        calls[t.index] ??= { id: '', name: '', arguments: '' };
        if (t.id) calls[t.index].id = t.id;
        if (t.function?.name) calls[t.index].name = t.function.name;
        if (t.function?.arguments) calls[t.index].arguments += t.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { text, calls, finish, usage };
}
