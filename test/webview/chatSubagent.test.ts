import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatState, ChatToolCallView } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, cspViolations, errorsIn, hostSends, usePage } from './harness';

const SCREENSHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const TASK = 'Find where the CSV export reads its columns.\nReport the files and the function names.';

function delegate(callId: string, extra: Partial<ChatToolCallView>): ChatToolCallView {
  return { callId, name: 'delegate', arguments: JSON.stringify({ task: TASK, agent: 'explorer' }), status: 'running', ...extra };
}

const entries: ChatEntry[] = [
  { kind: 'user', id: 'u-s', text: 'Where does the CSV export get its columns? Ask three subagents.', tokens: 18 },
  {
    kind: 'assistant',
    id: 'a-s',
    text: 'Asking subagents.',
    toolCalls: [
      delegate('d-work', { subagent: { agent: 'explorer', task: TASK, phase: 'working', requests: 3, tokens: 12_400, read: 11_900, compactions: 1, lastTool: 'read_file' } }),
      delegate('d-wait', { arguments: JSON.stringify({ task: 'Check the tests of the CSV export' }), subagent: { task: 'Check the tests of the CSV export', phase: 'waiting', requests: 0, tokens: 0, read: 0, compactions: 0 } }),
      delegate('d-cap', { subagent: { agent: 'explorer', task: TASK, phase: 'ended', requests: 8, tokens: 61_020, read: 60_100, compactions: 0, lastTool: 'grep', outcome: 'stopped at its request cap' } }),
      delegate('d-ask', {
        status: 'awaiting_approval',
        arguments: JSON.stringify({ task: 'Rename the CSV column helper', agent: 'editor' }),
        subagent: { agent: 'editor', task: 'Rename the CSV column helper', phase: 'working', requests: 2, tokens: 5_300, read: 5_100, compactions: 0, lastTool: 'edit_file' },
        approval: { title: 'editor subagent: Edit `src/export/columns.ts`', detail: '- export function columnsOf()\n+ export function csvColumns()', kind: 'edit', subagent: 'editor', answerId: 'sub-e/call_edit' },
      }),
      delegate('d-done', { status: 'done', resultPreview: 'The columns come from columnsOf() in src/export/columns.ts; the writer in src/export/csv.ts only joins them.' }),
    ],
  },
];
entries.push({ kind: 'usage', id: 'usage-u-s', usage: { requests: 14, lastRequestTokens: 9_800, inputTokens: 96_300, outputTokens: 2_410, cost: 0.31, subagents: { requests: 12, inputTokens: 77_100, outputTokens: 1_870, cost: 0.25 } } });
const state: ChatState = { ...chatState, busy: true, entries };

const progressOf = (page: Page, callId: string) => page.locator(`.tool-card[data-call-id="${callId}"] .subagent-progress`).textContent();

describe('chat webview: a subagent on its delegate card (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', state, { width: 460, height: 800 });

  it('shows the agent, the task\'s first line once, and the progress line of a working subagent', async () => {
    const page = pages.page();
    const card = page.locator('.tool-card[data-call-id="d-work"]');
    assert.strictEqual(await card.locator('.subagent-agent').textContent(), 'explorer');
    // The task is the card's gist; the subagent's block does not say it a second time (the arguments, folded, hold it whole).
    const shown = (await card.locator('.tool-head, .subagent').allTextContents()).join('\n');
    assert.strictEqual(shown.split('Find where the CSV export reads its columns.').length - 1, 1, shown);
    assert.strictEqual(await progressOf(page, 'd-work'), 'working · 3 requests · read 11,900 tokens · 1 compaction · last: read_file');
    assert.strictEqual(await card.locator('[data-badge="subagent-badge"]').textContent(), 'subagent');
    assert.strictEqual(await card.locator('.tool-gist').textContent(), 'Find where the CSV export reads its columns.');
  });

  it('says "waiting for a slot" before the subagent starts, "subagent" without a named agent, and how an ended one stopped', async () => {
    const page = pages.page();
    assert.strictEqual(await progressOf(page, 'd-wait'), 'waiting for a slot');
    assert.strictEqual(await page.locator('.tool-card[data-call-id="d-wait"] .subagent-agent').textContent(), 'subagent');
    assert.strictEqual(await progressOf(page, 'd-cap'), 'stopped at its request cap · 8 requests · read 60,100 tokens');
  });

  it("shows a subagent's approval on its delegate card, naming it, and answers the subagent's own request", async () => {
    const page = pages.page();
    const card = page.locator('.tool-card[data-call-id="d-ask"]');
    assert.strictEqual(await card.locator('.approval-title').textContent(), 'editor subagent: Edit src/export/columns.ts');
    assert.strictEqual(await card.locator('.subagent-agent').textContent(), 'editor');
    await card.locator('[data-approve="sub-e/call_edit"]').click();
    const sent = (await page.evaluate(() => (window as unknown as { __posted: Array<Record<string, unknown>> }).__posted)).filter((m) => m.type === 'approval');
    assert.deepStrictEqual(sent, [{ type: 'approval', callId: 'sub-e/call_edit', approved: true }]);
  });

  it("says a turn's figures include its subagents, and their share", async () => {
    const page = pages.page();
    const line = page.locator('.turn-usage[data-entry-id="usage-u-s"]');
    assert.strictEqual(await line.locator('[data-field="requests"]').textContent(), '14 requests, 96,300 in');
    assert.strictEqual(await line.locator('[data-field="subagents"]').textContent(), 'incl. subagents: 12 requests, 77,100 in, 1,870 out, $0.25');
  });

    it('keeps the report on the stored card, titled as a subagent, with no progress line', async () => {
    const page = pages.page();
    const card = page.locator('.tool-card[data-call-id="d-done"]');
    assert.strictEqual(await card.locator('.subagent').count(), 0);
    assert.strictEqual(await card.locator('[data-badge="subagent-badge"]').textContent(), 'subagent');
    assert.match((await card.locator('.tool-result-text').textContent()) ?? '', /columnsOf\(\) in src\/export\/columns\.ts/);
  });

  it('updates the progress line in place as the host sends new figures', async () => {
    const page = pages.page();
    const next = entries.map((e) => (e.kind === 'assistant' ? { ...e, toolCalls: e.toolCalls.map((c) => (c.callId === 'd-wait' ? { ...c, subagent: { ...c.subagent!, phase: 'working' as const, requests: 1, tokens: 2_100, read: 2_000 } } : c)) } : e));
    await hostSends(page, { type: 'state', state: { ...state, entries: next } });
    assert.strictEqual(await progressOf(page, 'd-wait'), 'working · 1 request · read 2,000 tokens');
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the subagent cards readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 1000 });
      try {
        await hostSends(themed, { type: 'state', state });
        await themed.locator('.tool-card[data-call-id="d-done"] .tool-result-text').waitFor();
        mkdirSync(SCREENSHOTS, { recursive: true });
        await themed.screenshot({ path: path.join(SCREENSHOTS, `subagent-card-${theme}.png`), fullPage: true });
        for (const line of ['d-work', 'd-cap']) {
          const ratio = await textContrast(themed.locator(`.tool-card[data-call-id="${line}"] .subagent-progress`));
          assert.ok(ratio >= 4.5, `the ${line} progress line is readable (contrast ${ratio.toFixed(2)})`);
        }
        assert.deepStrictEqual(await cspViolations(themed), []);
        assert.deepStrictEqual(errorsIn(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
