import * as assert from 'assert';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { hostSends, usePage } from './harness';

const base: ChatState = { ...chatState, busy: true, entries: [] };

/** Marks every node drawn in `selector` so a later check can tell whether it is the same node or a new one. */
async function markDrawn(page: Page, selector: string): Promise<number> {
  return page.evaluate((s) => {
    const nodes = Array.from(document.querySelector(s)!.children).filter((n) => !n.classList.contains('show-more'));
    nodes.forEach((n) => ((n as unknown as { __drawnBefore: boolean }).__drawnBefore = true));
    return nodes.length;
  }, selector);
}

/** How many of the marked nodes are still in `selector` (not drawn anew). */
async function stillMarked(page: Page, selector: string): Promise<number> {
  return page.evaluate((s) => Array.from(document.querySelector(s)!.children).filter((n) => (n as unknown as { __drawnBefore?: boolean }).__drawnBefore).length, selector);
}

async function streamDeltas(page: Page, entryId: string, deltas: string[], thinking = false): Promise<void> {
  for (const text of deltas) {
    await hostSends(page, { type: 'delta', entryId, text, ...(thinking ? { thinking: true } : {}) });
  }
}

describe('chat webview: a long reply streaming in draws each finished slice once (headless Chromium, host CSP)', function () {
  this.timeout(120_000);
  const pages = usePage('chat', base, { width: 700, height: 800 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('slices already drawn keep their nodes while text streams on, and a link defined in the first still resolves in the second', async () => {
    await page.evaluate((state) => {
      let text = '[early]: https://example.com/early\n\nThe first paragraph of a long answer.\n\n';
      while (text.length < 20_000) text += 'A paragraph of the answer with **bold** words and `code`.\n\n';
      text += 'A use of [the early link][early] in the second slice.\n\n';
      while (text.length < 40_000) text += 'More of the answer, streaming in.\n\n';
      window.postMessage({ type: 'state', state: { ...state, entries: [{ kind: 'assistant', id: 'a-stream', text, streaming: true, toolCalls: [] }] } }, '*');
    }, base);
    const body = '[data-entry-id="a-stream"] .entry-body .markdown';
    await page.locator(`${body} .show-more button`).click();
    await page.locator(`${body} a`, { hasText: 'the early link' }).waitFor();
    const marked = await markDrawn(page, body);
    assert.ok(marked > 10, `two slices drawn (${marked} blocks)`);

    await streamDeltas(page, 'a-stream', Array.from({ length: 5 }, (_, i) => `Streamed paragraph ${i}.\n\n`));

    assert.strictEqual(await stillMarked(page, body), marked, 'every block of the two slices is the node drawn before the deltas');
    const link = page.locator(`${body} a`, { hasText: 'the early link' });
    assert.strictEqual(await link.getAttribute('data-href'), 'https://example.com/early');
    assert.match((await page.locator(`${body} .show-more`).textContent()) ?? '', /more characters not shown yet/);
  });

  it('open thinking streaming on keeps its drawn slice and still warns about the hidden character in it', async () => {
    await page.evaluate((state) => {
      const text = `Rename the file to report\u202Efdp.exe.\n${'Weighing the parser change against the tests, step by step.\n'.repeat(600)}`;
      window.postMessage({ type: 'state', state: { ...state, entries: [{ kind: 'assistant', id: 'a-think', text: '', streaming: true, toolCalls: [], thinking: { text, redacted: 0, streaming: true } }] } }, '*');
    }, base);
    await page.locator('[data-entry-id="a-think"] details.thinking summary').click();
    const box = '[data-entry-id="a-think"] .thinking-text';
    await page.locator(box).waitFor();
    assert.strictEqual(await markDrawn(page, box), 1);

    await streamDeltas(page, 'a-think', ['More thinking.\n', 'And more.\n'], true);

    assert.strictEqual(await stillMarked(page, box), 1, 'the first slice is the node drawn before the deltas');
    assert.match((await page.locator('[data-entry-id="a-think"] .thinking-warning').textContent()) ?? '', /contains 1 invisible or direction-changing character \(U\+202E\)/);
  });
});
