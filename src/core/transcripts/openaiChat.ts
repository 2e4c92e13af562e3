import type { ToolCall } from '../model/message';
import { TranscriptBuilder, textOf } from './builder';
import type { ImportedTranscript } from './types';

/** OpenAI chat messages: role system/developer/user/assistant/tool, `tool_calls`, `tool_call_id`, legacy `function_call`. */
export function importOpenAiChat(file: string, records: unknown[]): ImportedTranscript {
  const b = new TranscriptBuilder(file);
  records.forEach((raw, i) => {
    const path = `messages[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) b.fail('each message must be an object', path);
    const m = raw as Record<string, unknown>;
    const role = m.role;
    const { text, images } = textOf(m.content, `${path}.content`, b);
    const meta = images ? { images } : undefined;
    if (role === 'system' || role === 'developer') b.add('system', text);
    else if (role === 'user') b.add('user', text, { meta });
    else if (role === 'assistant') {
      const calls: ToolCall[] = [];
      if (m.tool_calls !== undefined && !Array.isArray(m.tool_calls)) b.fail('tool_calls must be a list', `${path}.tool_calls`);
      (m.tool_calls as unknown[] | undefined)?.forEach((c, k) => {
        const call = c as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
        const fn = call?.function;
        if (typeof call?.id !== 'string' || !fn || typeof fn.name !== 'string') return b.fail('a tool call needs an id and function.name', `${path}.tool_calls[${k}]`);
        const args = fn.arguments;
        calls.push({ id: call.id, name: fn.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
      });
      const legacy = m.function_call as { name?: unknown; arguments?: unknown } | undefined;
      if (legacy && typeof legacy.name === 'string') calls.push({ id: `fc${i}`, name: legacy.name, arguments: String(legacy.arguments ?? '{}') });
      b.add('assistant', text, { toolCalls: calls.length ? calls : undefined });
    } else if (role === 'tool' || role === 'function') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : role === 'function' ? `fc${i - 1}` : b.fail('a tool message needs tool_call_id', `${path}.tool_call_id`);
      b.add('tool', text, { toolCallId: id, toolName: typeof m.name === 'string' ? m.name : undefined });
    } else b.fail(`unknown role ${JSON.stringify(role)}`, `${path}.role`);
  });
  b.finish();
  return { format: 'openai', messages: b.messages, meta: { source: file, title: file, warnings: b.warnings } };
}
