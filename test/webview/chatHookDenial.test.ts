import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { ChatState, ChatToolCallView } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, errorsIn, hostSends, useHarness } from './harness';

const byHook: ChatToolCallView = {
  callId: 'c-hook',
  name: 'run_command',
  arguments: '{"command":"rm -rf build"}',
  status: 'denied',
  resultPreview: "A hook (`sh ~/bin/no-rm.sh`) denied this call: Destructive command blocked by policy",
  deniedBy: { hook: 'sh ~/bin/no-rm.sh', reason: 'Destructive command blocked by policy' },
};
const byUser: ChatToolCallView = { callId: 'c-user', name: 'run_command', arguments: '{"command":"make deploy"}', status: 'denied', resultPreview: 'The user denied this command.' };

const state: ChatState = { ...chatState, entries: [{ kind: 'assistant', id: 'a-hook', text: 'Cleaning up, then deploying.', toolCalls: [byHook, byUser] }] };

describe('chat webview: a call a hook denied', function () {
  this.timeout(60_000);
  const pages = useHarness();

  it('says "denied by hook <name>: <reason>" on its card, unlike a call the user denied', async () => {
    const page = await pages.open('chat', { width: 460, height: 700 });
    await hostSends(page, { type: 'state', state });
    const hook = page.locator('.tool-card[data-call-id="c-hook"]');
    assert.strictEqual(await hook.locator('.tool-denial').textContent(), 'Denied by hook sh ~/bin/no-rm.sh: Destructive command blocked by policy');
    assert.strictEqual(await hook.locator('.tool-head .badge').last().textContent(), 'denied by hook');
    assert.strictEqual(await hook.locator('.tool-result').count(), 0, 'the reason is said once');
    const user = page.locator('.tool-card[data-call-id="c-user"]');
    assert.strictEqual(await user.locator('.tool-denial').count(), 0);
    assert.strictEqual(await user.locator('.tool-head .badge').last().textContent(), 'denied');
    assert.match((await user.locator('.tool-result').textContent()) ?? '', /The user denied this command/);
    assert.deepStrictEqual(errorsIn(page), []);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`reads well in the ${theme} theme (screenshot)`, async () => {
      const page = await pages.harness().open('chat', { theme, width: 460, height: 700 });
      try {
        await hostSends(page, { type: 'state', state });
        const denial = page.locator('.tool-card[data-call-id="c-hook"] .tool-denial');
        const ratio = await textContrast(denial);
        assert.ok(ratio >= 4.5, `the denial line has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: path.join(ARTIFACTS, `hook-denial-${theme}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }
});
