import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import { chatCompactionRecord, type ChatState } from '../../src/protocol/chat';
import type { CompactionEventRecord } from '../../src/protocol/records';
import { textContrast } from './contrast';
import { compactionView } from '../../src/protocol/inspector';
import { chatState, inspectorState, requestItems } from './fixtures';
import { ARTIFACTS, clearPosted, cspViolations, errorsIn, hostSends, posted, useHarness } from './harness';

const SHOTS = path.join(ARTIFACTS, '..', 'screenshots');
const request3 = inspectorState.requests.find((t) => t.requestIndex === 3)!;
/** The fork's first entry, as the host stores it: request #3's reported figure before, the fork's own count after. */
const forkEntry: CompactionEventRecord = {
  id: 'c-fork',
  sessionId: 's-fork',
  trigger: 'fork',
  status: 'complete',
  strategies: [],
  tokensBefore: request3.reportedInputTokens!,
  tokensAfter: request3.estimatedInputTokens,
  estimatedTokensBefore: request3.estimatedInputTokens,
  estimatedTokensAfter: request3.estimatedInputTokens,
  messagesBefore: 5,
  messagesAfter: 5,
  startedAt: request3.createdAt + 3_600_000,
  durationMs: 0,
  removed: [],
  step: { kind: 'fork', fromSessionId: 's-1', fromRequestIndex: 3 },
};
const forkedChat: ChatState = {
  ...chatState,
  busy: false,
  sessionId: 's-fork',
  sessionTitle: 'Fork of Fix config loader tests at #3',
  entries: [
    { kind: 'user', id: 'u-40', text: 'Never touch the generated files in src/gen.' },
    { kind: 'assistant', id: 'a-41', text: 'Running the snapshot tests now.', toolCalls: [{ callId: 'call_1', name: 'run_command', arguments: '{"command":"npm test -- test/config.test.ts"}', status: 'done', resultPreview: 'FAIL test/config.test.ts\n  ● loads relative paths', truncated: true, offloadRef: 'res_a1', stored: { lines: 1_204, bytes: 48_213 } }] },
    { kind: 'compaction', id: forkEntry.id, record: chatCompactionRecord(forkEntry) },
  ],
};

describe('fork from a request: the inspector\'s action and the forked session\'s first view (headless Chromium, screenshots)', function () {
  this.timeout(60_000);
  const pages = useHarness();
  before(() => mkdirSync(SHOTS, { recursive: true }));

  for (const theme of ['dark', 'light'] as const) {
    it(`${theme}: a selected request offers "Fork from request #3", which asks the host for a fork of the session shown`, async () => {
      const page = await pages.open('inspector', { theme, width: 1100, height: 900 });
      try {
        await hostSends(page, { type: 'state', state: inspectorState });
        await page.click('[data-request-index="3"]');
        await hostSends(page, { type: 'requestItems', requestIndex: 3, items: requestItems });
        await clearPosted(page);
        const action = page.locator('.fork-action vscode-button[data-action="fork"]');
        assert.strictEqual((await action.textContent())?.trim(), 'Fork from request #3');
        // The list's system item is not a message: five of the six items are.
        assert.strictEqual(await page.textContent('.fork-action .muted'), 'new session with its 5 messages');
        assert.ok((await textContrast(page.locator('.fork-action .muted'))) >= 4.5, 'the note reads at 4.5:1');
        await page.locator('#requests').scrollIntoViewIfNeeded();
        await page.locator('#requests').screenshot({ path: path.join(SHOTS, `webview-fork-action-${theme}.png`) });
        await action.click();
        assert.deepStrictEqual(await posted(page), [{ type: 'forkFromRequest', sessionId: 's-1', requestIndex: 3 }]);
        assert.deepStrictEqual(await cspViolations(page), []);
        assert.deepStrictEqual(errorsIn(page), []);
      } finally {
        await page.close();
      }
    });

    it(`${theme}: the forked session opens in the chat with the carried messages, then where it was forked, with its own figure and the one request #3 reported`, async () => {
      const page = await pages.open('chat', { theme, width: 460, height: 640 });
      try {
        await hostSends(page, { type: 'state', state: forkedChat });
        const notice = page.locator('[data-entry-id="c-fork"]');
        assert.strictEqual(await notice.getAttribute('data-step'), 'fork');
        assert.strictEqual(await notice.locator('[data-field="fork"]').textContent(), `Forked from request #3 with 5 messages, ${request3.estimatedInputTokens.toLocaleString('en-US')} tokens (request #3: ${request3.reportedInputTokens!.toLocaleString('en-US')} as the provider counted)`);
        assert.ok((await textContrast(notice.locator('[data-field="fork"]'))) >= 4.5);
        await page.screenshot({ path: path.join(SHOTS, `webview-fork-chat-${theme}.png`) });
        assert.deepStrictEqual(await cspViolations(page), []);
        assert.deepStrictEqual(errorsIn(page), []);
      } finally {
        await page.close();
      }
    });
  }

  it('the inspector\'s history says where the session was forked in the chat notice\'s words, with no duration', async () => {
    const page = await pages.open('inspector');
    try {
      await hostSends(page, { type: 'state', state: { ...inspectorState, session: { id: 's-fork', title: 'Fork of Fix config loader tests at #3' }, compactions: [compactionView(forkEntry)] } });
      const row = page.locator('details.compaction[data-compaction-id="c-fork"] summary');
      assert.strictEqual(await row.locator('[data-field="fork"]').textContent(), `Forked from request #3 with 5 messages, ${request3.estimatedInputTokens.toLocaleString('en-US')} tokens (request #3: ${request3.reportedInputTokens!.toLocaleString('en-US')} as the provider counted)`);
      assert.doesNotMatch((await row.textContent()) ?? '', /\d ms\b|→/, 'no duration and no before → after');
    } finally {
      await page.close();
    }
  });

  it('no fork is offered on a replay of a recorded run', async () => {
    const page = await pages.open('inspector');
    try {
      await hostSends(page, { type: 'state', state: { ...inspectorState, replayLabel: 'run.jsonl' } });
      await page.click('[data-request-index="3"]');
      await hostSends(page, { type: 'requestItems', requestIndex: 3, items: requestItems });
      assert.strictEqual(await page.locator('[data-action="fork"]').count(), 0);
    } finally {
      await page.close();
    }
  });
});
