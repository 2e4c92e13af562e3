import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import { sparedFigures, sparedWords, SPARED_DEFINITION } from '../../src/core/agent/subagents/sparedFigures';
import type { InspectorState } from '../../src/protocol/inspector';
import type { InspectorSubagents } from '../../src/protocol/inspectorSubagents';
import type { RequestItem } from '../../src/protocol/records';
import { textContrast } from './contrast';
import { inspectorState, requestItems } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, hostSends, posted, usePage } from './harness';

const list = [
  { sessionId: 'sub-a', agent: 'explorer', task: 'Find where the CSV export reads its columns', callId: 'call_d1', requests: 6, read: 24_310, output: 1_020, cameBack: 412, callMessageId: 'a-d', resultMessageId: 't-d1' },
  { sessionId: 'sub-b', agent: 'explorer', task: 'Check the tests of the CSV export', callId: 'call_d2', requests: 4, read: 11_870, output: 640, cameBack: 958, callMessageId: 'a-d', resultMessageId: 't-d2' },
  { sessionId: 'sub-c', agent: 'general', task: 'List the callers of writeCsv', callId: 'call_d3', requests: 2, read: 4_990, output: 210, cameBack: 731, callMessageId: 'a-d', resultMessageId: 't-d3' },
];
const spared = sparedFigures(list);
const subagents: InspectorSubagents = {
  list,
  spared,
  total: { requests: 6 + spared.requests, inputTokens: 612_000 + spared.read, outputTokens: 5_100 + spared.output },
  share: { requests: spared.requests, inputTokens: spared.read, outputTokens: spared.output },
};
const withSubagents: InspectorState = { ...inspectorState, subagents };

/** The request drill-down of the parent: the delegate call and two of its reports. */
const delegateItems: RequestItem[] = [
  ...requestItems.slice(0, 3),
  { messageId: 'a-d', role: 'assistant', kind: 'assistant', tokens: 180, badges: [], preview: 'Asking three subagents.' },
  { messageId: 't-d1', role: 'tool', kind: 'tool_result', toolName: 'delegate', tokens: 412, badges: [], preview: 'The columns come from columnsOf() in src/export/columns.ts' },
  { messageId: 't-d2', role: 'tool', kind: 'tool_result', toolName: 'delegate', tokens: 958, badges: [], preview: 'test/export.test.ts covers the header row only' },
];

/** The subagent's own window: its requests, its context at its end, and who it is. */
const subagentWindow: InspectorState = {
  ...inspectorState,
  session: { id: 'sub-a', title: 'explorer: Find where the CSV export reads its columns', origin: 'subagent:s-1/call_d1/explorer' },
  requests: inspectorState.requests.slice(0, 3),
  compactions: [],
  subagentOf: { agent: 'explorer', task: 'Find where the CSV export reads its columns', parentSessionId: 's-1', parentTitle: 'Fix config loader tests', depth: 1 },
};

