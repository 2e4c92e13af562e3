/**
 * A named pipe (FIFO) in the workspace never holds a tool: read_file, edit_file, search_text and
 * write_file open only regular files, without waiting, and say what the path is. A blocked open
 * would hold one of the four threads every file operation of the process shares (libuv's pool):
 * four such calls and the extension host's file system stops. Real FIFOs made with mkfifo, the real
 * Node workspace and tool registry, a real agent turn for Stop.
 */
import { strict as assert } from 'assert';
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { withSettings } from '../../../../src/core/settings';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { tempStore } from '../../../support/tempStore';
import { outputText, runOptions, testRegistry } from '../../../support/toolRegistry';

const describeOnPosix = process.platform === 'win32' ? describe.skip : describe;

describeOnPosix('named pipes in the workspace', function () {
  // Before the fix each of these waited for ever on the pipe; fail instead of waiting.
  this.timeout(15_000);
  let ws: string;
  const writers: ChildProcess[] = [];

  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'tally-fifo-'));
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'plain.txt'), 'plain text\n');
    for (const name of ['pipe', 'pipe2', 'pipe3', 'pipe4']) execFileSync('mkfifo', [join(ws, 'src', name)]);
  });
  afterEach(() => {
    for (const writer of writers.splice(0)) writer.kill('SIGKILL');
    rmSync(ws, { recursive: true, force: true });
  });

  const registry = () => testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'ask', edits: 'always' } });
  const run = (name: string, args: Record<string, unknown>) => registry().run({ id: `c-${name}`, name, arguments: JSON.stringify(args) }, runOptions());

  it('read_file, edit_file and write_file refuse a pipe with no writer at once and say what it is', async () => {
    const read = await run('read_file', { path: 'src/pipe' });
    assert.equal(read.isError, true);
    assert.match(outputText(read), /src\/pipe is a named pipe \(FIFO\), not a regular file; not read/);
    const edit = await run('edit_file', { path: 'src/pipe', old_text: 'a', new_text: 'b' });
    assert.match(outputText(edit), /src\/pipe is a named pipe \(FIFO\), not a regular file/);
    const write = await run('write_file', { path: 'src/pipe', content: 'into the pipe\n' });
    assert.match(outputText(write), /src\/pipe is a named pipe \(FIFO\), not a regular file; nothing was written/);
  });

  it('a pipe that a process keeps open for writing is refused too, never read until its writer ends', async () => {
    const writer = spawn('sh', ['-c', 'exec 3>"$1"; echo opened; sleep 30', 'sh', join(ws, 'src', 'pipe')]);
    writers.push(writer);
    const read = run('read_file', { path: 'src/pipe' });
    const opened = new Promise((resolve) => writer.stdout!.once('data', resolve));
    assert.match(outputText(await read), /is a named pipe \(FIFO\), not a regular file/);
    await opened;
    assert.match(outputText(await run('read_file', { path: 'src/pipe' })), /is a named pipe \(FIFO\), not a regular file/);
  });

  it('search_text skips pipes in a folder and on the path it is given, and finds the text files beside them', async () => {
    const folder = await run('search_text', { query: 'plain', path: 'src' });
    assert.equal(outputText(folder), 'src/plain.txt:1: plain text');
    const pipe = await run('search_text', { query: 'plain', path: 'src/pipe' });
    assert.match(outputText(pipe), /^No matches/);
  });

  it('four calls on pipes, then an ordinary read still works', async () => {
    const onPipes = ['pipe', 'pipe2', 'pipe3', 'pipe4'].map((name, i) =>
      i % 2 ? run('read_file', { path: `src/${name}` }) : run('search_text', { query: 'x', path: `src/${name}` }),
    );
    const ordinary = await run('read_file', { path: 'src/plain.txt' });
    assert.match(outputText(ordinary), /1 {2}plain text/);
    assert.equal((await Promise.all(onPipes)).length, 4);
    assert.equal(readFileSync(join(ws, 'src', 'plain.txt'), 'utf8'), 'plain text\n');
  });

  it('Stop ends a turn whose model reads a pipe', async () => {
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    const env = await tempStore('tally-fifo-turn-');
    try {
      const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 });
      const counter = getTokenCounter();
      const contextSession = await ContextSession.open({ store: env.store, sessionId: (await env.store.createSession({ title: 'fifo' })).id, settings, counter });
      const tools = registry();
      const prompt = new SessionPrompt({ counter, settings, tools: () => tools.definitions(), instructions: async () => undefined, skills: async () => [] });
      const agent = new AgentSession({ contextSession, provider: createOpenAIProvider({ id: 'openai-compatible', baseUrl: server.url }), model: 'm', maxOutputTokens: 1_000, prompt, tools });
      server.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'call_pipe', name: 'read_file', arguments: JSON.stringify({ path: 'src/pipe' }) } }] }, { type: 'reply', parts: [{ text: 'done' }] });
      agent.on((event) => {
        if (event.type === 'tool_call') agent.cancel();
      });
      const stop = await agent.send('Read the pipe.');
      assert.ok(stop === 'cancelled' || stop === 'end_turn', stop);
      agent.dispose();
    } finally {
      await server.close();
      await env.dispose();
    }
  });
});
