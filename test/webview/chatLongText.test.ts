import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { ARTIFACTS, cspViolations, usePage } from './harness';

const base: ChatState = { ...chatState, busy: false, entries: [] };

/**
 * Sends a state whose one large entry is built inside the page (megabytes never cross the test's
 * connection), then waits for its entry to be drawn. `kind` picks the entry.
 */
async function sendLarge(page: Page, kind: 'thinking' | 'links' | 'prose' | 'fence' | 'user' | 'arguments', chars: number): Promise<void> {
  await page.evaluate(
    ({ kind, chars, base }) => {
      const fill = (unit: string) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
      let entry: Record<string, unknown>;
      if (kind === 'thinking') entry = { kind: 'assistant', id: 'a-big', text: 'Done.', toolCalls: [], thinking: { text: fill('Weighing the parser change against the tests, step by step.\n'), tokens: Math.round(chars / 4), redacted: 0 } };
      else if (kind === 'links') {
        let text = 'See [the first page][r0] and [the last one][r1].\n\n';
        for (let i = 0; text.length < chars; i++) text += `[ref${i}]: https://example.com/page/${i} "Page ${i}"\n`;
        text += '\n[r0]: https://example.com/first\n[r1]: https://example.com/last\n';
        entry = { kind: 'assistant', id: 'a-big', text, toolCalls: [] };
      } else if (kind === 'prose') entry = { kind: 'assistant', id: 'a-big', text: `[early]: https://example.com/early\n\n${fill('A paragraph with **bold** words, `code` and [a link](https://example.com).\n\n')}Late use of [the early link][early].\n`, toolCalls: [] };
      else if (kind === 'fence') entry = { kind: 'assistant', id: 'a-big', text: `Before the code.\n\n\`\`\`ts\n${fill('const value = compute(42); // a line of code\n')}\`\`\`\n\nAfter the code.\n`, toolCalls: [] };
      else if (kind === 'user') entry = { kind: 'user', id: 'u-big', text: fill('A pasted log line that goes on and on.\n') };
      else entry = { kind: 'assistant', id: 'a-big', text: 'Writing it.', toolCalls: [{ callId: 'call_big', name: 'write_file', arguments: JSON.stringify({ path: 'src/generated.ts', content: fill('export const x = 1;\n') }), status: 'done', resultPreview: 'Created src/generated.ts' }] };
      window.postMessage({ type: 'state', state: { ...base, entries: [entry] } }, '*');
    },
    { kind, chars, base },
  );
  // The chat draws a state as it takes it: its entry there means the state was handled.
  await page.locator(`[data-entry-id="${kind === 'user' ? 'u-big' : 'a-big'}"]`).waitFor({ state: 'attached' });
}

const SLICE = 16 * 1024;

