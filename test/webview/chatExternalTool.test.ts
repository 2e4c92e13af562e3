import * as assert from 'assert';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { clearPosted, hostSends, posted, useHarness } from './harness';

/** A card for a tool another extension registered, waiting for approval. */
const externalToolState: ChatState = {
  ...chatState,
  entries: [
    {
      kind: 'assistant',
      id: 'a-ext',
      text: 'Writing the marker.',
      toolCalls: [
        {
          callId: 'call_ext',
          name: 'write_marker',
          arguments: '{"token":"abc"}',
          status: 'awaiting_approval',
          approval: { title: 'Run the tool write_marker from the extension test.marker', detail: 'Input:\n{\n  "token": "abc"\n}', kind: 'other', allowForSession: 'write_marker' },
        },
      ],
    },
  ],
};

describe('chat webview: approving a tool from another extension', function () {
  this.timeout(60_000);
  const pages = useHarness();
  let page: Page;

  it('shows the tool, its source and input, and offers "Allow <tool> for this session"', async () => {
    page = await pages.open('chat', { width: 460, height: 900 });
    await hostSends(page, { type: 'state', state: externalToolState });
    await clearPosted(page);
    const card = page.locator('.tool-card[data-call-id="call_ext"]');
    assert.match((await card.locator('.approval-title').textContent()) ?? '', /write_marker from the extension test\.marker/);
    assert.match((await card.locator('pre.approval-detail').textContent()) ?? '', /"token": "abc"/);
    const allow = card.locator('vscode-button[data-approve-session="call_ext"]');
    assert.strictEqual(await allow.textContent(), 'Allow write_marker for this session');
    await allow.click();
    await card.locator('vscode-button[data-approve="call_ext"]').click();
    assert.deepStrictEqual(await posted(page), [
      { type: 'approval', callId: 'call_ext', approved: true, forSession: true },
      { type: 'approval', callId: 'call_ext', approved: true },
    ]);
  });

  it('offers no session-wide approval for edits and commands', async () => {
    page = await pages.open('chat', { width: 460, height: 900 });
    await hostSends(page, { type: 'state', state: chatState });
    assert.strictEqual(await page.locator('vscode-button[data-approve-session]').count(), 0);
  });
});
