import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { chatState, compaction, figuresOf } from './fixtures';
import { ARTIFACTS, cspViolations, hostSends, posted, usePage } from './harness';

describe('chat webview (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', chatState, { width: 460, height: 900 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  const idle: ChatState = { ...chatState, busy: false };

  it('renders user and assistant messages, code blocks as text, and notices', async () => {
    assert.match((await page.textContent('[data-entry-id="u-1"]')) ?? '', /config tests fail/);
    assert.strictEqual(await page.textContent('[data-entry-id="a-1"] pre.code code'), 'npm test -- test/config.test.ts');
    assert.match((await page.textContent('[data-entry-id="n-1"]')) ?? '', /Warning: Anthropic: rate limited \(HTTP 429\) — trying again in 4 s/);
  });

  it('appends streaming deltas to the streaming entry, creating it when needed', async () => {
    assert.strictEqual(await page.locator('[data-entry-id="streaming"]').count(), 0);
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'The snapshot ' });
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: 'uses <b>backslashes</b>' });
    await hostSends(page, { type: 'delta', entryId: 'streaming', text: ' on Windows.' });
    const streaming = page.locator('[data-entry-id="streaming"]');
    assert.strictEqual(await streaming.count(), 1);
    assert.strictEqual(await streaming.locator('.entry-body').textContent(), 'The snapshot uses <b>backslashes</b> on Windows.');
    assert.strictEqual(await streaming.locator('b').count(), 0);
    // The host's next state replaces the streamed entry with the stored message.
    await hostSends(page, { type: 'state', state: { ...idle, entries: [...idle.entries, { kind: 'assistant', id: 'a-3', text: 'The snapshot uses backslashes on Windows.', toolCalls: [] }] } });
    assert.strictEqual(await page.locator('[data-entry-id="streaming"]').count(), 0);
    assert.strictEqual(await page.locator('[data-entry-id="a-3"]').count(), 1);
  });

  it('shows a tool card with pretty arguments, badges, and a stored output as "N lines stored · Open"', async () => {
    const card = page.locator('.tool-card[data-call-id="call_1"]');
    assert.match((await card.locator('.tool-head').textContent()) ?? '', /run_command.*npm test.*done.*truncated.*offloaded/s);
    await card.locator('.tool-args-details summary').click();
    assert.strictEqual(await card.locator('pre.tool-args').textContent(), JSON.stringify({ command: 'npm test -- test/config.test.ts', timeout: 120 }, null, 2));
    assert.strictEqual(await card.locator('.stored-result').textContent(), '1,204 lines stored · Open');
    assert.doesNotMatch((await card.locator('.tool-result').textContent()) ?? '', /res_a1|ref_id/, 'the id stays in the inspector');
    assert.strictEqual(await card.locator('[data-open-result]').textContent(), 'Open');
    await card.locator('[data-open-result]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'openResult', refId: 'res_a1' }]);
  });

  it('asks for approval inside the card and posts the answer', async () => {
    const card = page.locator('.tool-card[data-call-id="call_2"]');
    assert.strictEqual(await card.getAttribute('data-status'), 'awaiting_approval');
    assert.match((await card.locator('.approval-title').textContent()) ?? '', /Edit src\/config\/load\.ts/);
    assert.match((await card.locator('pre.approval-detail').textContent()) ?? '', /\+  return path\.join\(a, b\);/);
    await card.locator('vscode-button[data-approve="call_2"]').click();
    await card.locator('vscode-button[data-deny="call_2"]').click();
    assert.deepStrictEqual(await posted(page), [
      { type: 'approval', callId: 'call_2', approved: true },
      { type: 'approval', callId: 'call_2', approved: false },
    ]);
    assert.strictEqual(await page.locator('.tool-card[data-call-id="call_1"] .approval').count(), 0, 'no buttons on finished calls');
  });

  it('expands an inline compaction notice to trigger, tokens, strategies, summary and removed count', async () => {
    const notice = page.locator('.compaction-notice[data-entry-id="cmp-1"]');
    assert.match((await notice.locator('summary').textContent()) ?? '', /Context compacted: 176,420 → 71,980 tokens/);
    assert.doesNotMatch((await notice.locator('summary').textContent()) ?? '', /⇣/, 'no lone glyph before the words');
    assert.strictEqual(await notice.evaluate((e) => (e as HTMLDetailsElement).open), false);
    await notice.locator('summary').click();
    const body = (await notice.textContent()) ?? '';
    assert.match(body, /Automatic/);
    assert.match(body, /saved 104,440/);
    assert.match(body, /older tool results archived, older tool calls summarized, older messages summarized/);
    assert.doesNotMatch(body, /threshold-summarization/, 'no internal strategy name');
    assert.strictEqual(await notice.locator('[data-removed-count]').getAttribute('data-removed-count'), String(compaction.removed.length));
    assert.match((await notice.locator('pre.summary-text').textContent()) ?? '', /snapshot tests/);
    // Stays open when the host pushes a new state.
    await hostSends(page, { type: 'state', state: idle });
    assert.strictEqual(await page.locator('.compaction-notice[data-entry-id="cmp-1"]').evaluate((e) => (e as HTMLDetailsElement).open), true);
  });

  it('sends on Enter, keeps Shift+Enter as a newline, and sends /compact as a normal message', async () => {
    await hostSends(page, { type: 'state', state: idle });
    const input = page.locator('vscode-text-area.composer-input textarea');
    await input.click();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    // The composer tells the host what is being written (for the cost line) and asks for the / list: only sends count here.
    const sends = async () => (await posted(page)).filter((m) => m.type !== 'draft' && m.type !== 'commandQuery');
    assert.deepStrictEqual(await sends(), []);
    await page.keyboard.press('Enter');
    await page.keyboard.type('/compact keep the snapshot diff');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    assert.deepStrictEqual(await sends(), [
      { type: 'send', text: 'first line\nsecond line' },
      { type: 'send', text: '/compact keep the snapshot diff' },
    ]);
    assert.strictEqual(await input.inputValue(), '', 'the box is cleared');
  });

  it('shows Cancel while busy and posts cancel', async () => {
    assert.strictEqual(await page.locator('vscode-button[data-action="send"]').isVisible(), false);
    await page.click('vscode-button[data-action="cancel"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'cancel' }]);
    await page.keyboard.press('Enter');
    await hostSends(page, { type: 'state', state: idle });
    assert.strictEqual(await page.locator('vscode-button[data-action="cancel"]').isVisible(), false);
    assert.strictEqual(await page.locator('vscode-button[data-action="send"]').isVisible(), true);
  });

  it('shows the context meter with its compaction marker; colour changes near the threshold; click opens the inspector', async () => {
    const meter = page.locator('button.meter');
    assert.strictEqual(await meter.getAttribute('data-level'), 'ok');
    assert.match((await meter.textContent()) ?? '', /62%/);
    const markLeft = await page.$eval('.meter-mark', (e) => (e as HTMLElement).style.left);
    assert.strictEqual(markLeft, '95%');
    // The last request's size and the context now are different quantities, and say so.
    assert.strictEqual(await page.textContent('[data-meter="last-and-now"]'), 'last request 131,300 · context now 114,080');
    const okColour = await page.$eval('.meter-fill', (e) => getComputedStyle(e).backgroundColor);
    await hostSends(page, { type: 'state', state: { ...chatState, meter: figuresOf({ contextWindow: 200_000, maxOutputTokens: 16_000, components: { system: 0, skills: 0, tools: 0, messages: 165_600, toolResults: 0, summaries: 0 }, warning: 'Unknown context window: assuming 128K.' }) } });
    assert.strictEqual(await page.getAttribute('button.meter', 'data-level'), 'near');
    const nearColour = await page.$eval('.meter-fill', (e) => getComputedStyle(e).backgroundColor);
    assert.notStrictEqual(nearColour, okColour);
    assert.match((await page.textContent('.meter-warning')) ?? '', /assuming 128K/);
    await page.click('button.meter');
    assert.deepStrictEqual(await posted(page), [{ type: 'openInspector' }]);
  });

  it('selects a model, resumes a session from the list, and starts a new one', async () => {
    assert.match((await page.textContent('.model-label')) ?? '', /Claude Sonnet 4\.5/);
    await page.click('vscode-button[data-action="select-model"]');
    await page.click('vscode-button[data-action="new-session"]');
    await page.click('vscode-dropdown.session-picker');
    await page.click('vscode-option[value="s-0"]');
    assert.deepStrictEqual(await posted(page), [
      { type: 'selectModel' },
      { type: 'newSession' },
      { type: 'resumeSession', sessionId: 's-0' },
    ]);
  });

  it('without a model, an empty chat offers Select model and the demo and shows no empty meter; the label changes as soon as a model arrives', async () => {
    const { model: _model, ...noModel } = idle;
    await hostSends(page, { type: 'state', state: { ...noModel, entries: [], sessionId: 's-new', sessionTitle: 'New session' } });
    assert.strictEqual(await page.textContent('.model-label'), 'No model selected');
    assert.strictEqual(await page.locator('.meter-text').count(), 0, 'no "0/120K" for a window no model has');
    assert.match((await page.textContent('.empty-hint')) ?? '', /Choose a model to start/);
    await page.click('vscode-button[data-action="empty-select-model"]');
    await page.click('vscode-button[data-action="open-demo"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'selectModel' }, { type: 'openDemo' }]);
    // The host's next update (same session, a model now) changes the label, the hint and the meter at once.
    const { entries: _entries, ...rest } = { ...idle, entries: [], sessionId: 's-new', sessionTitle: 'New session' };
    await hostSends(page, { type: 'update', state: rest, patch: { keep: 0, tail: [], upserts: [] } });
    assert.match((await page.textContent('.model-label')) ?? '', /Claude Sonnet 4\.5/);
    assert.match((await page.textContent('.empty-hint')) ?? '', /Ask Tally to read/);
    assert.strictEqual(await page.locator('.empty-hint vscode-button').count(), 0);
    assert.strictEqual(await page.locator('.meter-text').count(), 1);
  });

  it('shows the banner when the host sets one', async () => {
    assert.strictEqual(await page.locator('.banner').count(), 0);
    await hostSends(page, { type: 'state', state: { ...idle, banner: 'No model is configured. Run "Tally: Select Model".' } });
    assert.match((await page.textContent('.banner')) ?? '', /No model is configured/);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 1100 });
      try {
        await hostSends(themed, { type: 'state', state: chatState });
        await themed.locator('.compaction-notice summary').click();
        await hostSends(themed, { type: 'delta', entryId: 'streaming', text: 'Waiting for your approval before editing the loader.' });
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `chat-${theme}.png`), fullPage: true });
        const bg = await themed.$eval('body', (e) => getComputedStyle(e).backgroundColor);
        assert.strictEqual(bg, theme === 'dark' ? 'rgb(31, 31, 31)' : 'rgb(255, 255, 255)');
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
