import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { InspectorState } from '../../src/protocol/inspector';
import type { RequestItem } from '../../src/protocol/records';
import { textContrast } from './contrast';
import { currentItems, figuresOf, inspectorState } from './fixtures';
import { ARTIFACTS, errorsIn, hostSends, useHarness } from './harness';

const HOOK = 'npx eslint --format compact .';
const hookItem: RequestItem = { messageId: `hook:PostToolUse:${HOOK}`, role: 'system', kind: 'hook', tokens: 1_500, badges: ['dynamic'], preview: 'Added by a PostToolUse hook…', section: 'dynamic', label: 'PostToolUse hook', source: HOOK, textHash: 'h1' };
const components = { system: 3_200, skills: 1_800, tools: 9_400, hooks: 1_500, messages: 28_500, toolResults: 61_200, summaries: 4_100 };
const state: InspectorState = { ...inspectorState, figures: figuresOf({ contextWindow: 200_000, maxOutputTokens: 16_000, components }), current: [...currentItems, hookItem] };

describe("inspector webview: what hooks added is an owner of its own", function () {
  this.timeout(60_000);
  const pages = useHarness();

  it('has its own segment in the stacked bar and its own legend row; the drill-down names the hook as the source', async () => {
    const page = await pages.open('inspector');
    await hostSends(page, { type: 'state', state });
    const seg = page.locator('.stacked-bar .seg[data-segment="hooks"]');
    assert.strictEqual(await seg.getAttribute('data-tokens'), '1500');
    assert.match((await seg.getAttribute('title')) ?? '', /^Hooks: 1,500 tokens/);
    const system = page.locator('.stacked-bar .seg[data-segment="system"]');
    assert.strictEqual(await system.getAttribute('data-tokens'), '3200', 'not folded into System');
    assert.match((await page.textContent('.legend [data-legend="hooks"]')) ?? '', /Hooks\s*1,500/);
    const row = page.locator(`.current-slot li[data-kind="hook"]`);
    assert.match((await row.textContent()) ?? '', new RegExp(`PostToolUse hook · ${HOOK.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.strictEqual(await row.getAttribute('data-tokens'), '1500', 'the drill-down and the bar say the same number');
    assert.deepStrictEqual(errorsIn(page), []);
  });

  for (const theme of ['dark', 'light', 'high-contrast'] as const) {
    it(`the hooks segment stands apart from its neighbours in the ${theme} theme (screenshot)`, async () => {
      const page = await pages.harness().open('inspector', { theme, width: 900, height: 700 });
      try {
        await hostSends(page, { type: 'state', state });
        const images = await page.$$eval('.stacked-bar .seg', (els) => els.map((e) => ({ name: e.getAttribute('data-segment'), image: getComputedStyle(e).backgroundImage, color: getComputedStyle(e).backgroundColor })));
        const hooks = images.find((s) => s.name === 'hooks')!;
        assert.match(hooks.image, /repeating-linear-gradient/, 'striped, unlike every solid owner');
        assert.ok(images.filter((s) => s.name !== 'hooks' && s.name !== 'reserve').every((s) => s.image === 'none'), 'the other owners are solid');
        const ratio = await textContrast(page.locator('.legend [data-legend="hooks"] td').first());
        assert.ok(ratio >= 4.5, `the legend's Hooks row reads at ${ratio.toFixed(2)}:1`);
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.locator('.stacked-bar').screenshot({ path: path.join(ARTIFACTS, `inspector-hooks-bar-${theme}.png`) });
        await page.screenshot({ path: path.join(ARTIFACTS, `inspector-hooks-${theme}.png`) });
      } finally {
        await page.close();
      }
    });
  }
});