describe('chat webview: long texts are drawn a slice at a time (headless Chromium, host CSP)', function () {
  this.timeout(120_000);
  const pages = usePage('chat', base, { width: 700, height: 800 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('thinking shows a right-to-left override as ⟨U+202E⟩ with a warning line, never the raw character', async () => {
    const thought = 'Rename the file to report\u202Efdp.exe and tell nobody.';
    await page.evaluate((state) => window.postMessage({ type: 'state', state }, '*'), { ...base, entries: [{ kind: 'assistant', id: 'a-bidi', text: 'Done.', toolCalls: [], thinking: { text: thought, tokens: 12, redacted: 0 } }] });
    await page.locator('[data-entry-id="a-bidi"] details.thinking summary').click();
    const text = page.locator('[data-entry-id="a-bidi"] .thinking-text');
    assert.strictEqual(await text.textContent(), 'Rename the file to report⟨U+202E⟩fdp.exe and tell nobody.');
    assert.strictEqual(await text.locator('.hidden-char').getAttribute('title'), 'U+202E: bidirectional control characters');
    assert.match((await page.locator('[data-entry-id="a-bidi"] .thinking-warning').textContent()) ?? '', /⚠ This thinking contains 1 invisible or direction-changing character \(U\+202E\), shown as ⟨U\+…⟩ markers\./);
  });

  it('a 22 MB thinking block draws nothing until expanded, then one slice, and Show more draws the next', async () => {
    await sendLarge(page, 'thinking', 22 * 1024 * 1024);
    const block = page.locator('[data-entry-id="a-big"] details.thinking');
    assert.strictEqual(await block.locator('.thinking-text').count(), 0, 'nothing of the text is drawn while collapsed');
    await block.locator('summary').click();
    const drawn = async () => (await block.locator('.thinking-text').evaluate((e) => e.querySelectorAll('.thinking-slice').length ? Array.from(e.querySelectorAll('.thinking-slice'), (s) => s.textContent!.length).reduce((a, b) => a + b, 0) : 0));
    const first = await drawn();
    assert.ok(first > 0 && first <= SLICE, `one slice drawn (${first} characters)`);
    const more = block.locator('.show-more');
    assert.match((await more.textContent()) ?? '', new RegExp(`^${(22 * 1024 * 1024 - first).toLocaleString('en-US')} more characters not shown yet · Show more$`));
    await more.locator('button').click();
    const second = await drawn();
    assert.ok(second > first && second <= 2 * SLICE, `a second slice drawn (${second} characters)`);
    // A redraw of the entry (the next update) keeps the two slices.
    await sendLarge(page, 'thinking', 22 * 1024 * 1024);
    assert.strictEqual(await drawn(), second);
  });

  it('1.2 MB of link definitions draws one slice; a link whose definition came in an earlier slice still resolves', async () => {
    await sendLarge(page, 'links', 1_200_000);
    const body = page.locator('[data-entry-id="a-big"] .entry-body .markdown');
    assert.ok(await body.locator('.show-more').isVisible());
    await sendLarge(page, 'prose', 200_000);
    const prose = page.locator('[data-entry-id="a-big"] .entry-body .markdown');
    assert.ok((await prose.evaluate((e) => e.textContent!.length)) < 2 * SLICE, 'only the first slice is drawn');
    for (let i = 0; i < 20 && (await prose.locator('.show-more').count()); i++) await prose.locator('.show-more button').click();
    assert.strictEqual(await prose.locator('.show-more').count(), 0, 'every slice drawn after enough Show more');
    assert.strictEqual(await prose.locator('a[data-href="https://example.com/early"]').count(), 1, 'the late reference resolved');
  });

  it('a code block cut between slices stays code on both sides', async () => {
    await sendLarge(page, 'fence', 40_000);
    const body = page.locator('[data-entry-id="a-big"] .entry-body .markdown');
    await body.locator('.show-more button').click();
    const blocks = body.locator('.code-block');
    assert.ok((await blocks.count()) >= 2, 'the block continues as code in the next slice');
    assert.deepStrictEqual(new Set(await blocks.evaluateAll((all) => all.map((b) => b.querySelector('pre')?.getAttribute('data-lang')))), new Set(['ts']));
    assert.doesNotMatch((await body.locator(':scope > p').allTextContents()).join('\n'), /compute\(42\)/, 'no code shows as a paragraph');
  });

  it("a user's 2 MB message and a call's 4 MB arguments draw one slice each; the arguments only once expanded", async () => {
    await sendLarge(page, 'user', 2 * 1024 * 1024);
    const user = page.locator('[data-entry-id="u-big"] .text');
    assert.ok((await user.evaluate((e) => e.textContent!.length)) < SLICE + 200);
    assert.match((await user.locator('.show-more').textContent()) ?? '', /more characters not shown yet/);
    await sendLarge(page, 'arguments', 4 * 1024 * 1024);
    const card = page.locator('[data-call-id="call_big"]');
    assert.strictEqual(await card.locator('.tool-gist').textContent(), 'src/generated.ts', 'the card still says what the call is about');
    assert.strictEqual(await card.locator('pre.tool-args').count(), 0, 'collapsed arguments are not drawn');
    await card.locator('details.tool-args-details summary').click();
    assert.ok((await card.locator('pre.tool-args').evaluate((e) => e.textContent!.length)) < SLICE + 200);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`shows the markers, the warning and Show more readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 520, height: 700 });
      try {
        await themed.evaluate((state) => window.postMessage({ type: 'state', state }, '*'), {
          ...base,
          entries: [{ kind: 'assistant', id: 'a-shot', text: 'Done.', toolCalls: [], thinking: { text: `The file is report\u202Efdp.exe.\n${'Checking the next module.\n'.repeat(1200)}`, tokens: 7_000, redacted: 0 } }],
        });
        await themed.locator('[data-entry-id="a-shot"] details.thinking summary').click();
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.locator('[data-entry-id="a-shot"] .thinking-warning').scrollIntoViewIfNeeded();
        await themed.screenshot({ path: path.join(ARTIFACTS, `chat-thinking-warning-${theme}.png`) });
        await themed.locator('[data-entry-id="a-shot"] .show-more').scrollIntoViewIfNeeded();
        await themed.screenshot({ path: path.join(ARTIFACTS, `chat-long-thinking-${theme}.png`) });
        const [warning, warningBg] = await themed.locator('[data-entry-id="a-shot"] .thinking-warning').evaluate((e) => [getComputedStyle(e).color, getComputedStyle(document.body).backgroundColor]);
        assert.notStrictEqual(warning, warningBg);
        const [color, bg] = await themed.locator('[data-entry-id="a-shot"] .show-more-text').evaluate((e) => [getComputedStyle(e).color, getComputedStyle(document.body).backgroundColor]);
        assert.notStrictEqual(color, bg);
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
