import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { CompactionEventRecord } from '../../src/core/model/records';
import { chatCompactionRecord, type ChatState } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, errorsIn, hostSends, posted, useHarness } from './harness';

const SCREENSHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const T0 = Date.UTC(2026, 10, 26, 9, 0);

const rewound: CompactionEventRecord = {
  id: 'c-rw', sessionId: 's-1', trigger: 'rewind', status: 'complete', strategies: [], tokensBefore: 41_200, tokensAfter: 12_800,
  estimatedTokensBefore: 40_900, estimatedTokensAfter: 12_700, messagesBefore: 18, messagesAfter: 4, startedAt: T0, durationMs: 0, removed: [],
  step: { kind: 'rewind', messageId: 'u-2', checkpointId: 'k1', files: ['src/config/load.ts', 'test/config.test.ts'] },
};
const restored: CompactionEventRecord = { ...rewound, id: 'c-rs', trigger: 'restore', messagesAfter: 18, tokensAfter: 41_200, estimatedTokensAfter: 40_900, step: { kind: 'restore', messageId: 'u-1', checkpointId: 'k0', files: ['src/config/load.ts', 'README.md', 'package.json'] } };

/** A finished session: two turns that changed files (one of them partly unrestorable), a rewind and a restore. */
function state(busy: boolean): ChatState {
  return {
    ...chatState,
    busy,
    entries: [
      { kind: 'user', id: 'u-1', text: 'The config tests fail after my refactor. Can you fix them?' },
      { kind: 'assistant', id: 'a-1', text: 'I fixed the loader and updated the test.', toolCalls: [] },
      { kind: 'user', id: 'u-2', text: 'Now run the whole suite and fix what breaks.', setAside: true },
      { kind: 'assistant', id: 'a-2', text: 'All 212 tests pass.', toolCalls: [], setAside: true },
      { kind: 'compaction', id: 'c-rw', record: chatCompactionRecord(rewound), headline: 'Rewound to before “Now run the whole suite and fix what breaks.” · 14 messages set aside · 2 files restored' },
      { kind: 'compaction', id: 'c-rs', record: chatCompactionRecord(restored), headline: 'Restored 3 files to before “The config tests fail after my refactor. Can…”' },
      { kind: 'user', id: 'u-3', text: 'Run only the config tests.' },
    ],
    turnFiles: [
      { messageId: 'u-1', files: 3 },
      { messageId: 'u-2', files: 5, problem: 'Files this command changes may not all be restorable: the workspace has more than 20,000 files.' },
    ],
  };
}

