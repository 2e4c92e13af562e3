import * as assert from 'assert';
import { chatState } from './fixtures';
import { clearPosted, cspViolations, errorsIn, hostSends, posted, useHarness } from './harness';

describe('chat: searching past sessions from the session list (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = useHarness();

  it('a Search button beside the session list opens Tally: Search Sessions, and the row still fits at 360 px', async () => {
    const page = await pages.open('chat', { theme: 'dark', width: 360, height: 500 });
    try {
      await hostSends(page, { type: 'state', state: chatState });
      const search = page.locator('[data-action="search-sessions"]');
      assert.equal(await search.textContent(), 'Search');
      assert.equal(await search.getAttribute('title'), 'Search past sessions by title and text');
      const row = page.locator('.toolbar-row').nth(1);
      const [rowBox, newBox] = [await row.boundingBox(), await page.locator('[data-action="new-session"]').boundingBox()];
      assert.ok(rowBox && newBox && newBox.x + newBox.width <= rowBox.x + rowBox.width + 0.5, 'New session is not pushed out of the row');
      await clearPosted(page);
      await search.click();
      assert.deepStrictEqual(await posted(page), [{ type: 'searchSessions' }]);
      assert.deepStrictEqual(await cspViolations(page), []);
      assert.deepStrictEqual(errorsIn(page), []);
    } finally {
      await page.close();
    }
  });
});
