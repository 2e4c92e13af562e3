import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatState, ChatToolCallView } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState, figuresOf, inspectorState, inspectorWindow, preview } from './fixtures';
import { ARTIFACTS, cspViolations, errorsIn, hostSends, useHarness } from './harness';
import type { ThemeName } from './themes';

const SHOTS = path.join(ARTIFACTS, '..', 'screenshots');

const stored: ChatToolCallView = {
  callId: 'c-stored',
  name: 'run_command',
  arguments: JSON.stringify({ command: 'npm test' }),
  status: 'done',
  resultPreview: '> jest\nPASS test/a.test.ts\n…\nTests: 412 passed',
  truncated: true,
  offloadRef: 'r1764130000000123456789012345',
  stored: { lines: 1_204, bytes: 48_213 },
};
const asking: ChatToolCallView = { callId: 'c-ask', name: 'run_command', arguments: JSON.stringify({ command: 'ls -la' }), status: 'awaiting_approval', approval: { title: 'Run `ls -la` in .', detail: 'ls -la', kind: 'command' } };

/** Text must read at 4.5:1 against what is behind it, in every theme. */
async function readable(page: Page, selector: string, what: string, theme: ThemeName): Promise<void> {
  const ratio = await textContrast(page.locator(selector).first());
  assert.ok(ratio >= 4.5, `${what} has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
}

describe('the surfaces this change touches read well in dark, light and high contrast (headless Chromium, screenshots)', function () {
  this.timeout(60_000);
  const pages = useHarness();
  before(() => mkdirSync(SHOTS, { recursive: true }));

  for (const theme of ['dark', 'light', 'high-contrast'] as const) {
    it(`${theme}: the empty chat without a model, a stored output and a command title`, async () => {
      const page = await pages.open('chat', { theme, width: 460, height: 520 });
      try {
        const { model: _model, ...noModel } = chatState;
        await hostSends(page, { type: 'state', state: { ...noModel, busy: false, entries: [], sessionId: 's-empty' } satisfies ChatState });
        await readable(page, '.empty-hint p', 'the empty chat’s words', theme);
        await page.screenshot({ path: path.join(SHOTS, `webview-chat-empty-${theme}.png`) });

        await page.setViewportSize({ width: 460, height: 760 });
        await hostSends(page, { type: 'state', state: { ...chatState, busy: true, entries: [{ kind: 'assistant', id: 'a-1', text: 'Running the tests.', toolCalls: [stored, asking], tokens: 1 }] } });
        await readable(page, '.stored-result .stored-text', 'the "lines stored" line', theme);
        await readable(page, '.stored-result .link-button', 'the Open link', theme);
        await readable(page, '.approval-code', 'the command in the title', theme);
        assert.strictEqual(await page.textContent('[data-entry-id="a-1"] .entry-tokens'), '1 token');
        await page.screenshot({ path: path.join(SHOTS, `webview-chat-tools-${theme}.png`), fullPage: true });
        assert.deepStrictEqual(await cspViolations(page), []);
        assert.deepStrictEqual(errorsIn(page), []);
      } finally {
        await page.close();
      }
    });

    it(`${theme}: the bar drawn to scale, the figures in words and a stale compaction preview`, async () => {
      const page = await pages.open('inspector', { theme, width: 1100, height: 1400 });
      try {
        const small = { ...inspectorWindow, components: { ...inspectorWindow.components, skills: 0, summaries: 0 } };
        const state = { ...inspectorState, figures: figuresOf(small) };
        await hostSends(page, { type: 'state', state });
        await hostSends(page, { type: 'preview', preview });
        const latest = state.requests[state.requests.length - 1];
        await hostSends(page, { type: 'state', state: { ...state, requests: [...state.requests, { ...latest, requestIndex: latest.requestIndex + 1 }] } });
        await readable(page, '.stale-line span', 'the out-of-date line', theme);
        await readable(page, '[data-fact="calibration"] .fact-value', 'the estimate in words', theme);
        assert.strictEqual(await page.locator('.stacked-bar .seg[data-segment="skills"]').count(), 0, 'no segment for 0 tokens');
        await page.screenshot({ path: path.join(SHOTS, `webview-inspector-${theme}.png`), fullPage: true });
        assert.deepStrictEqual(await cspViolations(page), []);
        assert.deepStrictEqual(errorsIn(page), []);
      } finally {
        await page.close();
      }
    });
  }
});
