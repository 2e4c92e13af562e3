import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import type { ChatCommandItem } from '../../src/protocol/commands';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, hostSends, posted, usePage } from './harness';

const SCREENSHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const state: ChatState = { ...chatState, busy: false, entries: [] };
const commands: ChatCommandItem[] = [
  { name: 'compact', kind: 'built-in', description: 'Compact the context now; text after it says what to keep', argumentHint: '[focus]', source: 'built in' },
  { name: 'review', kind: 'workspace', description: 'Review the change against our checklist', argumentHint: 'files', source: '.tally/commands/review.md', tokens: 1_284, attaches: 2, note: 'overrides ~/.tally/commands/review.md' },
  { name: 'plan', kind: 'prompts', description: 'Plan a change before editing', source: '.github/prompts/plan.prompt.md', tokens: 312, note: "asks for model GPT-4o (the session's are kept)" },
  { name: 'broken', kind: 'user', source: '~/.tally/commands/broken.md', unavailable: 'its front matter starts with --- but has no closing --- line' },
  { name: 'fix', kind: 'user', description: 'Fix the failing test', source: '~/.tally/commands/fix.md', tokens: 9 },
  { name: 'mcp.docs.search', kind: 'mcp', description: 'Search the docs', argumentHint: 'query [limit]', source: 'MCP server docs' },
];

const textarea = (page: Page) => page.locator('vscode-text-area.composer-input textarea');

async function typeInComposer(page: Page, text: string): Promise<void> {
  await textarea(page).click();
  await page.keyboard.type(text);
}

async function lastQuery(page: Page): Promise<Record<string, unknown>> {
  await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'commandQuery'));
  const queries = (await posted(page)).filter((m) => m.type === 'commandQuery');
  return queries[queries.length - 1];
}

describe('chat webview: the / command list (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', state, { width: 480, height: 760 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('typing / asks the host for the commands and shows each with its description and token cost; a broken file is shown, not offered', async () => {
    await typeInComposer(page, '/');
    const query = await lastQuery(page);
    assert.strictEqual(query.query, '');
    await hostSends(page, { type: 'commandList', queryId: query.queryId, items: commands });
    const rows = page.locator('.command-list .command-option');
    assert.strictEqual(await rows.count(), commands.length);
    const review = page.locator('.command-option[data-command="review"]');
    assert.match((await review.textContent()) ?? '', /\/review.*files.*1,284 tokens \+ 2 files.*workspace.*Review the change against our checklist/);
    assert.strictEqual(await review.getAttribute('data-tokens'), '1284');
    assert.match((await page.locator('.command-option[data-command="compact"]').textContent()) ?? '', /sends no message/);
    assert.match((await page.locator('.command-option[data-command="mcp.docs.search"]').textContent()) ?? '', /cost shown when it runs/);
    const broken = page.locator('.command-option[data-command="broken"]');
    assert.strictEqual(await broken.getAttribute('aria-disabled'), 'true');
    assert.match((await broken.textContent()) ?? '', /cannot run: its front matter/);
  });

  it('arrows skip what cannot run; Enter puts /name in the input (it does not send) and the rest of the message stays', async () => {
    await typeInComposer(page, '/');
    await hostSends(page, { type: 'commandList', queryId: (await lastQuery(page)).queryId, items: commands });
    assert.strictEqual(await page.locator('.command-option.active').getAttribute('data-command'), 'compact');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.strictEqual(await page.locator('.command-option.active').getAttribute('data-command'), 'fix', 'the broken command is skipped');
    await page.keyboard.press('ArrowUp');
    await clearPosted(page);
    await page.keyboard.press('Enter');
    assert.strictEqual(await textarea(page).inputValue(), '/plan ');
    assert.strictEqual((await posted(page)).filter((m) => m.type === 'send').length, 0, 'Enter chose a command; it did not send');
    assert.ok(await page.locator('.command-list').isHidden());
    await page.keyboard.type('the parser');
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'send'), [{ type: 'send', text: '/plan the parser' }]);
  });

  it('Enter on a command typed in full sends it, though the list still shows it', async () => {
    await typeInComposer(page, '/compact');
    await hostSends(page, { type: 'commandList', queryId: (await lastQuery(page)).queryId, items: [commands[0]] });
    assert.strictEqual(await page.locator('.command-option.active').getAttribute('data-command'), 'compact');
    await clearPosted(page);
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'send'), [{ type: 'send', text: '/compact' }]);
    assert.ok(await page.locator('.command-list').isHidden());
  });

  it('the list follows what is typed, answers to older queries are ignored, and Escape or a space closes it', async () => {
    await typeInComposer(page, '/re');
    const query = await lastQuery(page);
    assert.strictEqual(query.query, 're');
    await hostSends(page, { type: 'commandList', queryId: Number(query.queryId) - 1, items: commands });
    assert.ok(await page.locator('.command-list').isHidden(), 'an older answer is not shown');
    await hostSends(page, { type: 'commandList', queryId: query.queryId, items: [commands[1]] });
    assert.strictEqual(await page.locator('.command-option').count(), 1);
    await page.keyboard.press('Escape');
    assert.ok(await page.locator('.command-list').isHidden());
    await page.keyboard.type('view ');
    assert.ok(await page.locator('.command-list').isHidden());
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'send'), [{ type: 'send', text: '/review ' }]);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the / list with costs readably in the ${theme} theme (screenshots)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 480, height: 760 });
      try {
        await hostSends(themed, { type: 'state', state });
        await typeInComposer(themed, '/');
        await hostSends(themed, { type: 'commandList', queryId: (await lastQuery(themed)).queryId, items: commands });
        await themed.keyboard.press('ArrowDown');
        mkdirSync(SCREENSHOTS, { recursive: true });
        await themed.screenshot({ path: path.join(SCREENSHOTS, `slash-commands-${theme}.png`), fullPage: true });
        for (const selector of ['.command-option.active .command-option-name', '.command-option.active .command-option-cost', '.command-option:not(.active) .command-option-name', '.command-option:not(.active):not(.unavailable) .command-option-cost', '.command-option:not(.active) .command-option-description']) {
          const ratio = await textContrast(themed.locator(selector).first());
          assert.ok(ratio >= 4.5, `${selector}: contrast ${ratio.toFixed(2)} in ${theme}`);
        }
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
