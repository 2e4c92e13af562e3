/**
 * What a refresh costs inside the webviews (headless Chromium, the real bundles and styles): the
 * inspector of a session with 10 and with 10,000 requests (500 items in the next request, 10 and
 * 2,000 offloaded results), and the chat of 10, 200 (a page) and 10,000 entries. After the whole first state,
 * each round the host sends the view an update as it does after each agent step (one more request
 * and two more items; one more entry), carrying only what changed; the time is from the message
 * to the end of layout (handling, drawing, style and layout), median of 15 rounds after 3 warm-ups.
 * Writes bench/results/webviewRender.json. Build first: node scripts/build.mjs
 * Run: node -r ./test/register.cjs bench/webviewRender.bench.ts
 */
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatState } from '../src/protocol/chat';
import type { InspectorState, RequestView } from '../src/protocol/inspector';
import { chatState, inspectorState } from '../test/webview/fixtures';
import { hostSends, startHarness } from '../test/webview/harness';
import { median } from './median';

const WARMUP = 3;
const ROUNDS = 15;

/** Posts a message to the page and measures until the page has handled it and laid itself out. */
function timedMessage(page: Page, message: unknown): Promise<number> {
  return page.evaluate(
    (m) =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        window.postMessage(m, '*');
        // Queued after the message event: runs once the page has handled it.
        setTimeout(() => {
          void document.body.offsetHeight; // style and layout of what was drawn
          resolve(performance.now() - started);
        }, 0);
      }),
    message,
  );
}

function inspectorOf(requests: number, blobs: number): InspectorState {
  const turn = inspectorState.requests[0];
  const item = inspectorState.current[inspectorState.current.length - 1];
  return {
    ...inspectorState,
    requests: Array.from({ length: requests }, (_, i): RequestView => ({ ...turn, requestIndex: i, createdAt: turn.createdAt + i, estimatedInputTokens: 20_000 + (i % 500) * 100, compactionId: undefined })),
    current: Array.from({ length: 500 }, (_, i) => ({ ...item, messageId: `m${i}`, tokens: 10 + ((i * 37) % 900) })),
    blobs: Array.from({ length: blobs }, (_, i) => ({ ...inspectorState.blobs[0], id: `res_${i}`, createdAt: inspectorState.blobs[0].createdAt + i })),
    blobTitles: {},
  };
}

function chatOf(entries: number): ChatState {
  return { ...chatState, busy: false, entries: Array.from({ length: entries }, (_, i): ChatEntry => (i % 2 ? { kind: 'assistant', id: `a${i}`, text: `Step ${i}: **checked** the next module.`, toolCalls: [] } : { kind: 'user', id: `u${i}`, text: `Request ${i}` })) };
}

async function measure(page: Page, first: unknown, next: (round: number) => unknown): Promise<number> {
  await hostSends(page, first);
  const times: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const ms = await timedMessage(page, next(round));
    if (round >= WARMUP) times.push(ms);
  }
  return median(times);
}

async function main() {
  const harness = await startHarness();
  const rows: Array<{ view: string; size: number; medianMs: number }> = [];
  try {
    for (const [requests, blobs] of [[10, 10], [10_000, 2_000]]) {
      const page = await harness.open('inspector');
      const base = inspectorOf(requests, blobs);
      const turn = base.requests[base.requests.length - 1];
      const item = base.current[base.current.length - 1];
      const { requests: _turns, current: _current, blobs: _blobs, blobTitles: _titles, ...rest } = base;
      const medianMs = await measure(page, { type: 'state', state: base }, (round) => ({
        type: 'update',
        state: rest,
        requests: { keep: requests + round, tail: [`r${requests + round}`], upserts: [{ ...turn, requestIndex: requests + round, createdAt: turn.createdAt + round + 1 }] },
        current: { keep: base.current.length + 2 * round, tail: [`n${round}a`, `n${round}b`], upserts: [{ ...item, messageId: `n${round}a` }, { ...item, messageId: `n${round}b` }] },
        blobs: { keep: blobs, tail: [], upserts: [] },
      }));
      rows.push({ view: 'inspector', size: requests, medianMs: +medianMs.toFixed(2) });
      await page.close();
    }
    for (const entries of [10, 200, 10_000]) {
      const page = await harness.open('chat');
      const base = chatOf(entries);
      const { entries: _entries, ...rest } = base;
      const medianMs = await measure(page, { type: 'state', state: base }, (round) => ({
        type: 'update',
        state: rest,
        patch: { keep: entries + round, tail: [`user:n${round}`], upserts: [{ kind: 'user', id: `n${round}`, text: `New request ${round}` }] },
      }));
      rows.push({ view: 'chat', size: entries, medianMs: +medianMs.toFixed(2) });
      await page.close();
    }
  } finally {
    await harness.close();
  }
  console.table(rows);
  const ratio = (view: string) => {
    const of = rows.filter((r) => r.view === view);
    return +(of[of.length - 1].medianMs / of[0].medianMs).toFixed(2);
  };
  const result = { date: new Date().toISOString(), rounds: ROUNDS, rows, largeOverSmall: { inspector: ratio('inspector'), chat: ratio('chat') }, targets: { refreshMs: 10 } };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'webviewRender.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`10,000 over 10: inspector ${result.largeOverSmall.inspector}×, chat ${result.largeOverSmall.chat}×`);
}

void main();
