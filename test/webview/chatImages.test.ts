/**
 * Images in the chat's composer: a pasted image goes to the host as base64 (the host checks and
 * costs it), and the chip the host sends back shows the image's format, size and token cost,
 * readable in the dark and light themes (screenshots).
 */
import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { ChatAttachmentView, ComposerCost } from '../../src/protocol/attachments';
import type { ChatState } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, hostSends, posted, usePage } from './harness';
import { pngFile } from '../support/imageFiles';

const state: ChatState = { ...chatState, busy: false, entries: [] };
const chips: ChatAttachmentView[] = [
  { id: 'img-1', kind: 'image', label: 'pasted image · PNG 1280×720', tokens: 1_247 },
  { id: 'img-2', kind: 'image', label: 'screenshot.png · PNG 3000×2000', tokens: 1_616 },
  { id: 'img-3', kind: 'image', label: 'clip.png', error: 'the PNG image is cut short (16 bytes; its header needs 24)' },
];
const cost: ComposerCost = { text: 'next request 9,300 tokens (this message 2,880) → 7% of the window', tokens: 2_880, requestTokens: 9_300, shareAfter: 0.07 };

describe('chat webview: images (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', state, { width: 480, height: 760 });

  it('an image pasted into the composer is posted to the host as base64, with its media type', async () => {
    const page = pages.page();
    const png = Buffer.from(pngFile(12, 8)).toString('base64');
    await page.locator('vscode-text-area.composer-input textarea').click();
    await page.evaluate((data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
      const target = document.querySelector('vscode-text-area.composer-input')!;
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, png);
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'attach'));
    const attach = (await posted(page)).filter((m) => m.type === 'attach');
    assert.deepStrictEqual(attach, [{ type: 'attach', target: { kind: 'image', mediaType: 'image/png', data: png } }]);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`the image chips show format, size and cost, and say why one cannot be sent, in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 480, height: 420 });
      try {
        await hostSends(themed, { type: 'state', state });
        await hostSends(themed, { type: 'composer', attachments: chips, cost });
        const shown = themed.locator('.attach-chip');
        assert.strictEqual(await shown.count(), 3);
        assert.strictEqual(await shown.nth(0).getAttribute('data-tokens'), '1247');
        assert.match((await shown.nth(0).textContent()) ?? '', /pasted image · PNG 1280×720\s*1,247 tokens/);
        assert.match((await shown.nth(2).textContent()) ?? '', /cut short/);
        for (const i of [0, 1]) {
          const ratio = await textContrast(shown.nth(i).locator('.attach-chip-detail'));
          assert.ok(ratio >= 4.5, `chip ${i} detail contrast ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        }
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `image-chips-${theme}.png`) });
      } finally {
        await themed.close();
      }
    });
  }
});
