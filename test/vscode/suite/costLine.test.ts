import { strict as assert } from 'assert';
import { SCRIPTED_WINDOW_SETTINGS, scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

/**
 * The line under the chat's input predicts the request the message goes out in: on a new
 * session's first message too, where the system prompt and the tools are most of it.
 */
describe('The cost line before sending predicts the next request', () => {
  const scripted = scriptedModelForSuite(SCRIPTED_WINDOW_SETTINGS);

  it("on a session's first message, the line's request size is the size the request then has", async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('cost line');
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
    assert.ok(cost.text.startsWith(`next request ${request.estimatedInputTokens.toLocaleString('en-US')} tokens`), cost.text);
  });
});