describe('inspector webview: subagents (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('inspector', withSubagents);

  it('says what the subagents spared the main window, with the definition on hover and the totals incl. subagents', async () => {
    const page = pages.page();
    const line = page.locator('[data-spared]');
    assert.strictEqual(await line.textContent(), `${sparedWords(spared)} — spared the main window`);
    assert.strictEqual(await line.textContent(), '3 subagents read 41,170 tokens; 2,101 came back — spared the main window');
    assert.strictEqual(await line.getAttribute('title'), SPARED_DEFINITION);
    assert.strictEqual(
      await page.locator('[data-session-totals]').textContent(),
      "Session total incl. subagents: 18 requests · 653,170 input · 6,970 output tokens (subagents' share: 12 requests · 41,170 input · 1,870 output tokens)",
    );
    assert.strictEqual(await page.locator('[data-subagent-read="sub-b"]').textContent(), '4 requests · read 11,870 tokens');
    assert.strictEqual(await page.locator('[data-subagent-back="sub-b"]').textContent(), ' · 958 came back');
  });

  it('has no Subagents section for a session that started none', async () => {
    const page = pages.page();
    await hostSends(page, { type: 'state', state: inspectorState });
    assert.strictEqual(await page.locator('#subagents').isHidden(), true);
  });

  it("opens a subagent's window from its row and from its call and report in the request drill-down", async () => {
    const page = pages.page();
    await page.click('[data-open-subagent="sub-c"]');
    await page.click('.turn[data-request-index="3"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 3, items: delegateItems });
    const links = page.locator('.turn-slot [data-item-link]');
    assert.deepStrictEqual(await links.evaluateAll((els) => els.map((e) => [e.closest('li')?.getAttribute('data-message-id'), e.getAttribute('data-item-link'), e.textContent])), [
      ['a-d', 'sub-a', "Open subagent's window"],
      ['t-d1', 'sub-a', "Open subagent's window"],
      ['t-d2', 'sub-b', "Open subagent's window"],
    ]);
    await page.click('.turn-slot li[data-message-id="t-d2"] [data-item-link]');
    const sent = (await posted(page)).filter((m) => m.type === 'openSubagent');
    assert.deepStrictEqual(sent, [{ type: 'openSubagent', sessionId: 'sub-c' }, { type: 'openSubagent', sessionId: 'sub-b' }]);
  });

  it("shows a subagent's window with who it is and whose, read-only, with the way back", async () => {
    const page = pages.page();
    await page.click('.turn[data-request-index="3"]');
    await hostSends(page, { type: 'state', state: subagentWindow });
    await clearPosted(page);
    const banner = page.locator('[data-subagent-banner]');
    assert.strictEqual(await banner.locator('.subagent-title').textContent(), 'Subagentexplorer·taskFind where the CSV export reads its columns·of Fix config loader tests');
    assert.strictEqual(await page.locator('#preview').isHidden(), true, 'no compaction of a closed subagent');
    assert.strictEqual(await page.locator('#next-title').textContent(), 'Its context when it ended');
    assert.strictEqual(await page.locator('.current-slot [data-pin]').count(), 0);
    assert.strictEqual(await page.locator('.current-slot [data-open-item]').count(), 0);
    assert.strictEqual(await page.locator('.turn.selected').count(), 0, "the parent's selected request is not carried into the subagent's window");
    await page.locator('.blob[data-ref-id="res_a1"] summary').click();
    // The details element tells it opened after the click returns: wait for its request for the text.
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string; refId?: string }> }).__posted.some((m) => m.type === 'loadBlob' && m.refId === 'res_a1'));
    assert.strictEqual(await page.locator('.blob[data-ref-id="res_a1"] .blob-actions').count(), 1);
    assert.strictEqual(await page.locator('[data-open-blob]').count(), 0, 'its stored results read here, not in an editor');
    await clearPosted(page);
    await page.click('[data-action="subagent-back"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'closeSubagent' }]);
    await hostSends(page, { type: 'state', state: withSubagents });
    assert.strictEqual(await page.locator('[data-subagent-banner]').count(), 0);
    assert.strictEqual(await page.locator('#preview').isHidden(), false);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the Subagents section and a subagent's window readably in the ${theme} theme (screenshots)`, async () => {
      const themed = await pages.harness().open('inspector', { theme, height: 1400 });
      try {
        await hostSends(themed, { type: 'state', state: withSubagents });
        await themed.click('.turn[data-request-index="3"]');
        await hostSends(themed, { type: 'requestItems', requestIndex: 3, items: delegateItems });
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.locator('#subagents').screenshot({ path: path.join(ARTIFACTS, `inspector-subagents-${theme}.png`) });
        await themed.locator('.turn-slot').screenshot({ path: path.join(ARTIFACTS, `inspector-subagent-links-${theme}.png`) });
        for (const selector of ['[data-spared] strong', '[data-open-subagent="sub-a"]', '[data-subagent-read="sub-a"]', '.turn-slot [data-item-link]']) {
          const ratio = await textContrast(themed.locator(selector).first());
          assert.ok(ratio >= 4.5, `${selector} is readable (contrast ${ratio.toFixed(2)})`);
        }
        await hostSends(themed, { type: 'state', state: subagentWindow });
        await themed.evaluate(() => window.scrollTo(0, 0));
        await themed.screenshot({ path: path.join(ARTIFACTS, `inspector-subagent-window-${theme}.png`) });
        for (const selector of ['[data-action="subagent-back"]', '.subagent-name', '.subagent-task']) {
          const ratio = await textContrast(themed.locator(selector).first());
          assert.ok(ratio >= 4.5, `${selector} is readable (contrast ${ratio.toFixed(2)})`);
        }
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