describe('chat: restore and rewind actions on turns (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = useHarness();
  before(() => mkdirSync(SCREENSHOTS, { recursive: true }));

  async function open(theme: 'dark' | 'light', busy: boolean): Promise<Page> {
    const page = await pages.open('chat', { theme, width: 460, height: 900 });
    await hostSends(page, { type: 'state', state: state(busy) });
    return page;
  }

  async function done(page: Page): Promise<void> {
    assert.deepStrictEqual(await cspViolations(page), []);
    assert.deepStrictEqual(errorsIn(page), []);
    await page.close();
  }

  it('a replayed recording (the demo) is read-only: no Rewind and no Restore files on its messages', async () => {
    const page = await pages.open('chat', { theme: 'dark', width: 460, height: 900 });
    try {
      await hostSends(page, { type: 'state', state: { ...state(false), replay: true } });
      assert.equal(await page.locator('.entry.user').count(), 3);
      assert.equal(await page.locator('[data-turn-actions]').count(), 0, 'no action row on a replayed message');
    } finally {
      await done(page);
    }
  });

  it('offers Rewind on every sent message and Restore files (N) on turns that changed files; each posts the message id alone', async () => {
    const page = await open('dark', false);
    try {
      assert.equal(await page.locator('[data-turn-actions] [data-action="rewind"]').count(), 2, 'every sent message in the context offers Rewind');
      assert.equal(await page.locator('[data-turn-actions="u-2"] [data-action="rewind"]').count(), 0, 'a message a rewind set aside does not');
      assert.equal(await page.locator('.entry[data-entry-id="u-2"] .set-aside-label').textContent(), 'set aside');
      assert.equal(await page.locator('.entry[data-entry-id="a-2"] .set-aside-label').textContent(), 'set aside');
      const restore = page.locator('[data-turn-actions="u-1"] [data-action="restore-files"]');
      assert.equal(await restore.textContent(), 'Restore files (3)');
      assert.equal(await page.locator('[data-turn-actions="u-3"] [data-action="restore-files"]').count(), 0, 'a turn that changed nothing offers no restore');
      assert.match((await page.locator('[data-turn-actions="u-2"] .turn-files-problem').textContent()) ?? '', /may not all be restorable: the workspace has more than 20,000 files/);
      await clearPosted(page);
      await restore.click();
      await page.locator('[data-turn-actions="u-3"] [data-action="rewind"]').click();
      assert.deepStrictEqual(await posted(page), [{ type: 'restoreFiles', messageId: 'u-1' }, { type: 'rewind', messageId: 'u-3' }]);
    } finally {
      await done(page);
    }
  });

  it('says what a rewind and a restore did, with the same count in the notice and its details', async () => {
    const page = await open('dark', false);
    try {
      const notice = page.locator('[data-kind="compaction"][data-entry-id="c-rw"]');
      assert.equal(await notice.locator('.notice-headline').textContent(), 'Rewound to before “Now run the whole suite and fix what breaks.” · 14 messages set aside · 2 files restored');
      await notice.locator('summary').click();
      assert.equal(await notice.locator('[data-set-aside]').getAttribute('data-set-aside'), '14');
      assert.equal(await notice.locator('[data-files-restored]').textContent(), 'src/config/load.ts, test/config.test.ts');
      assert.equal(await page.locator('[data-entry-id="c-rs"] .notice-headline').textContent(), 'Restored 3 files to before “The config tests fail after my refactor. Can…”');
    } finally {
      await done(page);
    }
  });

  it('disables both actions while a turn runs, and says why', async () => {
    const page = await open('dark', true);
    try {
      const rewind = page.locator('[data-turn-actions="u-1"] [data-action="rewind"]');
      assert.equal(await rewind.getAttribute('disabled'), '');
      assert.match((await rewind.getAttribute('title')) ?? '', /A turn is running/);
      await clearPosted(page);
      await rewind.click({ force: true });
      await page.locator('[data-turn-actions="u-1"] [data-action="restore-files"]').click({ force: true });
      assert.deepStrictEqual(await posted(page), [], 'nothing is posted while busy');
      await hostSends(page, { type: 'state', state: state(false) });
      assert.equal(await page.locator('[data-turn-actions="u-1"] [data-action="rewind"]').getAttribute('disabled'), null, 'enabled again when the turn ends');
    } finally {
      await done(page);
    }
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`after a restore the turn says "Files restored" with the time instead of offering the restore again (${theme}, screenshot)`, async () => {
      const page = await open(theme, false);
      try {
        const at = T0 + 5 * 60_000;
        await hostSends(page, { type: 'state', state: { ...state(false), turnFiles: [{ messageId: 'u-1', files: 3, restoredAt: at }, { messageId: 'u-2', files: 5, restoredAt: at }] } });
        const row = page.locator('[data-turn-actions="u-1"]');
        assert.equal(await row.locator('[data-action="restore-files"]').count(), 0, 'no Restore files once restored');
        const expected = await page.evaluate((t) => new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }), at);
        assert.equal(await row.locator('.turn-files-restored').textContent(), `✓ Files restored ${expected}`);
        assert.equal(await row.locator('.turn-files-restored').getAttribute('data-restored-at'), String(at));
        assert.equal(await row.locator('[data-action="rewind"]').count(), 1, 'Rewind stays');
        assert.ok((await textContrast(row.locator('.turn-files-restored'))) >= 4.5, 'the note is readable');
        await page.screenshot({ path: path.join(SCREENSHOTS, `turn-actions-restored-${theme}.png`), fullPage: true });
      } finally {
        await done(page);
      }
    });
  }

  it('puts a rewound message back in the composer', async () => {
    const page = await open('dark', false);
    try {
      await hostSends(page, { type: 'editText', text: 'Now run the whole suite and fix what breaks.' });
      const value = await page.locator('.composer-input').evaluate((e) => (e as unknown as { value: string }).value);
      assert.equal(value, 'Now run the whole suite and fix what breaks.');
    } finally {
      await done(page);
    }
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the turn actions and the rewind notice readably in the ${theme} theme (screenshot)`, async () => {
      const page = await open(theme, false);
      try {
        await page.locator('[data-entry-id="c-rw"] summary').click();
        await page.screenshot({ path: path.join(SCREENSHOTS, `turn-actions-${theme}.png`), fullPage: true });
        assert.ok((await textContrast(page.locator('[data-turn-actions="u-2"] .turn-files-text'))) >= 4.5, 'the problem note is readable');
        assert.ok((await textContrast(page.locator('[data-entry-id="c-rw"] .notice-headline'))) >= 4.5, 'the notice is readable');
        assert.ok((await textContrast(page.locator('.entry[data-entry-id="u-2"] .set-aside-label'))) >= 4.5, 'the set-aside label is readable');
        const busy = await open(theme, true);
        await busy.screenshot({ path: path.join(SCREENSHOTS, `turn-actions-busy-${theme}.png`), fullPage: true });
        await done(busy);
      } finally {
        await done(page);
      }
    });
  }
});
