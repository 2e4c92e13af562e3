import type { Page } from 'playwright-core';
import { findFrame, runCommand } from './browser';
import { screenshotPath } from './screenshots';

const number = (text: string | null | undefined) => Number((text ?? '').replace(/[^\d]/g, ''));

/**
 * A new session's first message, before it is sent: the cost line under the input counts the
 * whole request (the system prompt and the tools too, not only the typed words). Then Configure
 * Tools opened over the inspector: the picker's figure is the inspector's Tools figure. A
 * screenshot of each. It leaves the typed text unsent and the picker closed.
 */
export async function firstMessageAndToolFigures(page: Page, theme: string, check: (name: string, body: () => Promise<void>) => Promise<void>): Promise<void> {
  await check(`${theme}: the cost line on a new session's first message counts the system prompt and the tools`, async () => {
    await runCommand(page, 'Tally: New Session');
    await runCommand(page, 'Tally: Focus on Chat View');
    const chat = await findFrame(page, '.composer-input', 60_000);
    await chat.locator('.composer-input textarea').fill('Read README.md and say what this project is for.');
    const line = chat.locator('.composer-cost .cost-text', { hasText: /next request [\d,]+ tokens/ });
    await line.waitFor({ timeout: 30_000 });
    const text = (await line.textContent()) ?? '';
    const request = number(/next request ([\d,]+) tokens/.exec(text)?.[1]);
    if (request < 500) throw new Error(`the cost line counts only the typed words: "${text}"`);
    await page.waitForTimeout(500);
    await page.screenshot({ path: screenshotPath(`cost-line-first-message-${theme}.png`) });
  });
  await check(`${theme}: Configure Tools over the inspector: the picker's figure is the inspector's Tools figure`, async () => {
    await runCommand(page, 'Tally: Open Context Inspector');
    const inspector = await findFrame(page, '[data-legend="tools"]', 60_000);
    const shown = number(await inspector.locator('[data-legend="tools"] td.num').first().textContent());
    if (!shown) throw new Error('the inspector shows no Tools figure');
    // Wide enough that the picker, centred at the top, leaves the inspector's legend in sight beside it.
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 2200, height: viewport?.height ?? 900 });
    try {
      await runCommand(page, 'Tally: Configure Tools…');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'read_file' }).first().waitFor({ timeout: 30_000 });
      const placeholder = (await page.locator('.quick-input-widget input').getAttribute('placeholder')) ?? '';
      const offered = number(/([\d,]+) tokens now/.exec(placeholder)?.[1]);
      if (offered !== shown) throw new Error(`Configure Tools says "${placeholder}", the inspector's Tools figure is ${shown.toLocaleString('en-US')}`);
      // One tool's figure too: its row in the picker and its row in the inspector's tokens by tool.
      const pickerRow = (await page.locator('.quick-input-list .monaco-list-row', { hasText: 'read_file' }).first().textContent()) ?? '';
      const pickerTool = number(/([\d,]+) tokens ·/.exec(pickerRow)?.[1]);
      const inspectorRow = inspector.locator('.tool-slot [data-tool="read_file"] td.num').first();
      const inspectorTool = (await inspectorRow.count()) ? number(await inspectorRow.textContent({ timeout: 5_000 })) : undefined;
      if (!pickerTool || pickerTool !== inspectorTool) throw new Error(`Configure Tools says read_file costs "${pickerRow}", the inspector's tokens by tool ${inspectorTool ?? 'has no read_file row'}`);
      // And one group's: the built-in tools' figure beside the picker's group name and in the inspector's group row.
      const listed = (await page.locator('.quick-input-list').textContent()) ?? '';
      const pickerGroup = number(/built-in · \d+ tools?, ([\d,]+) tokens offered/.exec(listed)?.[1]);
      const inspectorGroup = inspector.locator('.tool-slot [data-tool-source="built-in"] [data-figure="offered"]');
      const inspectorGroupFigure = (await inspectorGroup.count()) ? number(await inspectorGroup.textContent({ timeout: 5_000 })) : undefined;
      if (!pickerGroup || pickerGroup !== inspectorGroupFigure) throw new Error(`Configure Tools's built-in group says ${pickerGroup} tokens offered, the inspector's built-in group ${inspectorGroupFigure ?? 'is missing'}`);
      await page.waitForTimeout(500);
      const legend = await inspector.locator('[data-legend="tools"] td.num').first().boundingBox();
      const picker = await page.locator('.quick-input-widget').boundingBox();
      if (legend && picker && legend.x + legend.width > picker.x && legend.y < picker.y + picker.height) throw new Error('the picker covers the inspector\'s Tools figure');
      await page.screenshot({ path: screenshotPath(`tool-figure-${theme}.png`) });
      await page.keyboard.press('Escape');
    } finally {
      // A failed check may leave the picker open: close it, so closing the editors cannot hide the failure.
      await page.keyboard.press('Escape').catch(() => undefined);
      if (viewport) await page.setViewportSize(viewport);
      // The next check finds the demo's inspector by its bar: this session's inspector must not be the one found.
      await runCommand(page, 'View: Close All Editors').catch(() => undefined);
    }
  });
}
