import { strict as assert } from 'assert';
import { LlmSummarizer } from '../../../../src/core/compaction/llmSummarizer';
import { LocalSummarizer, summarizeLocally } from '../../../../src/core/compaction/localSummarizer';
import type { SummaryRequest } from '../../../../src/core/compaction/types';
import type { Message } from '../../../../src/core/model/message';
import { countTurns } from '../../../support/eventLoopTurns';
import { call, msg } from '../../../support/syntheticSession';

/** A long session's middle: commands and their stored outputs, 3 messages a step. */
function longHistory(steps: number): Message[] {
  const out: Message[] = [msg({ role: 'user', content: 'Make the test suite pass in src/parser.ts.' })];
  for (let i = 0; i < steps; i++) {
    const c = call('run_command', { command: `npm test -- --grep case${i}` }, `call${i}`);
    out.push(msg({ role: 'assistant', content: `Running case ${i}.`, toolCalls: [c] }));
    out.push(msg({ role: 'tool', content: `<returncode>${i % 3 === 0 ? 1 : 0}</returncode>\n${i % 3 === 0 ? `Error: case${i} failed at src/parser.ts:${i}` : '12 passed'}`, toolCallId: c.id, toolName: 'run_command', meta: { offloadRef: `ref_${i}` } } as Partial<Message> & Pick<Message, 'role' | 'content'>));
  }
  return out;
}

/**
 * A summary reads the facts of every message it replaces (50,000 after a long session) and lists
 * every stored output among them: the pass gives the event loop turns as it goes, so the extension
 * host keeps answering, and the summary is the one the same pass made at once gives.
 */
describe('core/compaction: summarizing a long history lets the host answer while the facts are read', () => {
  const messages = longHistory(2_000); // 6,001 messages
  const request: SummaryRequest = { messages, maxTokens: 2_000, style: 'checkpoint' };

  it('the local summary of 6,001 messages takes at least 6 turns of the event loop and is the same summary', async () => {
    const { result, turns } = await countTurns(() => new LocalSummarizer().summarize(request));
    assert.ok(turns >= 6, `turns while summarizing: ${turns}`);
    assert.equal(result, summarizeLocally(messages, request));
  });

  it("a model's summary checked against 6,001 messages (and replaced by the local one) takes at least 6 turns", async () => {
    const summarizer = new LlmSummarizer(async () => 'Worked on the parser.', 'm');
    const notes: string[] = [];
    const { result, turns } = await countTurns(() => summarizer.summarize({ ...request, onNote: (note) => notes.push(note) }));
    assert.ok(turns >= 6, `turns while checking: ${turns}`);
    assert.match(notes.join(' '), /local summary used/);
    assert.equal(result, summarizeLocally(messages, request));
  });
});
