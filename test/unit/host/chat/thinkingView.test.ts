import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { thinkingView } from '../../../../src/host/chat/chatEntryViews';
import { tempStore } from '../../../support/tempStore';

describe("the chat's thinking line", () => {
  it('shows the size of the thinking a reply carried, also when it is not sent back to the model', async () => {
    const env = await tempStore();
    try {
      const sessionId = (await env.store.createSession({ title: 'thinking' })).id;
      const counter = getTokenCounter();
      await counter.load();
      const session = await ContextSession.open({ store: env.store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 }), counter });
      const thought = 'The user asks for the launch date. The notes file should have it; I will read it first and then answer in one sentence. '.repeat(5);
      const message = await session.appendAssistant('Tuesday.', [], [{ format: 'openai-chat', text: thought }]);
      const view = thinkingView(message)!;
      assert.equal(view.tokens, counter.count(thought), 'the thinking\'s own tokens, not the 0 it adds to the next request');
      assert.ok(view.tokens! > 100);
    } finally {
      await env.dispose();
    }
  });

  it('says how many characters of thinking past the limit for one reply were not kept, after the session is read back', async () => {
    const env = await tempStore();
    try {
      const sessionId = (await env.store.createSession({ title: 'thinking cut' })).id;
      const counter = getTokenCounter();
      const session = await ContextSession.open({ store: env.store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 }), counter });
      await session.appendAssistant('Tuesday.', [], [{ format: 'openai-chat', text: 'The notes file has it.', cutChars: 18_000_000 }]);
      const [stored] = await env.store.loadTranscript(sessionId);
      assert.equal(thinkingView(stored)?.notKeptChars, 18_000_000);
      assert.equal(thinkingView({ ...stored, reasoning: [{ format: 'openai-chat', text: 'Whole.' }] })?.notKeptChars, undefined, 'nothing said when all of it was kept');
    } finally {
      await env.dispose();
    }
  });
});
