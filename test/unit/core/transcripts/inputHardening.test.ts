import { strict as assert } from 'assert';
import { execFileSync, spawnSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { importTranscript } from '../../../../src/core/transcripts/detect';
import { TranscriptError } from '../../../../src/core/transcripts/types';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Imports in a child process (a hang or a runaway read must not take the test run down with it: it ends as "did not finish"). */
function importInChild(path: string): { message: string } {
  const script = `try { require('./src/node/transcripts/readTranscriptFile').importTranscriptFile(process.argv[1]); console.log('imported'); } catch (e) { console.log(e.message); }`;
  const child = spawnSync(process.execPath, ['-r', './test/register.cjs', '-e', script, path], { cwd: ROOT, timeout: 15_000, encoding: 'utf8' });
  return { message: child.error ? `did not finish: ${child.error.message}` : child.stdout.trim() };
}

describe('transcript input hardening', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-transcript-input-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses /dev/zero at once instead of reading without end', function () {
    if (process.platform === 'win32') this.skip();
    const { message } = importInChild('/dev/zero');
    assert.equal(message, 'zero: a character device, not a regular file; only transcript files can be opened');
  });

  it('refuses a named pipe instead of hanging on it', function () {
    if (process.platform === 'win32') this.skip();
    const fifo = join(dir, 'run.traj.json');
    execFileSync('mkfifo', [fifo]);
    const { message } = importInChild(fifo);
    assert.equal(message, 'run.traj.json: a named pipe (FIFO), not a regular file; only transcript files can be opened');
  });

  it('refuses a folder with a clear error', () => {
    assert.equal(importInChild(dir).message, `${dir.split('/').pop()}: a folder, not a regular file; only transcript files can be opened`);
  });

  it('names the file and the depth limit for deeply nested JSON', () => {
    const deep = `{"messages": [{"role": "user", "content": ${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`;
    assert.throws(() => importTranscript('deep.json', deep), (error: Error) => {
      assert.ok(error instanceof TranscriptError, error.message);
      assert.match(error.message, /^deep\.json: the JSON is nested more than 1000 levels deep/);
      return true;
    });
  });

  it('names the file, the entry and the depth limit for a deeply nested Python literal', () => {
    const run = { history: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'x', tool_calls: '['.repeat(100_000) },
    ] };
    assert.throws(() => importTranscript('deep.traj', JSON.stringify(run)), (error: Error) => {
      assert.ok(error instanceof TranscriptError, error.message);
      assert.match(error.message, /^deep\.traj: history\[1\]\.tool_calls: .*nested more than 200 levels deep/);
      return true;
    });
  });

  it('reads a tool_call_ids string holding one quoted id as that whole id', () => {
    const run = (ids: unknown) => ({ history: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'x', tool_calls: [{ id: 'abc', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
      { role: 'tool', content: 'done', tool_call_ids: ids },
    ] });
    for (const ids of ["'abc'", "['abc']", ['abc']]) {
      const t = importTranscript('ids.traj', JSON.stringify(run(ids)));
      assert.equal(t.messages.find((m) => m.role === 'tool')?.toolCallId, 'abc', JSON.stringify(ids));
    }
    assert.throws(() => importTranscript('ids.traj', JSON.stringify(run("['abc'"))), /ids\.traj: history\[2\]\.tool_call_ids: tool_call_ids is not a valid Python list/);
  });
});
