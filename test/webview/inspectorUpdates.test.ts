import * as assert from 'assert';
import type { Page } from 'playwright-core';
import { InspectorHost } from '../support/inspectorMessages';
import type { InspectorState } from '../../src/protocol/inspector';
import { currentItems, inspectorState } from './fixtures';
import { clearPosted, hostSends, posted, usePage } from './harness';

describe('inspector webview: updates that carry only what changed (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('inspector', undefined);
  let page: Page;
  beforeEach(() => (page = pages.page()));

  it('draws a new request and a new item from an update, and keeps the rest', async () => {
    const updates = new InspectorHost();
    await hostSends(page, updates.message(inspectorState));
    const next: InspectorState = {
      ...inspectorState,
      requests: [...inspectorState.requests, { ...inspectorState.requests[5], requestIndex: 6, estimatedInputTokens: inspectorState.requests[5].estimatedInputTokens + 900 }],
      current: [...currentItems, { messageId: 't-45', role: 'tool', kind: 'tool_result', tokens: 2_345, toolName: 'run_command', badges: [], preview: 'PASS test/config.test.ts' }],
    };
    const update = updates.message(next);
    assert.equal(update.type, 'update');
    await hostSends(page, update);
    assert.strictEqual(await page.locator('.turn[data-request-index]').count(), 7, 'the new request is listed');
    assert.match((await page.locator('.current-slot').textContent()) ?? '', /PASS test\/config\.test\.ts/);
    assert.match((await page.locator('.current-slot').textContent()) ?? '', /jest test\/config\.test\.ts/, 'earlier items stay');
  });

  it('asks the host for older requests and for every item of the next request when the first state left them out', async () => {
    await hostSends(page, { type: 'state', state: { ...inspectorState, earlierRequests: 450, currentOmitted: { at: 2, count: 9_800 } } });
    assert.match((await page.locator('.current-slot').textContent()) ?? '', /9,800 older messages of the conversation are not loaded/);
    await clearPosted(page);
    await page.click('vscode-button[data-action="load-all-items"]');
    await page.click('vscode-button[data-action="show-older-requests"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'showEarlier', list: 'current' }, { type: 'showEarlier', list: 'requests' }]);
  });

  it('asks for the whole state when an update does not fit what it holds', async () => {
    const updates = new InspectorHost();
    await hostSends(page, updates.message(inspectorState));
    updates.message({ ...inspectorState, current: [...currentItems, { ...currentItems[6], messageId: 'lost' }] }); // never arrives
    await clearPosted(page);
    await hostSends(page, updates.message({ ...inspectorState, current: [...currentItems, { ...currentItems[6], messageId: 'lost' }, { ...currentItems[6], messageId: 'next' }] }));
    assert.deepStrictEqual(await posted(page), [{ type: 'ready' }]);
  });

  it('adds the titles an update brings to those it holds: a new result is named, the others keep their names', async () => {
    const updates = new InspectorHost();
    await hostSends(page, updates.message(inspectorState, 'whole'));
    const added = { ...inspectorState.blobs[1], id: 'res_c3', toolName: 'read_file' };
    const update = updates.message({ ...inspectorState, blobs: [...inspectorState.blobs, added], blobTitles: { ...inspectorState.blobTitles, res_c3: 'read_file src/config/load.ts · request #5' } }, { blobs: true, titles: { res_c3: 'read_file src/config/load.ts · request #5' } });
    assert.deepStrictEqual(update.type === 'update' && update.blobTitles, { res_c3: 'read_file src/config/load.ts · request #5' }, 'only the new title travels');
    await hostSends(page, update);
    const names = await page.$$eval('.blob .blob-tool', (els) => els.map((e) => e.textContent));
    assert.deepStrictEqual([...names].sort(), ['read_file src/config/load.ts · request #5', 'run_command npm test · request #3', 'search loadConfig · request #4']);
  });
});
