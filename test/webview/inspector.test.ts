import * as assert from 'assert';
import type { Page } from 'playwright-core';
import { ContextBudget } from '../../src/core/accounting/budget';
import { requestFigures, windowFigures } from '../../src/core/accounting/windowFigures';
import { DEFAULT_SETTINGS } from '../../src/core/settings';
import { compactionView } from '../../src/protocol/inspector';
import { compaction, figuresOf, inspectorState, inspectorWindow, turnCacheMiss, requestItems, used } from './fixtures';
import { clearPosted, hostSends, posted, usePage } from './harness';

describe('inspector webview (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('inspector', inspectorState, { clearPosted: false });
  let page: Page;
  beforeEach(() => (page = pages.page()));

  it('posts ready on start, and shows session, model, calibration and forecast', async () => {
    const messages = await posted(page);
    assert.deepStrictEqual(messages[0], { type: 'ready' });
    const header = await page.textContent('.inspector-header');
    assert.match(header ?? '', /Fix config loader tests/);
    assert.match(header ?? '', /Claude Sonnet 4\.5/);
    assert.match(header ?? '', /The provider counts 3\.1% more tokens than Tally's own count \(± 1\.2%, over 9 requests\) · ×1\.031 ± 0\.012/);
    assert.doesNotMatch(header ?? '', /Calibration/);
    await hostSends(page, { type: 'state', state: { ...inspectorState, calibration: { factor: 0.9, error: 0, samples: 1 } } });
    assert.match((await page.textContent('[data-fact="calibration"]')) ?? '', /The provider counts 10\.0% fewer tokens than Tally's own count \(from 1 request so far\) · ×0\.900/);
    await hostSends(page, { type: 'state', state: inspectorState });
    assert.match(header ?? '', /≈ 10/);
    assert.strictEqual(await page.locator('.replay-label').count(), 0, 'no replay label on a live session');
  });

  it('draws segments that add up to the window, used ones to the context now, with both threshold markers', async () => {
    const segs = await page.$$eval('.stacked-bar .seg', (els) =>
      els.map((e) => ({ name: e.getAttribute('data-segment'), tokens: Number(e.getAttribute('data-tokens')), width: e.getBoundingClientRect().width, title: e.getAttribute('title') })),
    );
    const figures = inspectorState.figures!;
    assert.deepStrictEqual(segs.map((s) => s.name), ['system', 'skills', 'tools', 'messages', 'toolResults', 'summaries', 'free', 'reserve']);
    assert.strictEqual(segs.reduce((a, s) => a + s.tokens, 0), figures.contextWindow);
    const usedNames = ['system', 'skills', 'tools', 'messages', 'toolResults', 'summaries'];
    assert.strictEqual(segs.filter((s) => usedNames.includes(s.name!)).reduce((a, s) => a + s.tokens, 0), used);
    assert.strictEqual(segs.find((s) => s.name === 'reserve')!.tokens, figures.outputReserve);
    // Widths are proportional: tool results (61,200 of 200,000) is ~30.6% of the bar.
    const barWidth = await page.$eval('.stacked-bar', (e) => e.clientWidth);
    const total = segs.reduce((a, s) => a + s.width, 0);
    assert.ok(Math.abs(total - barWidth) < 2, `segments fill the bar (${total} vs ${barWidth})`);
    const results = segs.find((s) => s.name === 'toolResults')!;
    assert.ok(Math.abs(results.width / barWidth - 61_200 / 200_000) < 0.01);
    // Every share is a share of the effective window (184,000), the denominator the status bar and the chat use.
    assert.match(results.title ?? '', /Tool results: 61,200 tokens \(33\.3% of the 184,000-token effective window/);
    const compactMarker = page.locator('.marker[data-marker="compact"]');
    assert.strictEqual(await compactMarker.getAttribute('data-tokens'), String(figures.compactAt));
    assert.strictEqual(await page.locator('.marker[data-marker="block"]').getAttribute('data-tokens'), String(figures.blockAt));
    // The legend repeats every number as text.
    assert.match((await page.textContent('.legend [data-legend="toolResults"]')) ?? '', /61,200\s*33\.3%/);
    assert.match((await page.textContent('.legend [data-legend="compact-at"]')) ?? '', /174,800\s*95%/);
  });

  it('shrinks the free space and keeps the sum when the context overflows', async () => {
    const over = { ...inspectorWindow, components: { ...inspectorWindow.components, toolResults: 190_000 } };
    await hostSends(page, { type: 'state', state: { ...inspectorState, figures: figuresOf(over) } });
    assert.strictEqual(await page.locator('.seg[data-segment="free"]').count(), 0, 'no free space is drawn');
    assert.strictEqual(await page.locator('.legend [data-legend="free"] td').nth(1).textContent(), '0', 'the legend still lists it');
    const widths = await page.$$eval('.stacked-bar .seg', (els) => els.reduce((a, e) => a + e.getBoundingClientRect().width, 0));
    const barWidth = await page.$eval('.stacked-bar', (e) => e.clientWidth);
    assert.ok(widths <= barWidth + 2, 'the bar does not spill over');
  });

  it('draws every owner to scale and nothing for an owner with no tokens', async () => {
    const small = { contextWindow: 32_000, maxOutputTokens: 4_000, components: { system: 231, skills: 0, tools: 0, messages: 3, toolResults: 0, summaries: 0 } };
    await hostSends(page, { type: 'state', state: { ...inspectorState, figures: figuresOf(small) } });
    const drawn = await page.$$eval('.stacked-bar .seg', (els) => els.map((e) => ({ name: e.getAttribute('data-segment'), width: e.getBoundingClientRect().width })));
    assert.deepStrictEqual(drawn.map((d) => d.name), ['system', 'messages', 'free', 'reserve']);
    const barWidth = await page.$eval('.stacked-bar', (e) => e.clientWidth);
    const width = (name: string) => drawn.find((d) => d.name === name)!.width;
    assert.ok(Math.abs(width('system') - (231 / 32_000) * barWidth) < 1, `System is drawn ${width('system')} px wide, its share of ${barWidth} px`);
    assert.ok(width('messages') < width('system'), `3 tokens (${width('messages')} px) are drawn narrower than 231 (${width('system')} px)`);
    assert.ok(Math.abs(width('reserve') - (4_000 / 32_000) * barWidth) < 1, 'the reserve is its share too');
  });

  it('labels replays and shows the 128K fallback warning', async () => {
    await hostSends(page, { type: 'state', state: { ...inspectorState, replayLabel: 'swe-agent trajectory django-11099.traj', figures: { ...inspectorState.figures!, warning: 'Unknown context window for "local-model": assuming 128K.' } } });
    assert.match((await page.textContent('.replay-label')) ?? '', /Replay of a recorded run: swe-agent trajectory/);
    assert.match((await page.textContent('[data-warning="window"]')) ?? '', /assuming 128K/);
  });

  it('selecting a request posts selectRequest and lists the reply item by item, sortable by size', async () => {
    assert.strictEqual(await page.locator('.turn[data-request-index]').count(), inspectorState.requests.length);
    assert.strictEqual(await page.getAttribute('.turn[data-request-index="4"]', 'data-compaction'), 'cmp-1', 'the compaction is marked');
    await clearPosted(page);
    await page.click('.turn[data-request-index="3"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'selectRequest', requestIndex: 3 }]);
    await hostSends(page, { type: 'requestItems', requestIndex: 3, items: requestItems });
    const rows = page.locator('.turn-slot .item');
    assert.strictEqual(await rows.count(), requestItems.length);
    const first = await rows.nth(4).textContent();
    assert.match(first ?? '', /tool/);
    assert.match(first ?? '', /tool_result · run_command/);
    assert.match(first ?? '', /31,000 tok/);
    assert.match(first ?? '', /truncated/);
    assert.match(first ?? '', /offloaded/);
    assert.match(first ?? '', /1,204 lines omitted/);
    await page.click('.turn-slot vscode-button[data-sort="size"]');
    const sizes = await page.$$eval('.turn-slot .item', (els) => els.map((e) => Number(e.getAttribute('data-tokens'))));
    assert.deepStrictEqual(sizes, [...sizes].sort((a, b) => b - a));
    assert.strictEqual(sizes[0], 31_000);
    await page.click('.turn-slot vscode-button[data-sort="position"]');
    const positions = await page.$$eval('.turn-slot .item', (els) => els.map((e) => Number(e.getAttribute('data-position'))));
    assert.deepStrictEqual(positions, [0, 1, 2, 3, 4, 5]);
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type !== 'selectRequest'), [], 'sorting is local');
  });

  it("a request's drill-down shows its reported input, cache reads and writes, output and reasoning, and why it missed the cache", async () => {
    const t3 = inspectorState.requests[3];
    await page.click('.turn[data-request-index="3"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 3, items: requestItems, cacheMiss: turnCacheMiss });
    const usage = `${t3.reportedInputTokens!.toLocaleString('en-US')} in (${t3.cacheReadTokens!.toLocaleString('en-US')} cached, 1,200 written) · 850 out (610 reasoning)`;
    assert.strictEqual(await page.textContent('.turn-slot [data-field="usage"]'), usage);
    const miss = page.locator('.turn-slot [data-field="cache-miss"]');
    assert.strictEqual(await miss.getAttribute('data-cause'), 'agents-md');
    assert.strictEqual(await miss.textContent(), 'Cache 31%, down from 68% at #2: AGENTS.md changed; 58,200 tokens sent before went uncached.');
    assert.match((await page.getAttribute('.turn[data-request-index="3"]', 'title')) ?? '', /Reported output: 850 \(610 reasoning\)/);
    // The request row whose cached share fell is marked in the timeline; the others are not.
    assert.deepStrictEqual(await page.$$eval('.turn:has([data-cache-fell])', (els) => els.map((e) => e.getAttribute('data-request-index'))), ['3']);
    assert.match((await page.getAttribute('.turn[data-request-index="3"]', 'title')) ?? '', /Cached share fell from 68% at #2 to 31%: open the request to see why/);
    assert.match((await page.textContent('.timeline-wrap .hint')) ?? '', /1 of those shown read less from the cache than the request before \(marked ↓\)/);

    // Request #3 again, with no cause from the host (only new tokens went uncached): the drop is explained as that.
    await page.click('.turn[data-request-index="2"]');
    await page.click('.turn[data-request-index="3"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 3, items: requestItems });
    assert.strictEqual(await page.locator('.turn-slot [data-field="cache-miss"]').count(), 0);
    assert.strictEqual(await page.textContent('.turn-slot [data-field="cache-share"]'), 'Cache 31%, down from 68% at #2: nothing sent before went uncached; the new tokens were not in the cache yet.');

    // A request whose cache held shows no cause; one the provider reported nothing for says so.
    await page.click('.turn[data-request-index="2"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 2, items: requestItems });
    assert.strictEqual(await page.locator('.turn-slot [data-field="cache-miss"], .turn-slot [data-field="cache-share"]').count(), 0);
    assert.doesNotMatch((await page.textContent('.turn-slot [data-field="usage"]')) ?? '', /written|reasoning/);
    const silent = inspectorState.requests.map((t) => (t.requestIndex === 1 ? { requestIndex: 1, createdAt: t.createdAt, components: t.components, estimatedInputTokens: 4_000 } : t));
    await hostSends(page, { type: 'state', state: { ...inspectorState, requests: silent } });
    await page.click('.turn[data-request-index="1"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 1, items: requestItems });
    assert.strictEqual(await page.textContent('.turn-slot [data-field="usage"]'), '4,000 in (estimated; the provider reported no usage)');
  });

  it('ignores a late reply for a request that is no longer selected', async () => {
    await page.click('.turn[data-request-index="1"]');
    await page.click('.turn[data-request-index="2"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 1, items: requestItems });
    assert.strictEqual(await page.locator('.turn-slot .item').count(), 0);
  });

  it('pins and unpins items of the next request', async () => {
    await clearPosted(page);
    await page.click('vscode-button[data-pin="a-41"]');
    await page.click('vscode-button[data-pin="u-40"]');
    assert.deepStrictEqual(await posted(page), [
      { type: 'pin', messageId: 'a-41', pinned: true },
      { type: 'pin', messageId: 'u-40', pinned: false },
    ]);
    assert.strictEqual((await page.textContent('vscode-button[data-pin="u-40"]'))?.trim(), 'Unpin');
  });

  it('shows host errors and renders hostile text as text', async () => {
    await hostSends(page, { type: 'error', message: 'Compaction failed: the summary model timed out' });
    assert.match((await page.textContent('.error-line')) ?? '', /summary model timed out/);
    const hostile = '<img src=x onerror="window.__pwned=1">';
    await hostSends(page, { type: 'state', state: { ...inspectorState, session: { id: 's-1', title: hostile }, current: [{ ...inspectorState.current[0], preview: hostile }] } });
    assert.strictEqual(await page.locator('#app img').count(), 0);
    assert.strictEqual(await page.textContent('h1'), hostile);
    assert.strictEqual(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  });

  it('says every window figure the way the host computed it: the header, the bar markers and the legend agree', async () => {
    await hostSends(page, { type: 'state', state: inspectorState });
    const f = inspectorState.figures!;
    assert.strictEqual(await page.textContent('[data-fact="used"] .fact-value'), f.text.used);
    assert.strictEqual(await page.textContent('[data-fact="compact-at"] .fact-value'), '174,800 tokens = 95% of the effective window (184,000)');
    assert.strictEqual(await page.textContent('[data-fact="block-at"] .fact-value'), f.text.blockAt);
    assert.match((await page.textContent('[data-fact="last-request"]')) ?? '', /Last request \(#5\).*\d/);
    assert.strictEqual(await page.getAttribute('.marker[data-marker="compact"]', 'title'), `Compaction threshold: ${f.text.compactAt}`);
    assert.match((await page.textContent('.legend [data-legend="compact-at"]')) ?? '', /174,800\s*95%/);
  });

  it('shows the reported figure with the estimate beside it in the header, the next-request list and the history, never one alone', async () => {
    // The provider counts more than Tally's tokenizer: the items add up to the estimate.
    const estimated = inspectorState.current.reduce((sum, i) => sum + i.tokens, 0);
    const budget = new ContextBudget({ contextWindow: 200_000, maxOutputTokens: 16_000, settings: DEFAULT_SETTINGS }).setComponents({ system: 0, skills: 0, tools: 0, messages: estimated + 154, toolResults: 0, summaries: 0 });
    budget.basis = 'reported';
    budget.estimatedTotal = estimated;
    const figures = windowFigures(budget, requestFigures(5, 2_823, 2_977));
    const recorded = { ...compaction, tokensBefore: 3_085, tokensAfter: 1_785, estimatedTokensBefore: 2_931, estimatedTokensAfter: 1_631 };
    await hostSends(page, { type: 'state', state: { ...inspectorState, figures, compactions: [compactionView(recorded)] } });
    const now = (await page.textContent('[data-fact="used"] .fact-value')) ?? '';
    assert.ok(now.startsWith(figures.text.used) && now.endsWith(`Tally's estimate ${estimated.toLocaleString('en-US')}`), now);
    assert.strictEqual(await page.textContent('[data-fact="last-request"] .fact-value'), "2,977 tokens (Tally's estimate 2,823)");
    const list = (await page.textContent('.current-slot .list-summary')) ?? '';
    assert.ok(list.endsWith(`${figures.used.toLocaleString('en-US')} tokens (Tally's estimate ${estimated.toLocaleString('en-US')})`), `the list leads with the header's figure: ${list}`);
    assert.match((await page.textContent('[data-compaction-id] summary')) ?? '', /3,085 → 1,785 tokens \(Tally's estimate 2,931 → 1,631\)/);
  });

  it('never clips a bar label: a narrow segment shows none (the legend and tooltip name it), a wide one its whole label', async () => {
    await hostSends(page, { type: 'state', state: inspectorState });
    await page.waitForFunction(() => document.querySelectorAll('.seg.seg-narrow').length > 0);
    const labels = await page.$$eval('.stacked-bar .seg', (els) => els.map((e) => ({ name: e.getAttribute('data-segment'), text: e.querySelector('.seg-label')?.textContent ?? '', full: e.querySelector('.seg-label')?.getAttribute('data-full'), title: e.getAttribute('title') ?? '' })));
    for (const l of labels) {
      assert.ok(l.text === '' || l.text === l.full, `${l.name}: "${l.text}" is its whole label or nothing`);
      assert.ok(!l.text.includes('…'));
      assert.ok(l.title.length > 0, 'every segment has a tooltip');
    }
    assert.strictEqual(labels.find((l) => l.name === 'skills')!.text, '', 'the 1,800-token skills segment is too narrow for a label');
    assert.match(labels.find((l) => l.name === 'toolResults')!.text, /^Tool results 61\.?2?K$/);
    const clipped = await page.$$eval('.seg-label', (els) => els.filter((e) => e.textContent && e.scrollWidth > e.clientWidth + 1).length);
    assert.strictEqual(clipped, 0, 'no label overflows its chip');
  });

  it('shows the latest request first in the timeline, which scrolls', async () => {
    await hostSends(page, { type: 'state', state: inspectorState });
    const order = await page.$$eval('.timeline .turn', (els) => els.map((e) => Number(e.getAttribute('data-request-index'))));
    assert.deepStrictEqual(order, [5, 4, 3, 2, 1, 0]);
    assert.strictEqual(await page.$eval('.timeline', (e) => getComputedStyle(e).overflowX), 'auto');
  });

  it('lists removed items with their role once, never "user user"; a summary opens in an editor', async () => {
    await page.locator('.compaction[data-compaction-id="cmp-1"] summary').click();
    await clearPosted(page);
    await page.click('vscode-button[data-open-summary="cmp-1"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'openSummary', compactionId: 'cmp-1' }]);
    const labels = await page.$$eval('.compaction[data-compaction-id="cmp-1"] .removed-item .item-kind', (els) => els.map((e) => e.textContent));
    assert.deepStrictEqual(labels, ['tool result · run_command', 'tool result · read_file', 'assistant']);
    await page.locator('.compaction[data-compaction-id="cmp-1"] summary').click();
  });

  it('counts tokens by tool source and tool: schemas when the request lists them, results always', async () => {
    await hostSends(page, { type: 'state', state: inspectorState });
    assert.match((await page.textContent('.tool-slot')) ?? '', /does not list them tool by tool/);
    assert.match((await page.textContent('.tool-slot')) ?? '', /Origin unknown \(this record does not say which extension or server offered them\)/);
    assert.doesNotMatch((await page.textContent('.tool-slot')) ?? '', /source not recorded/);
    assert.match((await page.textContent('.tool-slot [data-tool="run_command"]')) ?? '', /run_command/);
    const schema = (tool: string, source: string, tokens: number) => ({ messageId: `schema-${tool}`, role: 'system', kind: 'tool-schema', tokens, toolName: tool, source, badges: [], preview: '' });
    const current = [
      ...inspectorState.current,
      schema('run_command', 'built-in', 300),
      schema('github_search', 'MCP: github', 2_400),
      schema('github_issue', 'MCP: github', 1_900),
    ] as typeof inspectorState.current;
    await hostSends(page, { type: 'state', state: { ...inspectorState, current } });
    const sources = await page.$$eval('.tool-slot [data-tool-source]', (els) => els.map((e) => e.getAttribute('data-tool-source')));
    assert.strictEqual(sources.filter((s) => s === 'MCP: github').length, 1);
    assert.match((await page.textContent('.tool-slot [data-tool-source="MCP: github"]')) ?? '', /4,300/);
    // With the tool framing listed, each tool's figure is what offering it adds (its schema and its share of the framing), as Configure Tools says.
    const framing = { messageId: 'framing:tools', role: 'tools', kind: 'framing', tokens: 24, section: 'tools', badges: [], preview: '8 tokens per tool × 3 tools' };
    await hostSends(page, { type: 'state', state: { ...inspectorState, current: [...current, framing] as typeof inspectorState.current } });
    assert.strictEqual(await page.textContent('.tool-slot [data-tool="run_command"] td.num'), '308');
    assert.match((await page.textContent('.tool-slot [data-tool-source="MCP: github"]')) ?? '', /4,316/);
    // A group's Offered figure is its tools' (what Configure Tools shows beside the group's name); results are not in it.
    assert.strictEqual(await page.textContent('.tool-slot [data-tool-source="MCP: github"] [data-figure="offered"]'), '4,316');
    assert.strictEqual(await page.textContent('.tool-slot [data-tool-source="built-in"] [data-figure="offered"]'), '308');
    assert.doesNotMatch((await page.textContent('.tool-slot')) ?? '', /does not list them/);
    await hostSends(page, { type: 'state', state: inspectorState });
  });
});
