/**
 * `tally exec` against providers' errors as they send them: a context-length refusal with nothing
 * left to compact, quota and billing errors (never retried), tool calls a small model wrote as text,
 * and what `tally inspect` says of such runs.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'fs';
import { join } from 'path';
import { EXEC_EXIT } from '../../../src/cli/exec';
import { openStoreToInspect } from '../../../src/cli/storedSession';
import { FakeAnthropicServer } from '../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { recordedResponses, RecordedStreamServer } from '../../fakes/recordedStreamServer';
import { KEY, RECORDINGS, useExecRuns } from './execRuns';

describe('tally exec: provider errors as the provider meant them', function () {
  this.timeout(60_000);
  const runs = useExecRuns();
  const { servers, execPlain, exec, inspect } = runs;

  it('a context-length 400 with nothing to compact: never re-sent as the same body, recorded with the server\'s count, exit 4 with the reason', async () => {
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    servers.push(server);
    server.enqueue({ type: 'context_too_long', promptTokens: 208_450, limit: 128_000 }, { type: 'context_too_long', promptTokens: 208_450, limit: 128_000 });
    const run = await exec(['hello', '--provider', 'openai-compatible', '--model', 'local', '--base-url', `${server.url}`], {});
    assert.equal(run.code, EXEC_EXIT.blocked, run.stderr);
    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    assert.equal(new Set(bodies).size, bodies.length, `no body was sent twice (${bodies.length} sent)`);
    const error = run.lines.find((l) => l.type === 'error')!;
    assert.match(error.message, /refused the request as too long .*it counted 208,450 tokens; Tally estimated [\d,]+\).*not sent again/);
    assert.deepEqual([run.lines.at(-1)!.stopReason, run.lines.at(-1)!.exitCode], ['blocked', 4]);
    const shown = await inspect(run.lines[0].id);
    assert.match(shown, /#0 local: estimated \d+ in; reported 208450 in, no output\n/, 'tally inspect lists the request the server refused, with its count');
  });

  it('an exhausted quota (HTTP 429 insufficient_quota) is named as quota or billing and never retried', async () => {
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    servers.push(server);
    const body = { error: { message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };
    server.enqueue({ type: 'error', status: 429, body }, { type: 'error', status: 429, body });
    const run = await execPlain(['hello', '--provider', 'openai-compatible', '--model', 'local', '--base-url', `${server.url}`], {});
    assert.equal(run.code, EXEC_EXIT.error);
    assert.match(run.stderr, /quota or billing: .*not retried.*\(HTTP 429\): You exceeded your current quota/);
    assert.doesNotMatch(run.stderr, /rate limited|retrying/i);
    assert.equal(server.requests.length, 1, 'sent once');
  });

  it('the same quota error inside a 200 stream (recorded Responses traffic) is named as quota or billing and never retried', async () => {
    const recorded = recordedResponses(join(RECORDINGS, 'openai-responses', 'openai-error.1.chunks.txt'), (type) => type === 'response.created');
    const server = new RecordedStreamServer('/v1/responses', [recorded[0], recorded[0]]);
    servers.push(server);
    const url = await server.start();
    const run = await execPlain(['hello', '--provider', 'openai', '--model', 'gpt-5-nano', '--base-url', `${url}/v1`, '--openai-api', 'responses'], { TALLY_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.error);
    assert.match(run.stderr, /quota or billing: .*You exceeded your current quota/);
    assert.equal(server.requests.length, 1, 'sent once');
  });

  it("Anthropic's low credit balance (a 400 invalid_request_error) is named as billing and never retried", async () => {
    const server = await new FakeAnthropicServer({ apiKey: KEY }).start();
    servers.push(server);
    const body = { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' } };
    server.enqueue({ type: 'error', status: 400, body }, { type: 'error', status: 400, body });
    const run = await execPlain(['hello', '--provider', 'anthropic', '--model', 'claude-haiku-4-5', '--base-url', server.url], { TALLY_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.error);
    assert.match(run.stderr, /quota or billing: .*credit balance is too low/);
    assert.equal(server.requests.length, 1);
  });

  it("a small local model's tool call written as <tool_call> text runs as the call it names, and the turn goes on", async () => {
    writeFileSync(join(runs.work, 'notes.txt'), 'the launch is on Tuesday\n');
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    servers.push(server);
    server.enqueue(
      { type: 'reply', parts: [{ text: '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>' }] },
      { type: 'reply', parts: [{ text: 'The launch is on Tuesday.' }] },
    );
    const run = await exec(['When is the launch? Read notes.txt.', '--provider', 'openai-compatible', '--model', 'qwen2.5:0.5b', '--base-url', `${server.url}`], {});
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.deepEqual(run.lines.filter((l) => l.type === 'tool_call').map((l) => l.name), ['read_file']);
    assert.equal(server.requests.length, 2);
    const sent = server.requests[1].body.messages as any[];
    assert.ok(sent.some((m) => m.role === 'tool' && String(m.content).includes('the launch is on Tuesday')), 'the file went back to the model as the call\'s result');
    assert.equal(run.lines.filter((l) => l.type === 'text').map((l) => l.text).join('').endsWith('The launch is on Tuesday.'), true);
  });

  it('a tool call written as text that cannot be read as one is said plainly, never taken for the answer silently', async () => {
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    servers.push(server);
    server.enqueue({ type: 'reply', parts: [{ text: 'Sure. <tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>' }] });
    const run = await execPlain(['Read notes.txt.', '--provider', 'openai-compatible', '--model', 'qwen2.5:0.5b', '--base-url', `${server.url}`], {});
    assert.match(run.stderr, /The model wrote a tool call as text .* so nothing ran/);
  });

  it('tally inspect says "no usage reported" for a request without usage, and --store on a missing folder is an error that creates nothing', async () => {
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    servers.push(server);
    server.enqueue({ type: 'reply', parts: [{ text: 'Hi.' }], usage: 'absent' });
    const run = await exec(['hello', '--provider', 'openai-compatible', '--model', 'local', '--base-url', `${server.url}`], {});
    const shown = await inspect(run.lines[0].id);
    assert.match(shown, /#0 local: estimated \d+ in; no usage reported\n/);
    assert.doesNotMatch(shown, /reported not reported/);

    const missing = join(runs.storeFolder, 'no-such-store');
    await assert.rejects(openStoreToInspect(missing), new RegExp(`no store at ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the folder does not exist`));
    assert.equal(existsSync(missing), false, 'nothing was created');
  });
});
