import { strict as assert } from 'assert';
import { validateHistory } from '../../../../src/core/history/normalize';
import { abortedToolResult, archivedToolResult, assistantMessage, summaryMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';

describe('message factories', () => {
  it('make a valid exchange: user, assistant with calls, one result and one aborted output', () => {
    const read = { id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' };
    const run = { id: 'call_2', name: 'run_command', arguments: '{"command":"npm test"}' };
    const history = [userMessage('Fix the test.'), assistantMessage('Looking.', [read, run]), toolResultMessage(read, 'export const a = 1;'), abortedToolResult(run, 'cancelled by the user')];
    assert.deepEqual(validateHistory(history), []);
    assert.equal(new Set(history.map((m) => m.id)).size, 4, 'every message gets its own id');
    const aborted = history[3];
    assert.equal(aborted.content, '[aborted: cancelled by the user]');
    assert.deepEqual({ kind: aborted.kind, toolName: aborted.toolName, meta: aborted.meta }, { kind: 'aborted', toolName: 'run_command', meta: { synthetic: true, isError: true } });
    assert.equal(assistantMessage('Done.').toolCalls, undefined, 'no calls: no empty list sent to providers');
  });

  it('mark summaries and archived outputs as synthetic stand-ins for what they replace', () => {
    const output = toolResultMessage({ id: 'c', name: 'search_text' }, 'many lines', { isError: true });
    const archived = archivedToolResult(output, '[archived]', [output.id]);
    assert.notEqual(archived.id, output.id);
    assert.deepEqual(archived.meta, { isError: true, replaces: [output.id], synthetic: true });
    const episode = summaryMessage('Built the parser.', ['m1', 'm2'], { kind: 'episode' });
    assert.equal(episode.role, 'assistant');
    assert.equal(summaryMessage('Earlier work.', ['m1']).role, 'user');
  });
});
