/**
 * `tally exec` end to end: the agent loop against recorded real traffic served on 127.0.0.1, a real
 * folder on disk, a real sql.js store, and the stored session as `tally inspect --session` prints it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EXEC_EXIT, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { renderStoredSession } from '../../../src/cli/storedSession';
import { openStore } from '../../../src/node/store';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { recordedResponses, RecordedStreamServer } from '../../fakes/recordedStreamServer';

const RECORDINGS = join(__dirname, '..', 'core', 'providers', 'conformance', 'recordings');
const KEY = 'sk-exec-test';

interface Run {
  code: number;
  lines: Array<Record<string, any>>;
  stderr: string;
}

describe('tally exec', function () {
  this.timeout(60_000);
  let work: string;
  let storeFolder: string;
  const servers: Array<{ stop?: () => Promise<void>; close?: () => Promise<void> }> = [];

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'tally-exec-work-'));
    storeFolder = mkdtempSync(join(tmpdir(), 'tally-exec-store-'));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await (server.stop ?? server.close)!.call(server);
    rmSync(work, { recursive: true, force: true });
    rmSync(storeFolder, { recursive: true, force: true });
  });

  async function exec(argv: string[], env: Record<string, string>): Promise<Run> {
    let out = '';
    let stderr = '';
    const args = parseExecArgs([...argv, '--json', '--store', storeFolder, '--cd', work], work);
    const code = await runExec(args, { env, stdout: (t) => (out += t), stderr: (t) => (stderr += t) });
    return { code, lines: out.split('\n').filter(Boolean).map((line) => JSON.parse(line)), stderr };
  }

  async function inspect(sessionId: string): Promise<string> {
    const store = await openStore(storeFolder);
    try {
      return await renderStoredSession(store, sessionId);
    } finally {
      await store.close();
    }
  }

  it('completes a reasoning OpenAI turn with function calls against recorded Responses traffic, and the stored session shows the reasoning', async () => {
    const recorded = recordedResponses(join(RECORDINGS, 'openai-responses', 'openai-reasoning-encrypted-content.1.chunks.txt'), (type) => type === 'response.created');
    const server = new RecordedStreamServer('/v1/responses', recorded);
    servers.push(server);
    const url = await server.start();
    const run = await exec(['What is (12 + 7) * 3 * 10? Use the calculator.', '--provider', 'openai', '--model', 'gpt-5.1-codex-max', '--base-url', `${url}/v1`, '--openai-api', 'responses', '--effort', 'high'], { OPENAI_API_KEY: KEY });

    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    const end = run.lines.at(-1)!;
    assert.deepEqual([end.type, end.stopReason, end.exitCode], ['end', 'end_turn', 0]);
    assert.equal(server.requests.length, 4);
    assert.equal(server.requests[0].headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(server.requests[0].body.reasoning, { effort: 'high', summary: 'auto' });

    const summary = "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.";
    assert.equal(run.lines.filter((l) => l.type === 'reasoning').map((l) => l.text).join(''), summary);
    const calls = run.lines.filter((l) => l.type === 'tool_call');
    assert.deepEqual(calls.map((c) => c.id), ['call_AB6AaRZ1FYZB2RwS6A5vbdqn', 'call_Q6pW65MUgW9vF59BmItYGos3', 'call_Zl5vIMnD7dVAjgU6FkhmiCZh']);
    assert.equal(run.lines.filter((l) => l.type === 'tool_result').length, 3);
    assert.deepEqual(run.lines.filter((l) => l.type === 'usage').map((u) => [u.input, u.output]), [[134, 28], [221, 26], [260, 26], [299, 12]]);
    assert.equal(run.lines.filter((l) => l.type === 'text').map((l) => l.text).join(''), 'The final result is **570**.');

    // Every later request sends the encrypted reasoning back first, and each call with its output under the same id.
    for (const [n, request] of server.requests.slice(1).entries()) {
      const input = request.body.input as any[];
      assert.equal(input[1].type, 'reasoning', `request ${n + 2}`);
      assert.ok(input[1].encrypted_content.startsWith('gAAAAABpPDIVOKrs'), 'the encrypted content of the finished item');
      const sentCalls = input.filter((i) => i.type === 'function_call').map((i) => i.call_id);
      const outputs = input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id);
      assert.deepEqual(outputs, sentCalls);
      assert.deepEqual(sentCalls, calls.slice(0, n + 1).map((c) => c.id));
    }

    const shown = await inspect(run.lines[0].id);
    assert.match(shown, /reasoning \(openai-responses, encrypted reasoning kept\):/);
    assert.ok(shown.includes("I'll compute 12 plus 7, then multiply the result by 3"));
    assert.ok(shown.includes('The final result is **570**.'));
    assert.match(shown, /→ calculator \{"a":12,"b":7,"op":"add"\}\s+\[call_AB6AaRZ1FYZB2RwS6A5vbdqn\]/);
    assert.match(shown, /#3 gpt-5.1-codex-max: estimated \d+ in; reported 299 in, 12 out \(0 reasoning\)/);
    assert.deepEqual(run.lines.filter((l) => l.type === 'usage').map((u) => u.reasoning), [0, 0, 0, 0]);
  });

  it('runs a recorded Anthropic tool-use stream to its end, answering the call under its id', async () => {
    const folder = join(RECORDINGS, 'anthropic-exec');
    const opens = (type: string) => type === 'message_start';
    const server = new RecordedStreamServer('/v1/messages', [
      ...recordedResponses(join(folder, 'anthropic-json-other-tool.1.chunks.txt'), opens),
      ...recordedResponses(join(folder, 'anthropic-message-delta-input-tokens.chunks.txt'), opens),
    ]);
    servers.push(server);
    const url = await server.start();
    const run = await exec(['What is the weather in San Francisco?', '--provider', 'anthropic', '--model', 'claude-haiku-4-5', '--base-url', url], { ANTHROPIC_API_KEY: KEY });

    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests[0].headers['x-api-key'], KEY);
    const call = run.lines.find((l) => l.type === 'tool_call')!;
    assert.deepEqual([call.id, call.name, call.arguments], ['toolu_019Zvehfe1XQWweT1pm7okyt', 'weather', '{"location": "San Francisco"}']);
    const answered = (server.requests[1].body.messages as any[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === 'tool_result');
    assert.equal(answered.tool_use_id, 'toolu_019Zvehfe1XQWweT1pm7okyt');
    assert.equal(run.lines.filter((l) => l.type === 'text').map((l) => l.text).join(''), 'pong');
    assert.deepEqual(run.lines.filter((l) => l.type === 'usage').map((u) => u.output), [28, 2]);
  });

  it('writes no file unless --allow edit is given, and never asks', async () => {
    const server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    servers.push(server as never);
    const writeCall = { type: 'reply' as const, parts: [{ toolCall: { name: 'write_file', arguments: JSON.stringify({ path: 'out.txt', content: 'written' }) } }] };
    server.enqueue(writeCall, { type: 'reply', parts: [{ text: 'ok' }] });
    const denied = await exec(['write out.txt', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url], { TALLY_API_KEY: KEY });
    assert.equal(denied.code, EXEC_EXIT.done);
    assert.equal(denied.lines.find((l) => l.type === 'tool_result')!.denied, true);
    assert.deepEqual([denied.lines.find((l) => l.type === 'approval_needed')!.kind, denied.lines.find((l) => l.type === 'approval')!.decision], ['edit', 'denied']);
    assert.equal(existsSync(join(work, 'out.txt')), false);

    server.enqueue(writeCall, { type: 'reply', parts: [{ text: 'ok' }] });
    const allowed = await exec(['write out.txt', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--allow', 'edit'], { TALLY_API_KEY: KEY });
    assert.equal(allowed.code, EXEC_EXIT.done);
    assert.equal(existsSync(join(work, 'out.txt')), true);
  });

  it('sends OPENAI_API_KEY only to OpenAI: an openai-compatible server gets no key from it', async () => {
    const server = await new FakeOpenAIServer().start();
    servers.push(server as never);
    server.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
    const run = await exec(['hello', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url], { OPENAI_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.done);
    assert.equal(server.requests[0].headers.authorization, undefined);
  });

  it('exits 2 with the reason when no key is set, before sending anything', async () => {
    const run = await exec(['hello', '--provider', 'anthropic', '--model', 'claude-haiku-4-5'], {});
    assert.equal(run.code, EXEC_EXIT.usage);
    assert.match(run.stderr, /ANTHROPIC_API_KEY/);
  });
});
