import * as assert from 'assert';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { clearPosted, hostSends, posted, usePage } from './harness';

const { entries: _entries, ...chrome } = { ...chatState, busy: false };

function userEntry(i: number): ChatEntry {
  return { kind: 'user', id: `u${i}`, text: `request ${i}` };
}

describe('chat webview: updates that carry only what changed (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', { ...chatState, busy: false, entries: [userEntry(0), userEntry(1)] }, { width: 460, height: 900 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('adds new entries and keeps the nodes of unchanged ones', async () => {
    await page.evaluate(() => ((document.querySelector('[data-entry-id="u0"]') as HTMLElement & { marked?: boolean }).marked = true));
    await hostSends(page, { type: 'update', state: chrome, patch: { keep: 2, tail: ['assistant:a2'], upserts: [{ kind: 'assistant', id: 'a2', text: 'Here is **the plan**.', toolCalls: [] }] } });
    assert.deepStrictEqual(await page.$$eval('[data-entry-id]', (els) => els.map((e) => e.getAttribute('data-entry-id'))), ['u0', 'u1', 'a2']);
    assert.strictEqual(await page.textContent('[data-entry-id="a2"] strong'), 'the plan');
    assert.strictEqual(await page.evaluate(() => (document.querySelector('[data-entry-id="u0"]') as HTMLElement & { marked?: boolean }).marked), true, 'an unchanged entry is not drawn again');

    // A changed entry is replaced where it stands; a dropped one disappears.
    await hostSends(page, { type: 'update', state: chrome, patch: { keep: 0, tail: ['user:u1', 'assistant:a2'], upserts: [{ kind: 'user', id: 'u1', text: 'request 1, edited' }] } });
    assert.deepStrictEqual(await page.$$eval('[data-entry-id]', (els) => els.map((e) => e.getAttribute('data-entry-id'))), ['u1', 'a2']);
    assert.match((await page.textContent('[data-entry-id="u1"]')) ?? '', /request 1, edited/);
  });

  it('asks for the whole state when an update refers to an entry it does not hold', async () => {
    await clearPosted(page);
    await hostSends(page, { type: 'update', state: chrome, patch: { keep: 0, tail: ['user:u0', 'user:never-sent'], upserts: [] } });
    assert.deepStrictEqual(await posted(page), [{ type: 'ready' }]);
    assert.strictEqual(await page.locator('[data-entry-id="u0"]').count(), 1, 'what was shown stays');
  });

  it('draws the latest entries of a long chat and the earlier ones a page at a time', async () => {
    const many: ChatEntry[] = Array.from({ length: 450 }, (_, i) => userEntry(i));
    const state: ChatState = { ...chatState, busy: false, entries: many };
    await hostSends(page, { type: 'state', state });
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 200);
    assert.strictEqual(await page.locator('[data-entry-id="u449"]').count(), 1);
    const earlier = page.locator('vscode-button[data-action="show-earlier"]');
    assert.match((await earlier.textContent()) ?? '', /Show earlier \(250 more\)/);
    await earlier.click();
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 400);
    await page.locator('vscode-button[data-action="show-earlier"]').click();
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 450);
    assert.strictEqual(await page.locator('vscode-button[data-action="show-earlier"]').count(), 0);
  });

  it('a session opened with its recent messages offers the older ones, asks the host for them once, and then draws a page of them', async () => {
    const recent: ChatEntry[] = Array.from({ length: 50 }, (_, i) => userEntry(1000 + i));
    await hostSends(page, { type: 'state', state: { ...chatState, busy: false, entries: recent, earlierUnloaded: true } });
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 50);
    assert.strictEqual(await page.locator('vscode-button[data-action="show-earlier"]').count(), 0, 'nothing held back in the webview');
    await clearPosted(page);
    await page.locator('vscode-button[data-action="load-earlier"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'showEarlier' }]);

    // The host answers with the whole history: the page grows by one more page of older entries.
    const whole: ChatEntry[] = [...Array.from({ length: 400 }, (_, i) => userEntry(i)), ...recent];
    await hostSends(page, { type: 'state', state: { ...chatState, busy: false, entries: whole } });
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 400);
    assert.strictEqual(await page.locator('vscode-button[data-action="load-earlier"]').count(), 0, 'nothing left to load');
    assert.match((await page.locator('vscode-button[data-action="show-earlier"]').textContent()) ?? '', /Show earlier \(50 more\)/);
  });

  it('earlier messages arrive a page at a time: each page is drawn above, and the button stays while more are held back', async () => {
    const newest: ChatEntry[] = Array.from({ length: 150 }, (_, i) => userEntry(2000 + i));
    await hostSends(page, { type: 'state', state: { ...chatState, busy: false, entries: newest, earlierUnloaded: true } });
    await clearPosted(page);
    await page.locator('vscode-button[data-action="load-earlier"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'showEarlier' }]);
    // A live entry arriving meanwhile is not taken for the page.
    const live = [...newest, userEntry(3000)];
    await hostSends(page, { type: 'state', state: { ...chatState, busy: false, entries: live, earlierUnloaded: true } });
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 151);

    const paged: ChatEntry[] = [...Array.from({ length: 150 }, (_, i) => userEntry(1000 + i)), ...live];
    await hostSends(page, { type: 'state', state: { ...chatState, busy: false, entries: paged, earlierUnloaded: true } });
    assert.strictEqual(await page.locator('[data-entry-id]').count(), 301, 'the page is drawn above the entries shown');
    assert.strictEqual(await page.locator('[data-entry-id]').first().getAttribute('data-entry-id'), paged[0].id);
    await clearPosted(page);
    await page.locator('vscode-button[data-action="load-earlier"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'showEarlier' }], 'more is held back: the button asks again');
  });
});
