import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatTodoItem } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, hostSends, usePage } from './harness';

const { entries: _entries, ...chrome } = { ...chatState, busy: false };

const first: ChatTodoItem[] = [
  { text: 'Find where the parser drops the last token', status: 'in_progress' },
  { text: 'Fix the off-by-one in tokenize()', status: 'pending' },
  { text: 'Add a regression test for an input ending in a comma', status: 'pending' },
];
const second: ChatTodoItem[] = [
  { text: 'Find where the parser drops the last token', status: 'done' },
  { text: 'Fix the off-by-one in tokenize()', status: 'in_progress' },
  { text: 'Add a regression test for an input ending in a comma', status: 'pending' },
];
const card = (items: ChatTodoItem[]): ChatEntry => ({ kind: 'todos', id: 'current', items, open: items.filter((i) => i.status !== 'done').length });
const turn: ChatEntry = {
  kind: 'assistant',
  id: 'a1',
  text: 'I will keep a list of the steps.',
  toolCalls: [{ callId: 'c1', name: 'update_todos', arguments: JSON.stringify({ todos: first }), status: 'done', resultPreview: 'Todo list (3 open of 3):\n[~] Find where…' }],
};

describe('chat webview: the todo card (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', { ...chatState, busy: false, entries: [{ kind: 'user', id: 'u1', text: 'Fix the parser.' }, turn, card(first)] }, { width: 460, height: 700 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('shows the list once, and an update redraws that one card where it stands', async () => {
    const todo = page.locator('[data-kind="todos"]');
    assert.strictEqual(await todo.count(), 1);
    assert.deepStrictEqual(await todo.locator('[data-todo-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-todo-status'))), ['in_progress', 'pending', 'pending']);
    assert.strictEqual(await todo.locator('.todo-count').textContent(), '3 open of 3');
    // The call that wrote the list is a line where the agent made it, not a card of its own.
    assert.strictEqual(await page.locator('.tool-card[data-call-id="c1"]').count(), 0);
    assert.strictEqual(await page.locator('.todo-update[data-call-id="c1"]').textContent(), 'Updated the todo list · 3 open of 3');

    await hostSends(page, { type: 'update', state: chrome, patch: { keep: 3, tail: [], upserts: [card(second)] } });
    assert.strictEqual(await todo.count(), 1, 'still one card');
    assert.deepStrictEqual(await page.$$eval('[data-entry-id]', (els) => els.map((e) => e.getAttribute('data-entry-id'))), ['u1', 'a1', 'current'], 'in the same place');
    assert.deepStrictEqual(await todo.locator('[data-todo-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-todo-status'))), ['done', 'in_progress', 'pending']);
    assert.strictEqual(await todo.locator('.todo-count').textContent(), '2 open of 3');
    assert.strictEqual(await todo.locator('.todo-done .todo-mark').getAttribute('aria-label'), 'done');
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`reads well in the ${theme} theme: every step and the count stand out from the card (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 420 });
      try {
        await hostSends(themed, { type: 'state', state: { ...chatState, busy: false, entries: [{ kind: 'user', id: 'u1', text: 'Fix the parser.' }, turn, card(second)] } });
        const todo = themed.locator('[data-kind="todos"]');
        for (const selector of ['.todo-in-progress .todo-text', '.todo-pending .todo-text', '.todo-count']) {
          const ratio = await textContrast(todo.locator(selector).first());
          assert.ok(ratio >= 4.5, `${selector} has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        }
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `todo-card-${theme}.png`), fullPage: true });
      } finally {
        await themed.close();
      }
    });
  }
});
