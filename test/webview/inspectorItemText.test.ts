import * as assert from 'assert';
import type { Page } from 'playwright-core';
import type { RequestItem } from '../../src/protocol/records';
import { inspectorState } from './fixtures';
import { clearPosted, hostSends, posted, usePage } from './harness';

const items: RequestItem[] = [
  { messageId: 'system:base', role: 'system', kind: 'system-section', tokens: 210, badges: [], preview: 'You are Tally…', section: 'system', label: 'Base instructions', textHash: 'h1' },
  { messageId: 'agents:/ws/AGENTS.md', role: 'system', kind: 'agents-md', tokens: 40, badges: [], preview: 'Project instructions…', section: 'system', label: 'ws/AGENTS.md', path: '/ws/AGENTS.md', textHash: 'h2' },
  { messageId: 'tool:read_file', role: 'tools', kind: 'tool-schema', tokens: 60, badges: [], toolName: 'read_file', preview: 'read_file: 300 characters', section: 'tools', label: 'read_file', source: 'built-in', textHash: 'h3' },
  { messageId: 'tool:jira_search', role: 'tools', kind: 'tool-schema', tokens: 0, badges: ['deferred'], toolName: 'jira_search', preview: 'deferred', section: 'tools', label: 'jira_search', source: 'MCP server tracker', textHash: 'h4' },
  { messageId: 'u-1', role: 'user', kind: 'user', tokens: 12, badges: [], preview: 'fix the tests', section: 'conversation' },
  { messageId: 'framing:messages', role: 'framing', kind: 'framing', tokens: 4, badges: [], preview: '4 tokens per message × 1 messages', section: 'conversation', label: 'Message framing' },
];

describe('inspector webview: every item expands to its exact text, fetched on demand', function () {
  this.timeout(60_000);
  const pages = usePage('inspector', inspectorState, { clearPosted: false });
  let page: Page;
  beforeEach(async () => {
    page = pages.page();
    await page.click('.turn[data-request-index="3"]');
    await hostSends(page, { type: 'requestItems', requestIndex: 3, items });
  });

  it('lists the prompt parts with their source and path, and the total of all items', async () => {
    const rows = page.locator('.turn-slot .item');
    assert.strictEqual(await rows.count(), items.length);
    assert.match((await rows.nth(1).textContent()) ?? '', /ws\/AGENTS\.md.*40 tok/);
    assert.match((await rows.nth(3).textContent()) ?? '', /jira_search · MCP server tracker.*0 tok.*deferred/);
    assert.match((await rows.nth(4).textContent()) ?? '', /user\s*message/, 'a user message does not read "user user"');
    // The items are Tally's estimate; the summary leads with what the provider reported for the request.
    const reported = inspectorState.requests.find((t) => t.requestIndex === 3)!.reportedInputTokens!;
    assert.strictEqual(await page.textContent('.turn-slot .list-summary'), `6 items · ${reported.toLocaleString('en-US')} tokens (Tally's estimate 326)`);
    assert.strictEqual(await page.locator('.turn-slot vscode-button[data-pin]').count(), 0, 'a stored request has no pin toggles');
  });

  it('expanding an item asks the host for that one text and shows it as text', async () => {
    await clearPosted(page);
    await page.click('.turn-slot vscode-button[data-expand="agents:/ws/AGENTS.md"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'requestItemText', requestIndex: 3, itemId: 'agents:/ws/AGENTS.md' }]);
    assert.match((await page.textContent('.turn-slot .item-text')) ?? '', /Loading/);
    await hostSends(page, { type: 'requestItemText', requestIndex: 3, itemId: 'agents:/ws/AGENTS.md', text: 'Project instructions (ws/AGENTS.md):\n<b>Use tabs.</b>', totalChars: 48 });
    const shown = page.locator('.turn-slot [data-item-text="agents:/ws/AGENTS.md"]');
    assert.strictEqual(await shown.textContent(), 'Project instructions (ws/AGENTS.md):\n<b>Use tabs.</b>');
    assert.strictEqual(await page.locator('.turn-slot .item-text b').count(), 0, 'text stays text');
    // Collapsing and expanding again uses the text it has.
    await clearPosted(page);
    await page.click('.turn-slot vscode-button[data-expand="agents:/ws/AGENTS.md"]');
    await page.click('.turn-slot vscode-button[data-expand="agents:/ws/AGENTS.md"]');
    assert.deepStrictEqual(await posted(page), []);
    assert.strictEqual(await shown.count(), 1);
  });

  it('Open asks the host to open the item, by its position in the request, in a read-only editor', async () => {
    await clearPosted(page);
    await page.click('.turn-slot vscode-button[data-open-item="1"]');
    await page.click('.current-slot vscode-button[data-open-item="0"]');
    assert.deepStrictEqual(await posted(page), [
      { type: 'openRequestItem', requestIndex: 3, position: 1 },
      { type: 'openRequestItem', position: 0 },
    ]);
  });

  it('an item of the next request asks without a request index', async () => {
    await clearPosted(page);
    await page.click('.current-slot vscode-button[data-expand="u-40"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'requestItemText', itemId: 'u-40' }]);
  });
});
