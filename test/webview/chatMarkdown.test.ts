import * as assert from 'assert';
import { mkdirSync } from 'fs';
import { join } from 'path';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { parseChatMessage } from '../../src/protocol/validate';
import { chatState, markdownState } from './fixtures';
import { ARTIFACTS, hostSends, posted, usePage } from './harness';

describe('chat webview: markdown, figures and actions (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', markdownState, { width: 460, height: 900 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  /** Every intent the page posted is one the host's validator accepts. */
  async function postedAndValid(): Promise<Array<Record<string, unknown>>> {
    const messages = await posted(page);
    for (const m of messages) assert.ok(!('error' in (parseChatMessage(m) as object)), `the host accepts ${JSON.stringify(m)}`);
    return messages;
  }

  it('renders bold, lists, tables, links, inline code and a fenced code block with its language', async () => {
    const reply = page.locator('[data-entry-id="a-md"] .markdown');
    assert.strictEqual(await reply.locator('strong').textContent(), 'one line');
    assert.deepStrictEqual(await reply.locator('ul > li').allTextContents(), ['use path.join', 'keep the tests']);
    assert.strictEqual(await reply.locator('li code').textContent(), 'path.join');
    assert.deepStrictEqual(await reply.locator('table th').allTextContents(), ['File', 'Change']);
    assert.strictEqual(await reply.locator('table td.align-right').textContent(), '1 line');
    assert.strictEqual(await reply.locator('table [style]').count(), 0, 'alignment is a class, not a style attribute');
    assert.strictEqual(await reply.locator('a').count(), 1, 'the javascript: link is not a link');
    assert.match((await reply.textContent()) ?? '', /or \[this\]\(javascript:alert\(1\)\)|or this/);
    const block = reply.locator('.code-block');
    assert.strictEqual(await block.locator('.code-lang').textContent(), 'ts');
    assert.strictEqual(await block.locator('pre.code code').textContent(), 'return path.join(a, b);');
    assert.strictEqual(await block.locator('vscode-button[data-action="copy-code"]').count(), 1);
    assert.strictEqual(await block.locator('vscode-button[data-action="insert-code"]').count(), 1);
  });

  it('shows <script> and <img onerror> from the model as text; nothing runs', async () => {
    const text = (await page.textContent('[data-entry-id="a-md"] .markdown')) ?? '';
    assert.match(text, /Raw <script>window.__pwned = 1<\/script> and <img src=x onerror="window.__pwned = 2"> stay text\./);
    assert.strictEqual(await page.locator('[data-entry-id="a-md"] script, [data-entry-id="a-md"] img').count(), 0);
    assert.strictEqual(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  });

  it('decodes character references the model writes (&amp;, &eacute;, &#233;) and shows unknown ones as typed', async () => {
    await hostSends(page, { type: 'state', state: { ...markdownState, entries: [{ kind: 'assistant', id: 'a-ent', text: 'Fish &amp; chips, cr&egrave;me br&ucirc;l&eacute;e, caf&#233; &#x2014; &notanentity; **&lt;b&gt;**', toolCalls: [], tokens: 20 }] } });
    const reply = page.locator('[data-entry-id="a-ent"] .markdown');
    await reply.waitFor();
    assert.strictEqual((await reply.textContent())?.trim(), 'Fish & chips, crème brûlée, café — &notanentity; <b>');
    assert.strictEqual(await reply.locator('strong').textContent(), '<b>');
  });

  it('Copy and Insert at cursor post the code; a link posts openLink and the page does not navigate', async () => {
    const block = page.locator('[data-entry-id="a-md"] .code-block');
    await block.locator('vscode-button[data-action="copy-code"]').click();
    await block.locator('vscode-button[data-action="insert-code"]').click();
    const before = page.url();
    await page.click('[data-entry-id="a-md"] a');
    assert.strictEqual(page.url(), before);
    assert.deepStrictEqual(await postedAndValid(), [
      { type: 'copyCode', code: 'return path.join(a, b);' },
      { type: 'insertCode', code: 'return path.join(a, b);' },
      { type: 'openLink', url: 'https://nodejs.org/api/path.html' },
    ]);
  });

  it('renders markdown while it streams: an unclosed fence is already a code block', async () => {
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'Here is **the' });
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: ' plan**:\n\n```bash\nnpm te' });
    const streaming = page.locator('[data-entry-id="streaming"]');
    assert.strictEqual(await streaming.locator('strong').textContent(), 'the plan');
    assert.strictEqual(await streaming.locator('.code-lang').textContent(), 'bash');
    assert.strictEqual(await streaming.locator('pre.code code').textContent(), 'npm te');
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'st\n```\nDone.' });
    assert.strictEqual(await streaming.locator('pre.code code').textContent(), 'npm test');
    assert.match((await streaming.locator('.markdown > p').last().textContent()) ?? '', /Done\./);
  });

  it("shows each message's tokens and the turn's request size, cache reuse and cost as the host sent them", async () => {
    assert.strictEqual(await page.getAttribute('[data-entry-id="u-1"] .entry-tokens', 'data-tokens'), '12');
    assert.strictEqual(await page.textContent('[data-entry-id="a-md"] .entry-tokens'), '118 tokens');
    const usage = page.locator('[data-kind="usage"]');
    assert.strictEqual(await usage.locator('[data-field="request"]').textContent(), 'Last request 14,200 tokens');
    assert.strictEqual(await usage.locator('[data-field="requests"]').textContent(), '2 requests, 27,900 in');
    assert.strictEqual(await usage.locator('[data-field="cached"]').textContent(), '13,500 cached (48%)');
    assert.strictEqual(await usage.locator('[data-field="written"]').textContent(), '1,200 written to cache');
    assert.strictEqual(await usage.locator('[data-field="output"]').textContent(), '512 out (300 reasoning)');
    assert.strictEqual(await usage.locator('[data-field="cost"]').textContent(), '$0.03');
  });

  it('keeps the first message typed with no model, with Choose a model and Discard actions', async () => {
    const state: ChatState = {
      ...chatState,
      busy: false,
      model: undefined,
      meter: undefined,
      entries: [
        { kind: 'user', id: 'pending', text: 'Explain the loader.', pending: true },
        { kind: 'notice', id: 'pending-model', level: 'warning', text: 'No model is configured, so this message has not been sent.', action: 'selectModel' },
      ],
    };
    await hostSends(page, { type: 'state', state });
    assert.strictEqual(await page.textContent('[data-entry-id="pending"] .text'), 'Explain the loader.');
    assert.match((await page.textContent('[data-entry-id="pending"]')) ?? '', /not sent yet/);
    await page.click('vscode-button[data-action="choose-model"]');
    await page.click('vscode-button[data-action="discard-pending"]');
    assert.deepStrictEqual(await postedAndValid(), [{ type: 'selectModel' }, { type: 'discardPending' }]);
    for (const theme of ['dark', 'light'] as const) {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 400 });
      try {
        await hostSends(themed, { type: 'state', state });
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: join(ARTIFACTS, `pending-message-${theme}.png`) });
      } finally {
        await themed.close();
      }
    }
  });

  it('shows a live compaction notice, a "nothing to compact" notice, and Retry on an error', async () => {
    const base = markdownState.entries;
    await hostSends(page, { type: 'state', state: { ...markdownState, entries: [...base, { kind: 'notice', id: 'compacting-c1', level: 'info', busy: true, text: 'Compacting the context (176,420 tokens) because you asked for it — running summarize…' }] } });
    const live = page.locator('[data-entry-id="compacting-c1"]');
    assert.strictEqual(await live.getAttribute('data-busy'), '');
    assert.strictEqual(await live.locator('vscode-progress-ring').count(), 1);
    await hostSends(page, { type: 'state', state: { ...markdownState, entries: [...base, { kind: 'notice', id: 'c2', level: 'info', text: 'Nothing to compact: the context (1,200 tokens) has nothing the strategies can remove yet.' }] } });
    assert.strictEqual(await page.locator('[data-entry-id="compacting-c1"]').count(), 0, 'the live notice goes when the compaction ends');
    assert.match((await page.textContent('[data-entry-id="c2"]')) ?? '', /Nothing to compact/);
    await hostSends(page, { type: 'state', state: { ...markdownState, entries: [...base, { kind: 'notice', id: 'turn-error-0', level: 'error', text: 'OpenAI: server error (HTTP 500)', action: 'retry' }] } });
    await page.click('[data-entry-id="turn-error-0"] vscode-button[data-action="retry"]');
    assert.deepStrictEqual(await postedAndValid(), [{ type: 'retry' }]);
  });
});
