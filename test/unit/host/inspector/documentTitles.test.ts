/** What Tally names a tool call by: its tool and what it acted on, never an opaque id. */
import { strict as assert } from 'assert';
import { toolCallLabel, toolCallSubject, withRequest } from '../../../../src/host/inspector/documentTitles';

describe('document titles', () => {
  it('names a call by its tool and its command, path or pattern', () => {
    assert.equal(toolCallLabel('run_command', '{"command":"npm test"}'), 'run_command npm test');
    assert.equal(toolCallLabel('read_file', '{"path":"src/a.ts","offset":3}'), 'read_file src/a.ts');
    assert.equal(toolCallLabel('search', '{"pattern":"loadConfig","path":"src"}'), 'search loadConfig');
    assert.equal(withRequest(toolCallLabel('run_command', '{"command":"npm test"}'), 12), 'run_command npm test · request #12');
  });

  it('falls back to the tool alone, and keeps long or multi-line subjects to one short line', () => {
    assert.equal(toolCallLabel('list_files', '{}'), 'list_files');
    assert.equal(toolCallLabel('list_files', undefined), 'list_files');
    assert.equal(toolCallSubject('not json'), 'not json');
    const long = toolCallSubject(JSON.stringify({ command: `echo ${'x'.repeat(200)}\nsecond line` }));
    assert.ok(long.length <= 60 && long.endsWith('…') && !long.includes('\n'));
  });
});
