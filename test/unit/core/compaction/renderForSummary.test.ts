import { strict as assert } from 'assert';
import { renderForSummary } from '../../../../src/core/compaction/llmSummarizer';
import type { Message } from '../../../../src/core/model/message';
import { msg } from '../../../support/syntheticSession';

/** The prompt's text as it was made before: every message rendered, then its last `maxChars` kept. */
function renderedWhole(messages: readonly Message[], maxChars: number): string {
  const text = messages.map((m) => `[${m.role}${m.toolName ? `:${m.toolName}` : ''}${m.kind !== m.role ? ` ${m.kind}` : ''}]\n${m.content}`).join('\n\n');
  return text.length > maxChars ? `[… earlier part omitted …]\n${text.slice(text.length - maxChars)}` : text;
}

/**
 * The summary request carries the newest part of the messages it replaces, bounded: after a long
 * session that is a small share of them, and only that share is rendered.
 */
describe('core/compaction: the messages a summary request carries', () => {
  it('renders only the newest of 20,000 messages (their text read), and the text is the same as rendering them all', () => {
    let reads = 0;
    const messages = Array.from({ length: 20_000 }, (_, i) => {
      const m = msg({ role: i % 2 ? 'assistant' : 'tool', content: `output of step ${i} `.repeat(1 + (i % 7)), ...(i % 2 ? {} : { toolName: 'run_command', toolCallId: `c${i}` }) });
      const content = m.content;
      Object.defineProperty(m, 'content', { get: () => (reads++, content), enumerable: true });
      return m;
    });
    const text = renderForSummary(messages, 120_000);
    assert.ok(reads < 4_000, `message texts read: ${reads}`);
    reads = 0;
    assert.equal(text, renderedWhole(messages, 120_000));
  });

  it('is the same text as rendering them all, at every bound around a part boundary', () => {
    const messages = Array.from({ length: 30 }, (_, i) => msg({ role: 'assistant', content: `step ${i} `.repeat(1 + (i % 5)) }));
    const whole = renderedWhole(messages, Infinity);
    for (let maxChars = 1; maxChars <= whole.length + 3; maxChars++) assert.equal(renderForSummary(messages, maxChars), renderedWhole(messages, maxChars), `bound ${maxChars}`);
  });
});
