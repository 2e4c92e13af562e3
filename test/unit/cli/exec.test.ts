/**
 * `tally exec` end to end: the agent loop against recorded real traffic served on 127.0.0.1, a real
 * folder on disk, a real sql.js store, and the stored session as `tally inspect --session` prints it.
 */
import assert from 'node:assert/strict';
import { existsSync, linkSync, writeFileSync } from 'fs';
import { join } from 'path';
import { EXEC_EXIT } from '../../../src/cli/exec';
import { execApiKey } from '../../../src/cli/execApiKey';
import { FakeAnthropicServer } from '../../fakes/anthropicServer';
import { EndlessStreamServer } from '../../fakes/endlessStreamServer';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { recordedResponses, RecordedStreamServer } from '../../fakes/recordedStreamServer';
import { anthropicFacts } from '../core/providers/conformance/recordingFacts';
import { ANTHROPIC_MESSAGES, recordedRequest, sseChunks } from '../core/providers/conformance/replay';
import { KEY, RECORDINGS, useExecRuns } from './execRuns';


function toolNames(body: any): string[] {
  return ((body.tools ?? []) as any[]).map((t) => t.function?.name ?? t.name);
}

describe('tally exec', function () {
  this.timeout(60_000);
  const runs = useExecRuns();
  const { servers, execPlain, exec, inspect } = runs;

  it('completes a reasoning OpenAI turn with function calls against recorded Responses traffic, and the stored session shows the reasoning', async () => {
    const recorded = recordedResponses(join(RECORDINGS, 'openai-responses', 'openai-reasoning-encrypted-content.1.chunks.txt'), (type) => type === 'response.created');
    const server = new RecordedStreamServer('/v1/responses', recorded);
    servers.push(server);
    const url = await server.start();
    const run = await exec(['What is (12 + 7) * 3 * 10? Use the calculator.', '--provider', 'openai', '--model', 'gpt-5.1-codex-max', '--base-url', `${url}/v1`, '--openai-api', 'responses', '--effort', 'high'], { TALLY_API_KEY: KEY });

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
    const run = await exec(['What is the weather in San Francisco?', '--provider', 'anthropic', '--model', 'claude-haiku-4-5', '--base-url', url], { TALLY_API_KEY: KEY });

    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests[0].headers['x-api-key'], KEY);
    const call = run.lines.find((l) => l.type === 'tool_call')!;
    assert.deepEqual([call.id, call.name, call.arguments], ['toolu_019Zvehfe1XQWweT1pm7okyt', 'weather', '{"location": "San Francisco"}']);
    const answered = (server.requests[1].body.messages as any[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === 'tool_result');
    assert.equal(answered.tool_use_id, 'toolu_019Zvehfe1XQWweT1pm7okyt');
    assert.equal(run.lines.filter((l) => l.type === 'text').map((l) => l.text).join(''), 'pong');
    assert.deepEqual(run.lines.filter((l) => l.type === 'usage').map((u) => u.output), [28, 2]);
  });

  it('completes a thinking Claude turn with a tool call against recorded traffic: the second request sends the signed thinking first and unchanged', async () => {
    const server = await new FakeAnthropicServer({ apiKey: KEY }).start();
    servers.push(server);
    const sse = { 'content-type': 'text/event-stream; charset=utf-8' };
    server.enqueue(
      { type: 'raw', headers: sse, chunks: sseChunks(ANTHROPIC_MESSAGES, 'thinking-tool-chain.1.sse') },
      { type: 'raw', headers: sse, chunks: sseChunks(ANTHROPIC_MESSAGES, 'thinking-tool-chain.2.sse') },
    );
    const first = recordedRequest(ANTHROPIC_MESSAGES, 'thinking-tool-chain.1.request.json');
    const recordedNext = recordedRequest(ANTHROPIC_MESSAGES, 'thinking-tool-chain.2.request.json');
    const run = await exec([first.messages[0].content[0].text, '--provider', 'anthropic', '--model', first.model, '--base-url', server.url, '--effort', 'low'], { TALLY_API_KEY: KEY });

    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 2);
    // --effort low on a model with a fixed thinking budget: thinking on, its budget inside max_tokens, no temperature.
    const sent = server.requests[0].body;
    assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.ok(sent.max_tokens > 2048, `max_tokens ${sent.max_tokens} leaves room for the answer`);
    assert.equal(sent.temperature, undefined);

    // The readable thinking streamed as reasoning lines, and the assistant message carries it.
    const recordedThinking = recordedNext.messages[1].content[0];
    assert.equal(run.lines.filter((l) => l.type === 'reasoning').map((l) => l.text).join(''), recordedThinking.thinking);
    const assistant = run.lines.find((l) => l.type === 'assistant_message')!;
    assert.deepEqual(assistant.reasoning, [{ format: 'anthropic', text: recordedThinking.thinking }]);
    const call = run.lines.find((l) => l.type === 'tool_call')!;
    assert.deepEqual([call.id, call.name], ['toolu_01825dXWLSoJwCst1qTsiWdb', 'fixed_version']);

    // The second request: the thinking block first, byte for byte with its signature, then the call; the call answered under its id.
    const loop = (server.requests[1].body.messages as any[]).find((m) => m.role === 'assistant');
    assert.deepEqual(loop.content[0], recordedThinking);
    assert.deepEqual([loop.content[1].type, loop.content[1].id], ['tool_use', call.id]);
    const answered = (server.requests[1].body.messages as any[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === 'tool_result');
    assert.equal(answered.tool_use_id, call.id);
    assert.deepEqual(server.requests[1].body.thinking, sent.thinking);

    // exec has no fixed_version tool: the model is told so under the call's id, and the recorded answer completes the turn.
    assert.deepEqual([answered.is_error, run.lines.find((l) => l.type === 'tool_result')!.output], [true, 'Unknown tool "fixed_version".']);
    assert.equal(run.lines.filter((l) => l.type === 'text').map((l) => l.text).join(''), anthropicFacts(ANTHROPIC_MESSAGES, 'thinking-tool-chain.2.sse').text);
    // Usage lines carry the thinking tokens the API reported (53 of the first reply's 92 output tokens).
    assert.deepEqual(run.lines.filter((l) => l.type === 'usage').map((u) => [u.input, u.output, u.reasoning]), [[598, 92, 53], [707, 89, 0]]);

    const shown = await inspect(run.lines[0].id);
    assert.match(shown, /reasoning \(anthropic, signed\):/);
    assert.ok(shown.includes('Let me first call the fixed_version tool to see what version it returns.'));
    assert.match(shown, /→ fixed_version \{\}\s+\[toolu_01825dXWLSoJwCst1qTsiWdb\]/);
    assert.ok(shown.includes('The version is **0.32a0**.'));
    assert.match(shown, /#0 claude-haiku-4-5-20251001: estimated \d+ in; reported 598 in, 92 out \(53 reasoning\)\n/);
    assert.match(shown, /#1 claude-haiku-4-5-20251001: estimated \d+ in; reported 707 in, 89 out \(0 reasoning\)\n/);
  });

  it('plain output puts the thinking, each request with its reasoning tokens and the subagent steps on stderr, the answer on stdout', async () => {
    const server = await new FakeAnthropicServer({ apiKey: KEY }).start();
    servers.push(server);
    const sse = { 'content-type': 'text/event-stream; charset=utf-8' };
    server.enqueue(
      { type: 'raw', headers: sse, chunks: sseChunks(ANTHROPIC_MESSAGES, 'thinking-tool-chain.1.sse') },
      { type: 'raw', headers: sse, chunks: sseChunks(ANTHROPIC_MESSAGES, 'thinking-tool-chain.2.sse') },
    );
    const run = await execPlain(['Use the fixed_version tool.', '--provider', 'anthropic', '--model', 'claude-haiku-4-5-20251001', '--base-url', server.url, '--effort', 'low'], { TALLY_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(run.stdout, anthropicFacts(ANTHROPIC_MESSAGES, 'thinking-tool-chain.2.sse').text);
    assert.ok(run.stderr.includes('Let me first call the fixed_version tool'));
    assert.ok(run.stderr.includes('[request #0: 598 in, 92 out (53 reasoning)]'), run.stderr);
    assert.ok(run.stderr.includes('[request #1: 707 in, 89 out]'), run.stderr);

    const openai = await new FakeOpenAIServer({ apiKey: KEY }).start();
    servers.push(openai as never);
    openai.enqueue(
      { type: 'reply', parts: [{ toolCall: { id: 'call_delegate', name: 'delegate', arguments: JSON.stringify({ task: 'List the files.' }) } }] },
      { type: 'reply', parts: [{ toolCall: { id: 'call_list', name: 'list_files', arguments: '{}' } }] },
      { type: 'reply', parts: [{ text: 'no files' }] },
      { type: 'reply', parts: [{ text: 'done' }] },
    );
    const delegated = await execPlain(['List the files', '--provider', 'openai-compatible', '--model', 'local', '--base-url', openai.url, '--allow', 'delegate'], { TALLY_API_KEY: KEY });
    assert.equal(delegated.code, EXEC_EXIT.done, delegated.stderr);
    assert.match(delegated.stderr, /\[general subagent started: List the files\.\]\n\[general subagent → list_files\]\n(.|\n)*\[general subagent ended \(end_turn\): 2 requests, \d+ tokens\]/);
  });

  it('--effort asks Claude to think in the form its model takes, and no thinking without it', async () => {
    const server = await new FakeAnthropicServer({ apiKey: KEY }).start();
    servers.push(server);
    const answer = { type: 'reply' as const, parts: [{ text: 'ok' }] };
    server.enqueue(answer, answer, answer);
    const base = ['hello', '--provider', 'anthropic', '--base-url', server.url];
    assert.equal((await exec([...base, '--model', 'claude-sonnet-4-6', '--effort', 'high'], { TALLY_API_KEY: KEY })).code, EXEC_EXIT.done);
    assert.equal((await exec([...base, '--model', 'claude-sonnet-4-5', '--effort', 'medium'], { TALLY_API_KEY: KEY })).code, EXEC_EXIT.done);
    assert.equal((await exec([...base, '--model', 'claude-sonnet-4-5'], { TALLY_API_KEY: KEY })).code, EXEC_EXIT.done);
    const [adaptive, budget, none] = server.requests.map((r) => r.body);
    assert.deepEqual([adaptive.thinking, adaptive.output_config], [{ type: 'adaptive' }, { effort: 'high' }]);
    assert.deepEqual(budget.thinking, { type: 'enabled', budget_tokens: 8192 });
    assert.ok(budget.max_tokens > 8192);
    assert.equal(none.thinking, undefined);
  });

  it('offers the delegate tool only with --allow delegate, and prints each subagent step as a JSON line', async () => {
    writeFileSync(join(runs.work, 'VERSION.txt'), '1.2.3\n');
    const server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    servers.push(server as never);
    const base = ['What version is this?', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url];
    server.enqueue({ type: 'reply', parts: [{ text: 'no subagents' }] });
    await exec(base, { TALLY_API_KEY: KEY });
    assert.equal(toolNames(server.requests[0].body).includes('delegate'), false);

    server.enqueue(
      { type: 'reply', parts: [{ toolCall: { id: 'call_delegate', name: 'delegate', arguments: JSON.stringify({ task: 'Read VERSION.txt and report the version.' }) } }] },
      { type: 'reply', parts: [{ toolCall: { id: 'call_read', name: 'read_file', arguments: JSON.stringify({ path: 'VERSION.txt' }) } }] },
      { type: 'reply', parts: [{ text: 'VERSION.txt says 1.2.3.' }] },
      { type: 'reply', parts: [{ text: 'The version is 1.2.3.' }] },
    );
    const run = await exec([...base, '--allow', 'delegate'], { TALLY_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 5);
    const [parentAsks, subagentAsks, subagentReports] = server.requests.slice(1).map((r) => r.body);
    const isSubagent = (body: any) => JSON.stringify(body.messages[0]).includes('You are a subagent');
    assert.ok(toolNames(parentAsks).includes('delegate') && !isSubagent(parentAsks));
    assert.ok(isSubagent(subagentAsks), 'the subagent asks next, in a context of its own');
    assert.equal(JSON.stringify(subagentAsks.messages).includes('What version is this?'), false);
    assert.deepEqual(toolNames(subagentAsks).filter((n) => ['write_file', 'edit_file', 'run_command', 'delegate'].includes(n)), [], 'a subagent gets read-only tools');
    assert.ok(JSON.stringify(subagentReports.messages).includes('1.2.3'), 'the subagent read the file');

    const steps = run.lines.filter((l) => l.type === 'subagent');
    assert.deepEqual(steps.map((l) => l.kind), ['started', 'request', 'usage', 'tool_call', 'request', 'usage', 'ended']);
    assert.ok(steps.every((l) => l.call === 'call_delegate' && l.session === steps[0].session && l.session !== run.lines[0].id));
    assert.equal(steps[0].task, 'Read VERSION.txt and report the version.');
    assert.deepEqual([steps[3].name, steps[3].id], ['read_file', 'call_read']);
    assert.deepEqual([steps[6].stopReason, steps[6].requests], ['end_turn', 2]);
    const report = run.lines.find((l) => l.type === 'tool_result' && l.id === 'call_delegate')!;
    assert.match(report.output, /^VERSION\.txt says 1\.2\.3\.\n\[general subagent: 2 requests, \d+ tokens\]$/);
    assert.equal(run.lines.filter((l) => l.type === 'text').map((l) => l.text).join(''), 'The version is 1.2.3.');

    // The subagent's runs.work is stored as a session of its own, which tally inspect --session prints.
    const subagentSession = await inspect(steps[0].session);
    assert.match(subagentSession, /^session \S+: general: Read VERSION\.txt and report the version\./);
    assert.match(subagentSession, /→ read_file \{"path":"VERSION.txt"\}\s+\[call_read\]/);
    assert.ok(subagentSession.includes('VERSION.txt says 1.2.3.'));
  });

  it("a subagent asks under exec's --allow like the parent: a hard-linked file it reads stays unread without --allow read", async () => {
    writeFileSync(join(runs.work, 'secret.txt'), 'linked-secret\n');
    linkSync(join(runs.work, 'secret.txt'), join(runs.work, 'alias.txt'));
    const server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    servers.push(server as never);
    const script = () =>
      server.enqueue(
        { type: 'reply', parts: [{ toolCall: { id: 'call_delegate', name: 'delegate', arguments: JSON.stringify({ task: 'Read alias.txt.' }) } }] },
        { type: 'reply', parts: [{ toolCall: { id: 'call_read', name: 'read_file', arguments: JSON.stringify({ path: 'alias.txt' }) } }] },
        { type: 'reply', parts: [{ text: 'report' }] },
        { type: 'reply', parts: [{ text: 'done' }] },
      );
    const base = ['Read alias.txt', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url];
    script();
    const denied = await exec([...base, '--allow', 'delegate'], { TALLY_API_KEY: KEY });
    assert.equal(denied.code, EXEC_EXIT.done, denied.stderr);
    assert.equal(JSON.stringify(server.requests.map((r) => r.body)).includes('linked-secret'), false, 'the file never reached the model');
    const asked = denied.lines.find((l) => l.type === 'approval_needed')!;
    assert.equal(asked.kind, 'read');
    assert.match(asked.title, /^general subagent: Read alias\.txt/);
    assert.equal(denied.lines.find((l) => l.type === 'approval')!.decision, 'denied');

    server.requests.splice(0);
    script();
    const allowed = await exec([...base, '--allow', 'delegate,read'], { TALLY_API_KEY: KEY });
    assert.equal(allowed.code, EXEC_EXIT.done, allowed.stderr);
    assert.ok(JSON.stringify(server.requests[2].body.messages).includes('linked-secret'));
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
    assert.equal(existsSync(join(runs.work, 'out.txt')), false);

    server.enqueue(writeCall, { type: 'reply', parts: [{ text: 'ok' }] });
    const allowed = await exec(['write out.txt', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--allow', 'edit'], { TALLY_API_KEY: KEY });
    assert.equal(allowed.code, EXEC_EXIT.done);
    assert.equal(existsSync(join(runs.work, 'out.txt')), true);
  });

  it('sends OPENAI_API_KEY only to OpenAI: an openai-compatible server gets no key from it', async () => {
    const server = await new FakeOpenAIServer().start();
    servers.push(server as never);
    server.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
    const run = await exec(['hello', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url], { OPENAI_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.done);
    assert.equal(server.requests[0].headers.authorization, undefined);
  });

  it('never sends ANTHROPIC_API_KEY or OPENAI_API_KEY to a --base-url other than the provider\'s own; TALLY_API_KEY goes there', async () => {
    const anthropic = await new FakeAnthropicServer().start();
    const openai = await new FakeOpenAIServer().start();
    servers.push(anthropic as never, openai as never);
    anthropic.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
    const claude = await exec(['hello', '--provider', 'anthropic', '--model', 'claude-haiku-4-5', '--base-url', anthropic.url], { ANTHROPIC_API_KEY: 'sk-ant-secret' });
    assert.equal(claude.code, EXEC_EXIT.usage);
    assert.match(claude.stderr, /set TALLY_API_KEY \(ANTHROPIC_API_KEY is sent only to https:\/\/api\.anthropic\.com/);
    const gpt = await exec(['hello', '--provider', 'openai', '--model', 'gpt-4o', '--base-url', openai.url], { OPENAI_API_KEY: 'sk-openai-secret' });
    assert.equal(gpt.code, EXEC_EXIT.usage);
    assert.match(gpt.stderr, /OPENAI_API_KEY is sent only to https:\/\/api\.openai\.com/);
    assert.equal(anthropic.requests.length + openai.requests.length, 0, 'nothing was sent');
    const tally = await exec(['hello', '--provider', 'anthropic', '--model', 'claude-haiku-4-5', '--base-url', anthropic.url], { ANTHROPIC_API_KEY: 'sk-ant-secret', TALLY_API_KEY: KEY });
    assert.equal(tally.code, EXEC_EXIT.done, tally.stderr);
    assert.equal(anthropic.requests[0].headers['x-api-key'], KEY);
  });

  it('the provider\'s key goes to its own origin, also when --base-url names it', () => {
    const env = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' };
    assert.deepEqual(execApiKey('anthropic', undefined, env), { key: 'a' });
    assert.deepEqual(execApiKey('anthropic', 'https://API.anthropic.com:443/', env), { key: 'a' });
    assert.deepEqual(execApiKey('openai', 'https://api.openai.com/v1', env), { key: 'o' });
    assert.match(execApiKey('anthropic', 'https://api.anthropic.com.evil.example', env).missing ?? '', /^TALLY_API_KEY/);
    assert.equal(execApiKey('anthropic', 'http://api.anthropic.com', env).key, undefined, 'plain http is another origin');
    assert.equal(execApiKey('openai', 'https://api.openai.com@127.0.0.1/v1', env).key, undefined);
    assert.deepEqual(execApiKey('openai-compatible', 'http://127.0.0.1:1/v1', env), {});
    assert.deepEqual(execApiKey('anthropic', undefined, {}), { missing: 'ANTHROPIC_API_KEY or TALLY_API_KEY' });
  });

  it('exits 1 with an error naming the limit when the server streams endless reasoning_content, instead of filling the heap', async function () {
    this.timeout(120_000); // thinking past the 4 MB kept is read on to its own limit: 64 MB through the CLI
    const server = await new EndlessStreamServer('openai-chat', ['thinking']).start();
    servers.push(server);
    const { code, stderr } = await execPlain(['think', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.baseUrl], {});
    assert.equal(code, EXEC_EXIT.error);
    assert.match(stderr, /tally: OpenAI-compatible server \(127\.0\.0\.1:\d+\): reply over a limit: the reply's thinking passed 67,108,864 characters, Tally's limit for one reply/);
    assert.match(stderr, /\[error\] session /);
    assert.equal(server.bodies.length, 1, 'not sent again');
  });


  it('exits 2 with the reason when no key is set, before sending anything', async () => {
    const run = await exec(['hello', '--provider', 'anthropic', '--model', 'claude-haiku-4-5'], {});
    assert.equal(run.code, EXEC_EXIT.usage);
    assert.match(run.stderr, /ANTHROPIC_API_KEY/);
  });
});
