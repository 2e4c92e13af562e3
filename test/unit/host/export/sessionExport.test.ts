import { strict as assert } from 'assert';
import { exportJson, exportMarkdown, readSessionExport, type SessionExport } from '../../../../src/host/export/sessionExport';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../fakes/scriptedServer';
import { firstUser, subagentHarness, toolResults } from '../../core/agent/subagents/subagentHarness';

function script(request: RecordedRequest): FakeReply {
  const user = firstUser(request);
  if (user.startsWith('USER:')) {
    return toolResults(request) === 0
      ? { type: 'reply', parts: [{ text: 'Delegating.' }, { toolCall: { name: 'delegate', arguments: JSON.stringify({ task: 'TASK find the parser' }) } }], usage: { input: 900, output: 20 } }
      : { type: 'reply', parts: [{ text: 'Done.' }], usage: { input: 1_000, output: 5 } };
  }
  return toolResults(request) === 0
    ? { type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: JSON.stringify({ text: 'SUBAGENT-RAW-OUTPUT' }) } }], usage: { input: 500, output: 10 } }
    : { type: 'reply', parts: [{ text: 'Parser report: src/parse.ts:3' }], usage: { input: 600, output: 10 } };
}

describe('session export: a session with its subagents', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => server?.close());

  it("carries each subagent's own session under the delegate call that started it, in JSON and Markdown", async () => {
    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script }).start();
    const h = await subagentHarness({ server });
    assert.equal(await h.agent.send('USER: where is the parser?'), 'end_turn');
    const info = (await h.env.store.getSession(h.contextSession.sessionId))!;
    const tree = await readSessionExport(h.env.store, info);
    const callId = h.contextSession.messages.flatMap((m) => m.toolCalls ?? [])[0].id;

    assert.equal(tree.subagents.length, 1);
    const sub = tree.subagents[0];
    assert.deepEqual(sub.link, { parentCallId: callId, agent: 'general' });
    assert.equal(sub.usage.length, 2, "the subagent's requests, with their items");
    assert.ok(sub.transcript.some((m) => m.role === 'tool' && m.content.includes('SUBAGENT-RAW-OUTPUT')), 'its own tool output, which the parent never saw');
    assert.ok(!tree.transcript.some((m) => m.content.includes('SUBAGENT-RAW-OUTPUT')));

    const json = JSON.parse(exportJson(tree)) as SessionExport;
    assert.equal(json.subagents[0].session.id, sub.session.id);
    assert.equal(json.subagents[0].link?.parentCallId, callId);

    const markdown = exportMarkdown(tree);
    assert.match(markdown, new RegExp(`- tool call \`delegate\` .* → subagent session ${sub.session.id} \\(below\\)`));
    assert.match(markdown, new RegExp(`\n## Subagent general \\(delegate call ${callId}\\): general: TASK find the parser\n`));
    assert.ok(markdown.indexOf('SUBAGENT-RAW-OUTPUT') > markdown.indexOf('## Subagent general'), "the subagent's work comes after the session's own, under its heading");
  });
});
