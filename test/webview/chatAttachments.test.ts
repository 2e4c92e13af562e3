import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { AttachCompletion, ChatAttachmentView, ComposerCost } from '../../src/protocol/attachments';
import type { ChatState } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, hostSends, posted, usePage } from './harness';

const SCREENSHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const state: ChatState = {
  ...chatState,
  busy: false,
  entries: [
    {
      kind: 'user',
      id: 'u-a',
      text: 'Why does the loader fail on relative paths?',
      tokens: 11,
      attachments: [
        { id: 'att-1', kind: 'file', label: 'src/config/loader.ts', tokens: 1_204 },
        { id: 'att-2', kind: 'file', label: 'logs/test.log', tokens: 812, stored: { lines: 12_400, sentLines: 60 } },
      ],
    },
    { kind: 'assistant', id: 'a-a', text: 'The loader resolves against the process folder, not the config file.', toolCalls: [], tokens: 40 },
  ],
};
const completions: AttachCompletion[] = [
  { target: { kind: 'selection' }, label: 'Selection', detail: 'loader.ts:12-40' },
  { target: { kind: 'problems', path: 'src/config/loader.ts' }, label: 'Problems in loader.ts', detail: '2 problems' },
  { target: { kind: 'diff' }, label: 'Working tree changes', detail: 'git diff' },
  { target: { kind: 'terminal' }, label: 'Terminal output', unavailable: 'no command has finished in a terminal with shell integration since Tally started' },
  { target: { kind: 'folder', path: 'src/config' }, label: 'src/config/', detail: 'folder listing' },
  { target: { kind: 'file', path: 'src/config/loader.ts' }, label: 'src/config/loader.ts' },
];
const chips: ChatAttachmentView[] = [
  { id: 'c-1', kind: 'file', label: 'src/config/loader.ts', tokens: 1_204 },
  { id: 'c-2', kind: 'selection', label: 'loader.ts:12-40', tokens: 318 },
  { id: 'c-3', kind: 'file', label: 'src/config/paths.ts', tokens: 41, inContext: true },
  { id: 'c-4', kind: 'file', label: 'logs/test.log', tokens: 812, stored: { lines: 12_400, sentLines: 60 } },
  { id: 'c-5', kind: 'file', label: 'assets/logo.png', error: 'assets/logo.png is a binary file (18,402 bytes); only text can be attached.' },
];
const cost: ComposerCost = { text: 'next request 69,600 tokens (this message 2,421) → 58% of the window', tokens: 2_421, requestTokens: 69_600, shareAfter: 0.58 };

async function typeInComposer(page: Page, text: string): Promise<void> {
  await page.locator('vscode-text-area.composer-input textarea').click();
  await page.keyboard.type(text);
}

/** Waits for the webview to post a message of `type` (posts follow keystrokes after a frame or a debounce). */
async function postedOf(page: Page, type: string): Promise<Array<Record<string, unknown>>> {
  await page.waitForFunction((t) => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === t), type);
  return (await posted(page)).filter((m) => m.type === type);
}

