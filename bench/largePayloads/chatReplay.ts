/**
 * The chat webview's half of the large-payload bench: the posts a host run recorded (hostRun.ts)
 * replayed into the real chat bundle in headless Chromium (test/webview/harness.ts, the host's CSP),
 * as VS Code delivers them (window `message` events), while a PerformanceObserver collects long
 * tasks (over 50 ms). Reported per phase: the longest task (0 when none passed 50 ms) and the time
 * from the phase's first message to the first frame that shows the answer's entry.
 *   stream: the turn's posts (deltas, updates) delivered as fast as the page takes them;
 *   expand: the user opens the thinking (when the entry has one);
 *   reload: a fresh page given the whole state the host sends a reloaded webview.
 */
import type { Page } from 'playwright-core';
import type { Harness } from '../../test/webview/harness';

export interface RecordedChat {
  first: unknown;
  turn: unknown[];
  reload: unknown[];
}

export interface PhaseFigures {
  longestTaskMs: number;
  /** From the phase's first message to the first frame showing the answer's entry; undefined when no entry showed. */
  firstPaintMs?: number;
}

export interface ReplayFigures {
  stream: PhaseFigures;
  expand?: PhaseFigures;
  reload: PhaseFigures;
}

const ENTRY = '[data-kind="assistant"]';

/**
 * Delivers `messages` in the page and reports its longest task and when the entry first showed.
 * The messages reach the page in a task of their own first: taking a 20 MB argument from the
 * debugger is the bench's work, not the chat's.
 */
async function deliver(page: Page, messages: unknown[], entrySelector: string): Promise<PhaseFigures> {
  await page.evaluate((m) => void ((window as unknown as { __replay: unknown[] }).__replay = m), messages);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  return page.evaluate(
    (entrySelector) =>
      new Promise<PhaseFigures>((resolve) => {
        const messages = (window as unknown as { __replay: unknown[] }).__replay;
        let longest = 0;
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration);
        });
        observer.observe({ type: 'longtask', buffered: false });
        const started = performance.now();
        let firstPaintMs: number | undefined;
        let delivered = false;
        const watch = () => {
          if (firstPaintMs === undefined && document.querySelector(entrySelector)) firstPaintMs = performance.now() - started;
          if (delivered && firstPaintMs !== undefined) return;
          requestAnimationFrame(watch);
        };
        requestAnimationFrame(watch);
        // Yield between batches through a message port (no timer clamping), so frames can run.
        const channel = new MessageChannel();
        let at = 0;
        const next = () => {
          const end = Math.min(messages.length, at + 16);
          for (; at < end; at++) window.postMessage(messages[at], '*');
          if (at < messages.length) {
            channel.port2.postMessage(null);
            return;
          }
          delivered = true;
          (window as unknown as { __replay?: unknown[] }).__replay = undefined;
          // Two frames after the last message: its drawing and layout have run.
          requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
            observer.takeRecords().forEach((entry) => (longest = Math.max(longest, entry.duration)));
            observer.disconnect();
            resolve({ longestTaskMs: Math.round(longest), ...(firstPaintMs === undefined ? {} : { firstPaintMs: Math.round(firstPaintMs) }) });
          }, 0)));
        };
        channel.port1.onmessage = next;
        next();
      }),
    entrySelector,
  );
}

/** Clicks the thinking's summary and reports the longest task until its text is laid out. */
async function expandThinking(page: Page): Promise<PhaseFigures | undefined> {
  if ((await page.locator(`${ENTRY} details.thinking > summary`).count()) === 0) return undefined;
  return page.evaluate(
    (selector) =>
      new Promise<PhaseFigures>((resolve) => {
        let longest = 0;
        const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => (longest = Math.max(longest, e.duration))));
        observer.observe({ type: 'longtask', buffered: false });
        const started = performance.now();
        (document.querySelector(selector) as HTMLElement).click();
        requestAnimationFrame(() => {
          const firstPaintMs = performance.now() - started;
          requestAnimationFrame(() => setTimeout(() => {
            observer.takeRecords().forEach((e) => (longest = Math.max(longest, e.duration)));
            observer.disconnect();
            resolve({ longestTaskMs: Math.round(longest), firstPaintMs: Math.round(firstPaintMs) });
          }, 0));
        });
      }),
    `${ENTRY} details.thinking > summary`,
  );
}

export async function replayChat(harness: Harness, recorded: RecordedChat): Promise<ReplayFigures> {
  const page = await harness.open('chat');
  try {
    await deliver(page, [recorded.first], 'body');
    const stream = await deliver(page, recorded.turn, ENTRY);
    const expand = await expandThinking(page);
    const reloaded = await harness.open('chat');
    try {
      const reload = await deliver(reloaded, recorded.reload, ENTRY);
      return { stream, ...(expand ? { expand } : {}), reload };
    } finally {
      await reloaded.close();
    }
  } finally {
    await page.close();
  }
}
