import { strict as assert } from 'assert';
import { buildInspectorState } from '../../../src/host/inspector/inspectorState';
import type { TallyApi } from '../../../src/extension';
import { SCRIPTED_WINDOW_SETTINGS, scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

/**
 * The line under the chat's input predicts the request the message goes out in: on a new
 * session's first message too, where the system prompt and the tools are most of it.
 */
/** The inspector's next-request list of a live session names each part: no replay wording, each tool with its source. */
async function assertItemized(t: TallyApi, when: string): Promise<void> {
  const current = buildInspectorState(await t.sessions.current()).current;
  assert.ok(!current.some((i) => /recorded as a total/.test(i.preview)), `${when}: the prompt is listed part by part, not as a recorded total`);
  const schemas = current.filter((i) => i.kind === 'tool-schema');
  assert.ok(schemas.length > 0 && schemas.every((i) => i.source), `${when}: every tool with its source`);
}

describe('The cost line before sending predicts the next request', () => {
  const scripted = scriptedModelForSuite(SCRIPTED_WINDOW_SETTINGS);

  it("on a session's first message, the line's request size is the size the request then has", async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('cost line');
    await assertItemized(t, 'a new session');
    const text = 'Say ready, nothing else.';
    t.attachments.draft.setDraftText(text);
    const cost = t.attachments.draft.cost(await t.attachments.session())!;
    t.attachments.draft.setDraftText('');
    assert.ok(cost.requestTokens !== undefined && cost.requestTokens > 500, `the line counts the prompt outside the conversation: ${cost.text}`);

    scripted().enqueue({ type: 'reply', parts: [{ text: 'Ready.' }], usage: null });
    await t.sessions.send(text);
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    const request = (await (await t.sessions.store()).requestUsageAt(session.info.id, 0))!;
    assert.equal(cost.requestTokens, request.estimatedInputTokens, `the line said ${cost.text}; the request carried ${request.estimatedInputTokens}`);
    await assertItemized(t, 'after the first turn');
    assert.ok(cost.text.startsWith(`next request ${request.estimatedInputTokens.toLocaleString('en-US')} tokens`), cost.text);
  });
});
