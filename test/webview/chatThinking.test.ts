import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { ARTIFACTS, cspViolations, hostSends, posted, usePage } from './harness';

const THOUGHT = 'The user wants the version.\n1. Call fixed_version.\n2. Tell them the version and make one short joke.';
const entries: ChatEntry[] = [
  { kind: 'user', id: 'u-t', text: 'Use the fixed_version tool, then make a joke about the version.', tokens: 24 },
  { kind: 'assistant', id: 'a-t', text: 'The version is **0.32a0** — still a long way from 1.0, plenty of room to grow!', toolCalls: [], tokens: 96, thinking: { text: THOUGHT, tokens: 53, redacted: 0 } },
  { kind: 'assistant', id: 'a-r', text: 'I can help with a legitimate task.', toolCalls: [], tokens: 410, thinking: { text: '', tokens: 380, redacted: 2 } },
  { kind: 'assistant', id: 'a-c', text: 'The offset was counted twice.', toolCalls: [], tokens: 40, thinking: { text: 'Let me look at the nested case. '.repeat(8), tokens: 1_000_000, redacted: 0, notKeptChars: 18_874_368 } },
  { kind: 'notice', id: 'n-cut', level: 'info', text: 'The answer was cut at the output limit while the model was writing a tool call, so the call was not run. Continue to let the model carry on.', action: 'continue' },
];
const state: ChatState = { ...chatState, busy: false, entries };

describe('chat webview: thinking (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', state, { width: 460, height: 700 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('shows thinking as a collapsed block with its token count that expands to the text and stays open across updates', async () => {
    const block = page.locator('[data-entry-id="a-t"] details.thinking');
    assert.strictEqual(await block.evaluate((e) => (e as HTMLDetailsElement).open), false, 'collapsed by default');
    assert.strictEqual((await block.locator('summary').textContent())?.replace(/\s+/g, ' ').trim(), 'Thinking · 53 tokens');
    assert.strictEqual(await block.locator('.thinking-text').isVisible(), false);
    await block.locator('summary').click();
    assert.strictEqual(await block.locator('.thinking-text').textContent(), THOUGHT);
    await hostSends(page, { type: 'state', state: { ...state, entries: [...entries] } });
    assert.strictEqual(await page.locator('[data-entry-id="a-t"] details.thinking').evaluate((e) => (e as HTMLDetailsElement).open), true);
    // The answer itself is not inside the thinking block.
    assert.strictEqual(await page.locator('[data-entry-id="a-t"] details.thinking strong').count(), 0);
  });

  it('says how much of the thinking came redacted instead of showing nothing', async () => {
    const block = page.locator('[data-entry-id="a-r"] details.thinking');
    assert.match((await block.locator('summary').textContent()) ?? '', /Thinking · 380 tokens · 2 redacted blocks/);
    await block.locator('summary').click();
    // The body is built on the details' toggle event, which the browser fires after the click returns.
    assert.match((await block.locator('.thinking-redacted').textContent()) ?? '', /encrypted/);
  });

  it('says when thinking past the limit for one reply was not kept, and how much', async () => {
    const block = page.locator('[data-entry-id="a-c"] details.thinking');
    assert.strictEqual((await block.locator('summary').textContent())?.replace(/\s+/g, ' ').trim(), 'Thinking · 1,000,000 tokens · the rest not kept');
    await block.locator('summary').click();
    assert.match((await block.locator('.thinking-redacted').textContent()) ?? '', /The model thought 18,874,368 more characters than Tally keeps of one reply's thinking: they were read but not kept/);
  });

  it('streams thinking as "Thinking…" while the answer has not started', async () => {
    const streaming: ChatEntry = { kind: 'assistant', id: 'streaming', text: '', streaming: true, toolCalls: [], thinking: { text: 'Looking at the parser', redacted: 0, streaming: true } };
    await hostSends(page, { type: 'state', state: { ...state, busy: true, entries: [...entries, streaming] } });
    assert.strictEqual((await page.locator('[data-entry-id="streaming"] details.thinking summary').textContent())?.trim(), 'Thinking…');
  });

  it('streams thinking as deltas onto the streaming entry, and the answer\'s first text ends it', async () => {
    await hostSends(page, { type: 'state', state: { ...state, busy: true, entries: [...entries] } });
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'Looking at ', thinking: true });
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'the parser', thinking: true });
    const summary = page.locator('[data-entry-id="streaming"] details.thinking summary');
    await summary.filter({ hasText: 'Thinking…' }).waitFor();
    await summary.click();
    assert.strictEqual(await page.locator('[data-entry-id="streaming"] .thinking-text').textContent(), 'Looking at the parser');
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'The parser is in src/parse.ts.' });
    await page.locator('[data-entry-id="streaming"]').filter({ hasText: 'The parser is in src/parse.ts.' }).waitFor();
    assert.strictEqual((await summary.textContent())?.trim(), 'Thinking', 'the thinking is over once the answer starts');
  });

  it('offers Continue on an answer cut at the output limit, which sends "Continue"', async () => {
    await page.locator('[data-entry-id="n-cut"] vscode-button[data-action="continue"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'send', text: 'Continue' }]);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the thinking block readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 700 });
      try {
        await hostSends(themed, { type: 'state', state });
        await themed.locator('[data-entry-id="a-t"] details.thinking summary').click();
        await themed.locator('[data-entry-id="a-c"] details.thinking summary').click();
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `chat-thinking-${theme}.png`), fullPage: true });
        const summary = themed.locator('[data-entry-id="a-r"] details.thinking summary');
        const [color, bg] = await summary.evaluate((e) => [getComputedStyle(e).color, getComputedStyle(document.body).backgroundColor]);
        assert.notStrictEqual(color, bg);
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
