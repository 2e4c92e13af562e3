import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { textContrast } from './contrast';
import { figuresOf, inspectorState, inspectorWindow } from './fixtures';
import { ARTIFACTS, hostSends, useHarness } from './harness';

const withPlan = { ...inspectorWindow, components: { ...inspectorWindow.components, plan: 2_400 } };

/** The contrast between an element's own background colour (a swatch, a segment) and the page behind it. */
async function fillContrast(page: Page, selector: string): Promise<number> {
  return page.locator(selector).first().evaluate((e) => {
    const lum = (color: string) => {
      const [r, g, b] = (color.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [hi, lo] = [lum(getComputedStyle(e).backgroundColor), lum(getComputedStyle(document.body).backgroundColor)].sort((a, b) => b - a);
    return (hi + 0.05) / (lo + 0.05);
  });
}

describe('inspector webview: the plan as an owner of its own (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = useHarness();

  for (const theme of ['dark', 'light', 'high-contrast'] as const) {
    it(`${theme}: the bar has a Plan segment and the legend a readable Plan row (screenshot)`, async () => {
      const page = await pages.open('inspector', { theme, width: 1100, height: 900 });
      try {
        await hostSends(page, { type: 'state', state: { ...inspectorState, figures: figuresOf(withPlan) } });
        const segment = page.locator('.stacked-bar .seg[data-segment="plan"]');
        assert.strictEqual(await segment.getAttribute('data-tokens'), '2400');
        assert.match((await segment.getAttribute('title')) ?? '', /^Plan: 2,400 tokens/);
        const row = page.locator('.legend [data-legend="plan"]');
        assert.match((await row.textContent()) ?? '', /Plan\s*2,400/);
        const ratio = await textContrast(row.locator('td').first());
        assert.ok(ratio >= 4.5, `the legend's Plan has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        const fill = await fillContrast(page, '.legend [data-legend="plan"] .swatch');
        assert.ok(fill >= 3, `the Plan swatch has a contrast of ${fill.toFixed(2)}:1 against the page in the ${theme} theme`);
        const system = await page.locator('.legend [data-legend="system"] .swatch').evaluate((e) => getComputedStyle(e).backgroundColor);
        const plan = await page.locator('.legend [data-legend="plan"] .swatch').evaluate((e) => getComputedStyle(e).backgroundColor);
        assert.notStrictEqual(plan, system, 'the plan is not drawn in the system prompt\'s colour');
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.locator('.legend').screenshot({ path: path.join(ARTIFACTS, `inspector-plan-legend-${theme}.png`) });
      } finally {
        await page.close();
      }
    });
  }
});
