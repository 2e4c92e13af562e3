/** `tally exec --mcp-config`: a real MCP server process, a fake model server, the run's JSON lines. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { EXEC_EXIT, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

const KEY = 'sk-exec-test';
const ROOT = resolve(__dirname, '../../..');

describe('tally exec with MCP servers', function () {
  this.timeout(60_000);
  let work: string;
  let model: FakeOpenAIServer;

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'tally-exec-mcp-'));
    model = await new FakeOpenAIServer({ apiKey: KEY }).start();
    // The file as VS Code would hold it: a comment, the server under "servers".
    const config = `{\n  // the test server\n  "servers": { "notes": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": ["-r", ${JSON.stringify(join(ROOT, 'test/register.cjs'))}, ${JSON.stringify(join(ROOT, 'test/fakes/mcp/testServer.ts'))}] } }\n}`;
    writeFileSync(join(work, 'mcp.json'), config);
  });
  afterEach(async () => {
    await model.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function exec(extra: string[]) {
    let stdout = '';
    let stderr = '';
    const args = parseExecArgs(['Use the notes server', '--provider', 'openai-compatible', '--model', 'local', '--base-url', model.url, '--json', '--store', join(work, 'store'), '--cd', work, ...extra], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stderr, lines: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) };
  }

  it('offers the servers\' tools, runs those --allow mcp:SERVER allows, and truncates a large result like any tool\'s', async () => {
    model.enqueue(
      { type: 'reply', parts: [{ toolCall: { id: 'c1', name: 'mcp_notes_add', arguments: '{"a":20,"b":22}' } }] },
      { type: 'reply', parts: [{ toolCall: { id: 'c2', name: 'mcp_notes_big', arguments: '{"bytes":300000}' } }] },
      { type: 'reply', parts: [{ text: 'done' }] },
    );
    const run = await exec(['--mcp-config', 'mcp.json', '--allow', 'mcp:notes']);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    const offered = (model.requests[0].body as any).tools.map((t: any) => t.function.name);
    assert.ok(offered.includes('mcp_notes_echo') && offered.includes('read_file'), offered.join(' '));
    assert.ok(run.lines.some((l) => l.type === 'notice' && /MCP server "notes": \d+ tools/.test(l.message)));
    const results = run.lines.filter((l) => l.type === 'tool_result');
    assert.deepEqual({ output: results[0].output, isError: results[0].isError }, { output: '42', isError: false });
    assert.ok(results[1].output.length < 100_000, `a ${results[1].output.length}-character result reached the model`);
    assert.equal(run.lines.filter((l) => l.type === 'approval_needed').length, 0);
  });

  it('refuses the tools without --allow mcp, saying which flag allows them', async () => {
    model.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'c1', name: 'mcp_notes_add', arguments: '{"a":1,"b":2}' } }] }, { type: 'reply', parts: [{ text: 'done' }] });
    let stderr = '';
    const args = parseExecArgs(['Use it', '--provider', 'openai-compatible', '--model', 'local', '--base-url', model.url, '--store', join(work, 'store'), '--cd', work, '--mcp-config', 'mcp.json'], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY }, stdout: () => undefined, stderr: (t) => (stderr += t) });
    assert.equal(code, EXEC_EXIT.done);
    assert.match(stderr, /\[needs approval: MCP server "notes", tool add; allow it with --allow mcp or --allow mcp:SERVER\]/);
    assert.match(stderr, /← The user denied running add from the MCP server "notes"\./);
  });

  it('exits 2 before sending anything when the file is missing, not JSON, or --allow names no server in it', async () => {
    const missing = await exec(['--mcp-config', 'nope.json']);
    assert.equal(missing.code, EXEC_EXIT.usage);
    assert.match(missing.stderr, /--mcp-config nope\.json: cannot read it \(ENOENT\)/);
    writeFileSync(join(work, 'bad.json'), '{ "servers": ');
    const bad = await exec(['--mcp-config', 'bad.json']);
    assert.match(bad.stderr, /--mcp-config bad\.json: not valid JSON/);
    const unknown = await exec(['--mcp-config', 'mcp.json', '--allow', 'mcp:other']);
    assert.equal(unknown.code, EXEC_EXIT.usage);
    assert.match(unknown.stderr, /--allow mcp:other: no server of that name in mcp\.json/);
    assert.equal(model.requests.length, 0);
  });

  it('reports a server that does not start and runs the task without it', async () => {
    writeFileSync(join(work, 'broken.json'), JSON.stringify({ servers: { gone: { command: join(work, 'no-such-program') } } }));
    model.enqueue({ type: 'reply', parts: [{ text: 'done' }] });
    const run = await exec(['--mcp-config', 'broken.json', '--allow', 'mcp']);
    assert.equal(run.code, EXEC_EXIT.done);
    assert.ok(run.lines.some((l) => l.type === 'notice' && l.message === 'The MCP server "gone" failed to start: the program was not found.'), JSON.stringify(run.lines.filter((l) => l.type === 'notice')));
  });

  it('parses --allow mcp and mcp:SERVER beside the other permissions', () => {
    const args = parseExecArgs(['t', '--provider', 'openai', '--model', 'm', '--allow', 'edit,mcp:a', '--allow', 'mcp:b'], work);
    assert.deepEqual({ all: args.mcpAllowed.all, servers: [...args.mcpAllowed.servers], allow: [...args.allow] }, { all: false, servers: ['a', 'b'], allow: ['edit'] });
    assert.equal(parseExecArgs(['t', '--provider', 'openai', '--model', 'm', '--allow', 'mcp'], work).mcpAllowed.all, true);
    assert.throws(() => parseExecArgs(['t', '--provider', 'openai', '--model', 'm', '--allow', 'mcp:'], work), /--allow takes read, edit, command, delegate, web, mcp or mcp:SERVER \(got "mcp:"\)/);
  });
});
