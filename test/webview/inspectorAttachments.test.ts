import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import { requestItemOf } from '../../src/core/compaction/requestItems';
import { attachmentMessage } from '../../src/core/model/factories';
import type { RequestItem } from '../../src/core/model/records';
import type { InspectorState } from '../../src/protocol/inspector';
import { currentItems, inspectorState } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, hostSends, posted, usePage } from './harness';

const SCREENSHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const item = (label: string, tokens: number, meta = {}): RequestItem => ({
  ...requestItemOf({ ...attachmentMessage({ kind: 'file', label, path: label }, `[Attached file ${label}]\nexport function loadConfig() {}`, { meta }), id: `att-${label}` }, tokens),
  section: 'conversation',
});
const attachments = [item('src/config/loader.ts', 1_204), item('logs/test.log', 812, { offloadRef: 'res_log', truncated: { originalBytes: 90_000, originalLines: 12_400, keptBytes: 1_000, omittedLines: 12_340, omittedBytes: 89_000 } })];
const userAt = currentItems.findIndex((i) => i.kind === 'user');
const state: InspectorState = { ...inspectorState, current: [...currentItems.slice(0, userAt), ...attachments, ...currentItems.slice(userAt)] };

describe('inspector: attachment items (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const ui = usePage('inspector', state, { width: 900, height: 900 });

  it('lists each attachment as an item of its own, before the message it came with, named by what was attached, with its tokens and a pin', async () => {
    const page = ui.page();
    const rows = page.locator('[data-list="current"] li.item[data-kind="attachment"]');
    assert.strictEqual(await rows.count(), 2);
    assert.match((await rows.nth(0).locator('.item-kind').textContent()) ?? '', /^Attached: src\/config\/loader\.ts$/);
    assert.strictEqual(await rows.nth(0).getAttribute('data-tokens'), '1204');
    assert.match((await rows.nth(1).textContent()) ?? '', /offloaded/);
    const order = await page.locator('[data-list="current"] li.item').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    assert.strictEqual(order.indexOf('attachment') + 2, order.indexOf('user'), 'right before the user message');
    await clearPosted(page);
    await rows.nth(0).locator('vscode-button[data-pin]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'pin', messageId: 'att-src/config/loader.ts', pinned: true }]);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`shows attachment items readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await ui.harness().open('inspector', { theme, width: 900, height: 900 });
      try {
        await hostSends(themed, { type: 'state', state });
        const row = themed.locator('[data-list="current"] li.item[data-kind="attachment"]').first();
        await row.scrollIntoViewIfNeeded();
        mkdirSync(SCREENSHOTS, { recursive: true });
        await themed.screenshot({ path: path.join(SCREENSHOTS, `attach-inspector-${theme}.png`), fullPage: false });
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
