import * as assert from 'assert';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { hostSends, usePage } from './harness';

/** A long conversation with nothing waiting for the user. */
const history: ChatEntry[] = Array.from({ length: 40 }, (_, i): ChatEntry =>
  i % 2 === 0 ? { kind: 'user', id: `u-${i}`, text: `Question ${i}: what does step ${i} do?` } : { kind: 'assistant', id: `a-${i}`, text: `Step ${i} reads the config.\n\n${'A line of explanation.\n\n'.repeat(4)}`, toolCalls: [] },
);
const longSession: ChatState = { ...chatState, busy: true, entries: history };

/**
 * Waits until the layout settles: the conversation's height and the scroll position unchanged over
 * three frames (entries are laid out as they come into view, and following a resize takes a frame).
 */
async function settled(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const s = document.querySelector('.scroller')!;
        let last = '';
        let same = 0;
        let frames = 0;
        const tick = () => {
          const now = `${s.scrollHeight}:${s.scrollTop}`;
          same = now === last ? same + 1 : 0;
          last = now;
          if (same >= 3 || ++frames > 120) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
}

/** Pixels between the bottom of the view and the end of the conversation. */
function belowTheFold(page: Page): Promise<number> {
  return page.evaluate(() => {
    const s = document.querySelector('.scroller')!;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  });
}

/** Whether an element is wholly inside the chat's visible area. */
function inView(page: Page, selector: string): Promise<true | string> {
  return page.evaluate((sel) => {
    const view = document.querySelector('.scroller')!.getBoundingClientRect();
    const box = document.querySelector(sel)!.getBoundingClientRect();
    return box.height > 0 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1 ? true : `${sel} spans ${box.top}–${box.bottom} px, the view ${view.top}–${view.bottom} px`;
  }, selector);
}

describe('the chat follows new output (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', longSession, { width: 460, height: 600 });
  let page: Page;
  beforeEach(async () => {
    page = pages.page();
    await settled(page);
  });

  it('opens a long session at its end', async () => {
    assert.ok((await belowTheFold(page)) < 40, `the end is ${await belowTheFold(page)} px below the fold`);
  });

  it('keeps a streamed reply in view to its last line while the user is at the bottom', async () => {
    for (let i = 0; i < 60; i++) await hostSends(page, { type: 'delta', entryId: 'streaming', text: `Line ${i} of the answer.\n\n` });
    await settled(page);
    assert.ok((await belowTheFold(page)) < 40, `the reply ends ${await belowTheFold(page)} px below the fold`);
    assert.strictEqual(await inView(page, '[data-entry-id="streaming"] .entry-body p:last-of-type'), true, 'the last streamed line is visible');
  });

  it('lets the user read earlier messages while the reply streams, and follows again at the bottom', async () => {
    await page.evaluate(() => {
      document.querySelector('.scroller')!.scrollTop = 0;
    });
    await settled(page);
    for (let i = 0; i < 20; i++) await hostSends(page, { type: 'delta', entryId: 'streaming', text: `Line ${i}.\n\n` });
    await settled(page);
    assert.strictEqual(await page.evaluate(() => document.querySelector('.scroller')!.scrollTop), 0, 'the view stays where the user put it');
    await page.evaluate(() => {
      const s = document.querySelector('.scroller')!;
      s.scrollTop = s.scrollHeight;
    });
    await settled(page);
    for (let i = 20; i < 40; i++) await hostSends(page, { type: 'delta', entryId: 'streaming', text: `Line ${i}.\n\n` });
    await settled(page);
    assert.ok((await belowTheFold(page)) < 40, 'back at the bottom, the view follows again');
  });

  it('brings a command waiting for approval into view, buttons included, even when the user scrolled up', async () => {
    await page.evaluate(() => {
      document.querySelector('.scroller')!.scrollTop = 0;
    });
    await settled(page);
    const waiting: ChatEntry = {
      kind: 'assistant',
      id: 'a-run',
      text: 'I will run the tests.',
      toolCalls: [{ callId: 'call_run', name: 'run_command', arguments: '{"command":"npm test"}', status: 'awaiting_approval', approval: { title: 'Run `npm test` in .', detail: 'npm test', kind: 'command' } }],
    };
    await hostSends(page, { type: 'state', state: { ...longSession, entries: [...history, waiting] } });
    await settled(page);
    assert.strictEqual(await inView(page, '[data-approve="call_run"]'), true, 'the Approve button is on screen');
    assert.strictEqual(await inView(page, '[data-deny="call_run"]'), true, 'the Deny button is on screen');
  });

  it('opens a resumed session at its end', async () => {
    await page.evaluate(() => {
      document.querySelector('.scroller')!.scrollTop = 0;
    });
    await hostSends(page, { type: 'state', state: { ...longSession, sessionId: 's-0', entries: history.map((e) => ({ ...e, id: `${e.id}-old` })) } });
    await settled(page);
    assert.ok((await belowTheFold(page)) < 40, `the resumed session's end is ${await belowTheFold(page)} px below the fold`);
  });
});
