import { strict as assert } from 'assert';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

describe('the budget the status bar and the views read after every agent event', function () {
  this.timeout(30_000);

  it('is measured once between changes, and follows every change: messages, a pin, the fixed parts, the window, a reported count', async () => {
    const env = await tempStore();
    const counter = getTokenCounter();
    const settings = withSettings({ contextWindow: 64_000, maxOutputTokens: 4_000 });
    const session = await ContextSession.open({ store: env.store, sessionId: (await env.store.createSession({ title: 'meter' })).id, settings, counter });
    let fixed = { system: 120, skills: 0, tools: 40 };
    const estimate = () => session.messages.reduce((sum, m) => sum + countMessage(m, counter), 0) + fixed.system + fixed.skills + fixed.tools;
    const check = (when: string) => {
      const budget = session.measure(fixed);
      assert.equal(session.measure({ ...fixed }), budget, `${when}: asked again with nothing changed, the same budget`);
      return budget;
    };
    try {
      await session.appendUser('Read the config and fix the build.');
      assert.equal(check('a user message').used, estimate());
      const assistant = await session.appendAssistant('Reading it.', [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.json"}' }]);
      assert.equal(check('an assistant message').used, estimate());
      await session.recordToolResult({ id: 'call_1', name: 'read_file', arguments: '{"path":"a.json"}' }, '{ "strict": true }\n'.repeat(40));
      assert.equal(check('a tool result').used, estimate());
      await session.setPinned(assistant.id, true);
      assert.equal(check('a pin').used, estimate());
      fixed = { ...fixed, tools: 400 };
      assert.equal(check('more tools').used, estimate());
      const before = check('unchanged');
      session.contextWindow = 32_000;
      assert.notEqual(check('a smaller window').effectiveWindow, before.effectiveWindow);
      const request = await session.nextRequest({ fixed, system: [], sections: undefined } as never);
      const reported = Math.round(estimate() * 1.3);
      await session.recordResponse(request, { model: 'm', reported: { inputTokens: reported } });
      assert.equal(check('a reported count').used, reported, 'the provider’s count is the basis once reported');
    } finally {
      await env.dispose();
    }
  });
});