describe('chat webview: attachments (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', state, { width: 480, height: 760 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('typing # asks the host for completions and shows them; Enter attaches the active line and takes the #word out of the message', async () => {
    await typeInComposer(page, 'look at #load');
    const queries = await postedOf(page, 'attachQuery');
    const last = queries[queries.length - 1];
    assert.strictEqual(last.query, 'load');
    await hostSends(page, { type: 'completions', queryId: last.queryId, items: completions });
    const rows = page.locator('.attach-list .attach-option');
    assert.strictEqual(await rows.count(), completions.length);
    assert.match((await rows.nth(3).textContent()) ?? '', /not available: no command has finished/);
    assert.strictEqual(await rows.nth(3).getAttribute('aria-disabled'), 'true');
    await page.keyboard.press('ArrowDown');
    await clearPosted(page);
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'attach'), [{ type: 'attach', target: { kind: 'problems', path: 'src/config/loader.ts' } }]);
    assert.strictEqual((await posted(page)).filter((m) => m.type === 'send').length, 0, 'Enter chose a line; it did not send');
    assert.strictEqual(await page.locator('vscode-text-area.composer-input textarea').inputValue(), 'look at ');
    assert.strictEqual(await page.locator('.attach-list').isVisible(), false);
  });

  it('an answer to an older query is not shown, and a line that is not available cannot be chosen', async () => {
    await typeInComposer(page, '@');
    const [first] = await postedOf(page, 'attachQuery');
    await page.keyboard.type('src');
    await hostSends(page, { type: 'completions', queryId: first.queryId, items: completions });
    assert.strictEqual(await page.locator('.attach-list').isVisible(), false, 'a stale answer is dropped');
    const queries = await postedOf(page, 'attachQuery');
    await hostSends(page, { type: 'completions', queryId: queries[queries.length - 1].queryId, items: completions });
    await clearPosted(page);
    await page.locator('.attach-option[data-kind="terminal"]').dispatchEvent('mousedown');
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'attach'), []);
  });

  it('shows each chip with its label and tokens (and why one cannot be sent), the cost line before Enter, and opens or removes a chip', async () => {
    await hostSends(page, { type: 'composer', attachments: chips, cost });
    const chip = (id: string) => page.locator(`.composer .attach-chip[data-id="${id}"]`);
    assert.strictEqual((await chip('c-1').textContent())?.replace(/\s+/g, ' '), 'src/config/loader.ts1,204 tokens×');
    assert.strictEqual(await chip('c-1').getAttribute('data-tokens'), '1204');
    assert.match((await chip('c-3').textContent()) ?? '', /41 tokens · already in context/);
    assert.match((await chip('c-4').textContent()) ?? '', /812 tokens · stored, 60 of 12,400 lines sent/);
    assert.match((await chip('c-5').textContent()) ?? '', /binary file \(18,402 bytes\); only text can be attached/);
    assert.strictEqual((await page.locator('.composer-cost').textContent())?.trim(), 'next request 69,600 tokens (this message 2,421) → 58% of the window');
    await clearPosted(page);
    await chip('c-2').locator('.attach-chip-open').click();
    await chip('c-4').locator('.attach-chip-remove').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'openAttachment', id: 'c-2' }, { type: 'removeAttachment', id: 'c-4' }]);
    await hostSends(page, { type: 'composer', attachments: chips, cost: { ...cost, note: 'a compaction will run first' } });
    assert.strictEqual((await page.locator('.composer-cost').textContent())?.trim(), 'next request 69,600 tokens (this message 2,421) → 58% of the window · a compaction will run first');
  });

  it('a list with nothing that can be attached does not take Enter: the message is sent', async () => {
    await typeInComposer(page, 'see #term');
    const queries = await postedOf(page, 'attachQuery');
    await hostSends(page, { type: 'completions', queryId: queries[queries.length - 1].queryId, items: completions.filter((c) => c.unavailable) });
    assert.strictEqual(await page.locator('.attach-list').isVisible(), true, 'the reason is shown');
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'send'), [{ type: 'send', text: 'see #term' }]);
  });

  it('puts the text of a send that failed back in the input', async () => {
    await hostSends(page, { type: 'composer', attachments: chips.slice(4), restore: 'Explain the logo' });
    assert.strictEqual(await page.locator('vscode-text-area.composer-input textarea').inputValue(), 'Explain the logo');
  });

  it('shows what was sent with a message as chips on it, with the tokens each item carried', async () => {
    const sent = page.locator('[data-entry-id="u-a"] .attach-chip');
    assert.strictEqual(await sent.count(), 2);
    assert.strictEqual((await sent.nth(0).textContent())?.replace(/\s+/g, ' '), 'src/config/loader.ts1,204 tokens');
    assert.match((await sent.nth(1).textContent()) ?? '', /812 tokens · stored, 60 of 12,400 lines sent/);
  });

  it('posts the addresses of files dropped on the chat for the host to check', async () => {
    await clearPosted(page);
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text/uri-list', '# a comment\r\nfile:///ws/src/a.ts\r\nfile:///ws/src/b.ts');
      document.getElementById('app')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    assert.deepStrictEqual(await posted(page), [{ type: 'dropUris', uris: ['file:///ws/src/a.ts', 'file:///ws/src/b.ts'] }]);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the completion list, the chips and the cost line readably in the ${theme} theme (screenshots)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 480, height: 760 });
      try {
        await hostSends(themed, { type: 'state', state });
        await hostSends(themed, { type: 'composer', attachments: chips, cost: { ...cost, note: 'a compaction will run first' } });
        await typeInComposer(themed, 'Why does it fail? #');
        const queries = await postedOf(themed, 'attachQuery');
        await hostSends(themed, { type: 'completions', queryId: queries[queries.length - 1].queryId, items: completions });
        mkdirSync(SCREENSHOTS, { recursive: true });
        await themed.screenshot({ path: path.join(SCREENSHOTS, `attach-composer-${theme}.png`), fullPage: true });
        for (const selector of ['.composer .attach-chip[data-id="c-1"] .attach-chip-label', '.composer .attach-chip[data-id="c-1"] .attach-chip-detail', '.composer-cost .cost-text', '.attach-option.active .attach-option-label', '.attach-option:not(.active) .attach-option-detail']) {
          const ratio = await textContrast(themed.locator(selector).first());
          assert.ok(ratio >= 4.5, `${selector}: contrast ${ratio.toFixed(2)} in ${theme}`);
        }
        assert.ok((await textContrast(themed.locator('.composer .attach-chip-error .attach-chip-detail'))) >= 3, 'the error is readable');
        await themed.keyboard.press('Escape');
        await themed.screenshot({ path: path.join(SCREENSHOTS, `attach-sent-${theme}.png`), fullPage: true });
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
