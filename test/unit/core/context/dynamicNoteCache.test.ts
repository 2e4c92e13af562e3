import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { toOpenAIBody } from '../../../../src/core/providers/openai/openaiRequest';
import { fixedOf, type PromptSections } from '../../../../src/core/prompt/promptSections';
import { requestContent } from '../../../../src/core/context/requestItems';
import { message, request, toolCall } from '../providers/harness';

/**
 * How a provider's prompt cache treats a session whose requests carry a dynamic part (the context
 * status note, nested instructions) that changes every request: what each request can read from
 * what earlier requests left cached, measured in characters of the wire body.
 */

const sectionsWith = (note: string): PromptSections => ({
  system: [{ id: 'system:base', kind: 'system-section', label: 'Base instructions', text: 'You are Tally.', tokens: 4 }],
  tools: [],
  dynamic: [{ id: 'note:context', kind: 'note', label: 'Context status note', text: note, tokens: 8 }],
});

function sent(history: readonly Message[], note: string): Message[] {
  const sections = sectionsWith(note);
  return requestContent({ messages: history, sections, fixed: fixedOf(sections), count: (m) => m.content.length }).messages;
}

/**
 * Anthropic: a request writes a cache entry for the prefix ending at each block with
 * `cache_control`, and reads the longest entry written before that ends at one of its own
 * breakpoints or up to 20 blocks before one.
 */
class AnthropicCache {
  private readonly entries = new Set<string>();

  /** Characters of the request's blocks read from the cache. */
  send(messages: Message[]): { read: number; total: number } {
    const body = toAnthropicBody(request(messages)) as { system: any[]; messages: Array<{ role: string; content: any[] }> };
    const blocks = [...body.system, ...body.messages.flatMap((m) => m.content.map((b, i) => ({ ...b, turn: `${m.role}:${i === 0}` })))];
    const keys: string[] = [];
    const sizes: number[] = [];
    let key = '';
    let size = 0;
    for (const block of blocks) {
      const { cache_control: _mark, ...bare } = block;
      const text = JSON.stringify(bare);
      key += text;
      size += text.length;
      keys.push(key);
      sizes.push(size);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.cache_control ? [i] : []));
    let read = 0;
    for (const bp of breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - 20); i--) {
        if (this.entries.has(keys[i])) {
          read = Math.max(read, sizes[i]);
          break;
        }
      }
    }
    for (const bp of breakpoints) this.entries.add(keys[bp]);
    return { read, total: size };
  }
}

/** OpenAI: the longest prefix of the body shared with an earlier request is read from its cache. */
class PrefixCache {
  private previous = '';

  send(messages: Message[]): { read: number; total: number } {
    const text = JSON.stringify((toOpenAIBody(request(messages), { maxTokensField: 'max_tokens' }) as { messages: unknown[] }).messages);
    let same = 0;
    while (same < text.length && same < this.previous.length && text[same] === this.previous[same]) same++;
    this.previous = text;
    return { read: same, total: text.length };
  }
}

/** Three turns of two tool calls each, with a large result per call and a note that changes per request. */
function runSession(cache: { send(messages: Message[]): { read: number; total: number } }) {
  const history: Message[] = [];
  const firstOfTurn: Array<{ read: number; total: number }> = [];
  let requestNumber = 0;
  for (let turn = 1; turn <= 3; turn++) {
    history.push(message({ role: 'user', content: `Fix failing test number ${turn}.` }));
    for (let step = 0; step <= 2; step++) {
      requestNumber++;
      const result = cache.send(sent(history, `[Context: ${40 + requestNumber}% used.]`));
      if (step === 0) firstOfTurn.push(result);
      if (step < 2) {
        const id = `call_${turn}_${step}`;
        history.push(message({ role: 'assistant', content: '', toolCalls: [toolCall(id, 'read_file', { path: `src/file${turn}${step}.ts` })] }));
        history.push(message({ role: 'tool', content: `line of source ${turn}.${step}\n`.repeat(300), toolCallId: id }));
      } else {
        history.push(message({ role: 'assistant', content: `Turn ${turn} is done.` }));
      }
    }
  }
  return firstOfTurn;
}

describe('the dynamic part and the provider cache', () => {
  it('places the dynamic note after the conversation, so the user message and the turn before it stay in place', () => {
    const history = [message({ role: 'user', content: 'first' }), message({ role: 'assistant', content: 'answer' }), message({ role: 'user', content: 'second' })];
    const out = sent(history, '[Context: 50% used.]');
    assert.deepEqual(out.map((m) => m.content), ['first', 'answer', 'second', '[Context: 50% used.]']);
  });

  it('Anthropic: the first request of a turn reads the whole previous turn from the cache; only the new messages are paid in full', () => {
    const turns = runSession(new AnthropicCache());
    for (const [i, t] of turns.entries()) {
      if (i === 0) continue;
      // What is not read: the previous turn's last reply, the new user message, the note and the body's framing.
      assert.ok(t.total - t.read < 600, `turn ${i + 1}: ${t.total - t.read} of ${t.total} characters not read from the cache`);
    }
  });

  it('OpenAI: the body of a turn shares everything up to the new messages with the request before it', () => {
    const turns = runSession(new PrefixCache());
    for (const [i, t] of turns.entries()) {
      if (i === 0) continue;
      assert.ok(t.total - t.read < 600, `turn ${i + 1}: ${t.total - t.read} of ${t.total} characters outside the shared prefix`);
    }
  });

  it('a reply being continued stays the last message, after the note', () => {
    const history = [message({ role: 'user', content: 'go' }), message({ role: 'assistant', content: 'Partial answ' })];
    const out = sent(history, '[note]');
    assert.deepEqual(out.map((m) => m.content), ['go', '[note]', 'Partial answ']);
  });
});
