import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState, figuresOf } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, errorsIn, hostSends, posted, useHarness } from './harness';

const SCREENSHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const HELD = 'The context is 98% full, at the limit where a request must be compacted first, and automatic compaction is off (tally.compaction.auto). Compact now, or send anyway and let the provider refuse it if it is too long.';

/** A turn held at the hard block with automatic compaction off: the chat asks, it never compacts silently. */
function state(): ChatState {
  return {
    ...chatState,
    busy: false,
    // 180,400 of the 184,000-token effective window: the meter and the notice both say 98%.
    meter: figuresOf({ contextWindow: 200_000, maxOutputTokens: 16_000, components: { system: 2_080, skills: 0, tools: 0, messages: 178_320, toolResults: 0, summaries: 0 } }),
    entries: [
      { kind: 'user', id: 'u-1', text: 'Read the whole build log and tell me why the release job failed.' },
      { kind: 'assistant', id: 'a-1', text: 'The log is long; reading it in slices.', toolCalls: [] },
      { kind: 'user', id: 'u-2', text: 'Now compare it with yesterday’s log.' },
      { kind: 'notice', id: 'turn-info-0', text: HELD, level: 'info', action: 'compact' },
    ],
  };
}

describe('chat: a turn held at the hard block (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = useHarness();
  before(() => mkdirSync(SCREENSHOTS, { recursive: true }));

  for (const theme of ['dark', 'light'] as const) {
    it(`says why and offers Compact now and Send anyway, each posting its own intent (${theme}, screenshot)`, async () => {
      const page: Page = await pages.open('chat', { theme, width: 460, height: 700 });
      try {
        await hostSends(page, { type: 'state', state: state() });
        const notice = page.locator('.entry[data-entry-id="turn-info-0"], .notice').filter({ hasText: 'automatic compaction is off' }).first();
        assert.match((await notice.textContent()) ?? '', /98% full.*automatic compaction is off/);
        assert.match((await page.locator('.meter-slot').textContent()) ?? '', /98%/, 'the meter shows the same share as the notice');
        const compact = page.locator('[data-action="compact-now"]');
        const anyway = page.locator('[data-action="send-anyway"]');
        assert.equal(await compact.textContent(), 'Compact now');
        assert.equal(await anyway.textContent(), 'Send anyway');
        assert.ok(await compact.isVisible() && await anyway.isVisible());
        assert.ok((await textContrast(anyway)) >= 4.5, 'Send anyway is readable');
        await page.screenshot({ path: path.join(SCREENSHOTS, `compaction-held-${theme}.png`), fullPage: true });
        await clearPosted(page);
        await compact.click();
        await anyway.click();
        assert.deepStrictEqual(await posted(page), [{ type: 'compactAndContinue' }, { type: 'sendAnyway' }]);
        assert.deepStrictEqual(await cspViolations(page), []);
        assert.deepStrictEqual(errorsIn(page), []);
      } finally {
        await page.close();
      }
    });
  }
});
