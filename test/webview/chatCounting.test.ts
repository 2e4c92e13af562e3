import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { RequestUsageRecord } from '../../src/core/model/records';
import { countingMeter } from '../../src/host/figures/turnFigures';
import type { ChatState } from '../../src/protocol/chat';
import { chatState, figuresOf } from './fixtures';
import { ARTIFACTS, cspViolations, hostSends, posted, usePage } from './harness';

const lastRequest: RequestUsageRecord = {
  id: 'u7', sessionId: 's-1', requestIndex: 7, createdAt: 1, model: 'm', contextWindow: 200_000, maxOutputTokens: 16_000,
  components: { system: 0, skills: 0, tools: 0, messages: 0, toolResults: 0, summaries: 0 }, estimatedInputTokens: 129_900, reportedInputTokens: 131_300, items: [],
};

/** The chat of a long session shown before its context is counted: its messages, and a meter that says it is counting. */
const counting: ChatState = { ...chatState, busy: false, meter: undefined, counting: countingMeter([lastRequest]) };

describe('chat webview while the session\'s context is counted (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', counting, { width: 460, height: 900 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('shows "counting…" and the last request\'s stored figure, no share and no window, and opens the inspector on click', async () => {
    const meter = page.locator('button.meter');
    assert.strictEqual(await meter.getAttribute('data-level'), 'counting');
    assert.strictEqual(await meter.getAttribute('aria-busy'), 'true');
    assert.strictEqual(await page.textContent('.meter-text'), 'counting…');
    assert.strictEqual(await page.textContent('[data-meter="last-and-now"]'), 'last request 131,300 · context now counting…');
    assert.match((await meter.getAttribute('aria-label')) ?? '', /The last request \(#7\) carried 131,300 tokens \(Tally's estimate 129,900\)/);
    assert.strictEqual(await page.locator('.meter-fill, .meter-mark').count(), 0, 'no share and no threshold before the count');
    assert.match((await page.textContent('[data-entry-id="u-1"]')) ?? '', /config tests fail/, 'the messages show meanwhile');
    await page.click('button.meter');
    assert.ok((await posted(page)).some((m) => m.type === 'openInspector'));
  });

  it('takes the counted meter from the next state, with the same last request figure', async () => {
    await hostSends(page, { type: 'state', state: { ...counting, counting: undefined, meter: figuresOf({ contextWindow: 200_000, maxOutputTokens: 16_000, components: { system: 0, skills: 0, tools: 0, messages: 114_080, toolResults: 0, summaries: 0 } }, { requestIndex: 7, tokens: 131_300 }) } });
    assert.strictEqual(await page.getAttribute('button.meter', 'data-level'), 'ok');
    assert.strictEqual(await page.textContent('[data-meter="last-and-now"]'), 'last request 131,300 · context now 114,080');
  });

  it('shows nothing of a counting meter whose figures are not numbers', async () => {
    await hostSends(page, { type: 'state', state: { ...counting, counting: { lastRequest: { requestIndex: 7, tokens: 'lots', estimated: 1 }, text: { lastAndNow: 'x' } } } });
    assert.strictEqual(await page.locator('button.meter').count(), 0);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the counting meter readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 700 });
      try {
        await hostSends(themed, { type: 'state', state: counting });
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `chat-counting-${theme}.png`) });
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
