import * as assert from 'assert';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { chatCompactionRecord } from '../../src/protocol/chat';
import { compactionPreview, compactionView, type InspectorState } from '../../src/protocol/inspector';
import { chatState, compaction, inspectorState } from './fixtures';
import { cspViolations, hostSends, usePage } from './harness';

const NOTE = "the model's summary had 0 of the 6 headings: local summary used";
const checked = { ...compaction, summaryNotes: [NOTE] };

const chatWithNote: ChatState = {
  ...chatState,
  busy: false,
  entries: chatState.entries.map((e) => (e.kind === 'compaction' && e.id === compaction.id ? { ...e, record: chatCompactionRecord(checked) } : e)),
};
const inspectorWithNote: InspectorState = { ...inspectorState, compactions: inspectorState.compactions.map((c) => (c.id === compaction.id ? compactionView(checked) : c)) };

describe("a summary check's note shows beside the summary, not in it (headless Chromium, host CSP)", function () {
  this.timeout(60_000);

  describe('in the chat', () => {
    const pages = usePage('chat', chatWithNote, { width: 460, height: 900 });
    let page: Page;
    beforeEach(() => (page = pages.page()));

    it("the compaction notice has a Summary check row with the note; the summary text has none", async () => {
      const notice = page.locator(`.compaction-notice[data-entry-id="${compaction.id}"]`);
      await notice.locator('summary').click();
      const row = notice.locator('dd[data-field="summary-check"]');
      assert.strictEqual(await row.textContent(), NOTE);
      assert.strictEqual(await row.evaluate((dd) => dd.previousElementSibling?.textContent), 'Summary check');
      assert.doesNotMatch((await notice.locator('pre.summary-text').textContent()) ?? '', /local summary used/);
      assert.deepStrictEqual(await cspViolations(page), []);
    });
  });

  describe("in the inspector's compaction history", () => {
    const pages = usePage('inspector', inspectorWithNote);
    let page: Page;
    beforeEach(() => (page = pages.page()));

    it('the expanded compaction has a Summary check row with the note', async () => {
      const entry = page.locator(`.compaction[data-compaction-id="${compaction.id}"]`);
      await entry.locator('summary').first().click();
      const row = entry.locator('dd[data-field="summary-check"]');
      assert.strictEqual(await row.textContent(), NOTE);
      assert.strictEqual(await row.evaluate((dd) => dd.previousElementSibling?.textContent), 'Summary check');
      assert.strictEqual(await page.locator('.compaction[data-compaction-id="cmp-0"] dd[data-field="summary-check"]').count(), 0, 'a compaction without a note has no row');
    });

    it('the compaction preview says what the check did beside the summary it proposes', async () => {
      await hostSends(page, { type: 'preview', preview: compactionPreview({ ...checked, id: 'cmp-preview', summary: 'Task: explore.' }) });
      assert.strictEqual(await page.locator('.preview-result dd[data-field="summary-check"]').textContent(), NOTE);
      assert.strictEqual(await page.locator('.preview-result vscode-text-area.summary-editor textarea').inputValue(), 'Task: explore.', 'the editable summary holds no note');
    });
  });
});
