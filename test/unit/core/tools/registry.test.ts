import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { COMMANDS_RESTRICTED, EXTERNAL_TOOLS_RESTRICTED, type ApprovalAnswer } from '../../../../src/core/tools/approval';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { ToolInputError, type ApprovalRequest, type Tool } from '../../../../src/core/tools/types';
import { outputText, runOptions, testRegistry, type TestRegistryOptions } from '../../../support/toolRegistry';

const def = (name: string) => ({ name, description: name, inputSchema: { type: 'object' }, source: 'builtin' as const });

/** A tool from another extension, as the VS Code layer registers it: asks with its name, source and input. */
function externalTool(name: string, ran: string[]): Tool {
  return {
    definition: { ...def(name), source: 'extension' },
    approval: 'external',
    async execute(args, ctx) {
      await ctx.approve({ title: `Run the tool ${name} from the extension test.marker`, detail: `Input:\n${JSON.stringify(args, null, 2)}`, allowForSession: name }, `running the tool ${name}`);
      ran.push(name);
      return { output: 'marker written' };
    },
  };
}

function harness(options: Omit<TestRegistryOptions, 'ask'> & { answers?: ApprovalAnswer[] }) {
  const asked: ApprovalRequest[] = [];
  const seen = { shown: [] as ApprovalRequest[], resolved: [] as string[] };
  const answers = [...(options.answers ?? [])];
  const registry = testRegistry({ ...options, ask: async (request) => (asked.push(request), answers.shift() ?? { approved: false }) });
  let n = 0;
  const run = async (name: string, args: unknown = {}, signal?: AbortSignal) => {
    const r = await registry.run({ id: `c${++n}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }, runOptions(signal, seen));
    return { ...r, text: outputText(r) };
  };
  return { registry, asked, seen, run };
}

describe('the tool registry: one path for every call', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'tally-registry-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('an unknown tool, bad arguments and a failing tool each become a result the model can read', async () => {
    const tools: Tool[] = [
      { definition: def('bad_input'), approval: 'read', execute: async () => { throw new ToolInputError('"x" is required'); } },
      { definition: def('crash'), approval: 'read', execute: async () => { throw new Error('disk on fire'); } },
      { definition: def('ok'), approval: 'read', execute: async (args) => ({ output: `got ${String(args.v)}` }) },
    ];
    const h = harness({ tools });
    assert.deepEqual(await h.run('nope'), { output: 'Unknown tool "nope".', isError: true, text: 'Unknown tool "nope".' });
    assert.match((await h.run('ok', '{"v": ')).text, /^Invalid arguments for ok: the arguments are not valid JSON/);
    assert.equal((await h.run('ok', '[1]')).text, 'Invalid arguments for ok: the arguments must be a JSON object');
    assert.equal((await h.run('ok', '')).text, 'got undefined', 'empty arguments are an empty object');
    const bad = await h.run('bad_input');
    assert.equal(bad.text, 'bad_input: "x" is required');
    assert.equal(bad.isError, true);
    const crash = await h.run('crash');
    assert.equal(crash.text, 'crash failed: disk on fire');
    assert.equal(crash.isError, true);
    assert.equal((await h.run('ok', { v: 1 })).text, 'got 1');
  });

  it('the first source wins on a shared name, and unlisted tools run but are not offered', async () => {
    const first: Tool = { definition: def('read_file'), approval: 'read', execute: async () => ({ output: 'first' }) };
    const hidden: Tool = { definition: def('tool_search'), approval: 'read', unlisted: true, execute: async () => ({ output: 'found' }) };
    const called: string[] = [];
    const h = harness({ tools: [first, hidden, ...builtinTools()], folders: [ws], onCall: (name) => called.push(name) });
    assert.equal((await h.run('read_file', { path: 'x' })).text, 'first');
    assert.equal((await h.run('tool_search')).text, 'found');
    assert.ok(!h.registry.definitions().some((d) => d.name === 'tool_search'));
    assert.deepEqual(called, ['read_file', 'tool_search'], 'every call is reported before it runs');
  });

  it('read tools never ask; edits and commands ask per the settings; a denial is flagged on the result', async () => {
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    const h = harness({ tools: builtinTools(), folders: [ws] });
    assert.match((await h.run('read_file', { path: 'a.txt' })).text, /1 {2}one/);
    assert.equal(h.asked.length, 0);
    const denied = await h.run('write_file', { path: 'a.txt', content: 'two\n' });
    assert.deepEqual({ text: denied.text, isError: denied.isError, denied: denied.denied }, { text: 'The user denied writing a.txt.', isError: true, denied: true });
    assert.equal(h.asked[0].kind, 'edit');
    assert.deepEqual(h.asked[0].preview, { before: 'one\n', after: 'two\n' }, 'the whole texts go with the request, for the diff editor');
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'one\n');
    const command = await h.run('run_command', { command: 'echo hi' });
    assert.equal(command.text, 'The user denied running this command.');
    assert.equal(h.asked[1].kind, 'command');
    assert.deepEqual(h.seen.resolved, ['denied', 'denied']);
    const always = harness({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'always' } });
    assert.match((await always.run('run_command', { command: 'echo hi' })).text, /^hi\n\n\[exit code 0\]$/);
    assert.equal(always.asked.length, 0);
  });

  it('a command allowed by prefix for the session runs without asking; chained or other commands still ask', async () => {
    const h = harness({ tools: builtinTools(), folders: [ws], answers: [{ approved: true, forSession: true }] });
    assert.match((await h.run('run_command', { command: 'echo first' })).text, /^first/);
    assert.deepEqual(h.asked[0].allowance?.words, ['echo', 'first']);
    assert.equal(h.asked[0].allowForSession, '`echo first` (plus more plain words) in the workspace folder');
    assert.match((await h.run('run_command', { command: 'echo  first again' })).text, /^first again/);
    assert.equal(h.asked.length, 1, 'the allowed prefix did not ask again');
    assert.equal((await h.run('run_command', { command: 'echo first; touch pwned' })).text, 'The user denied running this command.');
    assert.equal((await h.run('run_command', { command: 'echo firstly' })).text, 'The user denied running this command.');
    assert.equal(h.asked.length, 3);
    assert.equal(h.asked[1].allowance, undefined, 'a chained command offers no allowance');
  });

  it('in Restricted Mode commands are refused without asking, and a prefix allowed earlier does not help', async () => {
    let trusted = true;
    const h = harness({ tools: builtinTools(), folders: [ws], trusted: () => trusted, answers: [{ approved: true, forSession: true }] });
    await h.run('run_command', { command: 'echo one' });
    trusted = false;
    assert.equal((await h.run('run_command', { command: 'echo one' })).text, COMMANDS_RESTRICTED);
    assert.equal(h.asked.length, 1);
  });

  it('cancelling the turn while the card waits runs nothing and is not recorded as the user\'s denial', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const withdrawn: string[] = [];
    const registry = testRegistry({ tools: [externalTool('write_marker', ran), ...builtinTools()], folders: [ws], ask: () => new Promise(() => undefined), withdraw: (r) => withdrawn.push(r.callId) });
    const pending = registry.run({ id: 'c1', name: 'write_marker', arguments: '{}' }, runOptions(controller.signal));
    const command = registry.run({ id: 'c2', name: 'run_command', arguments: '{"command":"touch x"}' }, runOptions(controller.signal));
    controller.abort();
    const result = await pending;
    assert.deepEqual(result, { output: 'The turn was cancelled before the user answered; write_marker did not run.', isError: true, cancelled: true });
    assert.equal((await command).denied, undefined);
    assert.deepEqual(ran, []);
    assert.deepEqual(withdrawn.sort(), ['c1', 'c2'], 'both cards (and any diff) are taken away');
  });
});

describe('tools from other extensions and MCP servers (approval kind "external")', () => {
  it('ask on the approval card with the tool, its source and its input; a denial is the result the model reads', async () => {
    const ran: string[] = [];
    const h = harness({ tools: [externalTool('write_marker', ran)], answers: [{ approved: false }] });
    const result = await h.run('write_marker', { path: '/tmp/x' });
    assert.equal(result.text, 'The user denied running the tool write_marker.');
    assert.equal(result.denied, true);
    assert.equal(h.seen.shown.length, 1);
    assert.match(h.seen.shown[0].title, /write_marker.*test\.marker/);
    assert.match(h.seen.shown[0].detail ?? '', /"path": "\/tmp\/x"/);
    assert.equal(h.seen.shown[0].allowForSession, 'write_marker');
    assert.equal(h.seen.shown[0].kind, 'other');
    assert.deepEqual(h.seen.resolved, ['denied']);
    assert.deepEqual(ran, []);
  });

  it('"Allow for this session" runs that tool again without asking; other tools still ask', async () => {
    const ran: string[] = [];
    const h = harness({ tools: [externalTool('write_marker', ran), externalTool('other_tool', ran)], answers: [{ approved: true, forSession: true }, { approved: true }] });
    await h.run('write_marker');
    await h.run('write_marker');
    assert.equal(h.asked.length, 1, 'asked once');
    await h.run('other_tool');
    assert.equal(h.asked.length, 2);
    assert.deepEqual(ran, ['write_marker', 'write_marker', 'other_tool']);
  });

  it('a single approval does not carry over to the next call', async () => {
    const ran: string[] = [];
    const h = harness({ tools: [externalTool('write_marker', ran)], answers: [{ approved: true }, { approved: false }] });
    await h.run('write_marker');
    assert.equal((await h.run('write_marker')).denied, true);
    assert.deepEqual(ran, ['write_marker']);
  });

  it('tools in the user\'s allow list run without asking', async () => {
    const ran: string[] = [];
    const h = harness({ tools: [externalTool('write_marker', ran)], allowedTools: ['write_marker'] });
    await h.run('write_marker');
    assert.equal(h.asked.length, 0);
    assert.deepEqual(ran, ['write_marker']);
  });

  it('in Restricted Mode none is offered and a forced call is refused without asking, even when allowed', async () => {
    const ran: string[] = [];
    const h = harness({ tools: [externalTool('write_marker', ran), ...builtinTools()], trusted: false, allowedTools: ['write_marker'] });
    assert.deepEqual(h.registry.definitions().map((d) => d.name), ['read_file', 'list_files', 'search_text', 'run_command', 'write_file', 'edit_file']);
    assert.equal((await h.run('write_marker')).text, EXTERNAL_TOOLS_RESTRICTED);
    assert.equal(h.asked.length + h.seen.shown.length, 0);
    assert.deepEqual(ran, []);
  });
});
