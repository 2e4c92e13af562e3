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
import { readImageHeader } from '../../src/core/images/imageHeader';

const state: ChatState = { ...chatState, busy: false, entries: [] };
const chips: ChatAttachmentView[] = [
  { id: 'img-1', kind: 'image', label: 'pasted image · PNG 1280×720', tokens: 1_247 },
  { id: 'img-2', kind: 'image', label: 'screenshot.png · PNG 3000×2000', tokens: 1_616, smaller: { width: 1024, height: 682, tokens: 935 } },
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

  it('Shrink asks the host for the image, scales it down here to the size asked for and posts the copy back', async () => {
    const page = pages.page();
    const big = Buffer.from(pngFile(400, 300, [20, 120, 220])).toString('base64');
    await hostSends(page, { type: 'composer', attachments: [{ id: 'img-9', kind: 'image', label: 'big.png · PNG 400×300', tokens: 163, smaller: { width: 200, height: 150, tokens: 43 } }] });
    const chip = page.locator('.attach-chip[data-id="img-9"]');
    assert.match((await chip.locator('.attach-chip-detail').textContent()) ?? '', /^163 tokens · 43 at 200×150$/);
    assert.strictEqual(await chip.locator('.attach-chip-shrink').getAttribute('title'), 'Send a 200×150 copy instead: 43 tokens rather than 163');
    await chip.locator('.attach-chip-shrink').click();
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'downscaleImage'));
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'downscaleImage'), [{ type: 'downscaleImage', id: 'img-9' }]);
    await hostSends(page, { type: 'imageToDownscale', id: 'img-9', mediaType: 'image/png', data: big, width: 200, height: 150 });
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'downscaledImage'));
    const [copy] = (await posted(page)).filter((m) => m.type === 'downscaledImage') as Array<{ id: string; mediaType: string; data: string }>;
    assert.deepStrictEqual([copy.id, copy.mediaType], ['img-9', 'image/png']);
    const bytes = new Uint8Array(Buffer.from(copy.data, 'base64'));
    assert.deepStrictEqual(readImageHeader(bytes), { mediaType: 'image/png', width: 200, height: 150 });
    // Decoded by the browser too: a real image of that size, its colour kept.
    const decoded = await page.evaluate(async (data) => {
      const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d')!;
      context.drawImage(bitmap, 0, 0);
      return { width: bitmap.width, height: bitmap.height, pixel: Array.from(context.getImageData(100, 75, 1, 1).data) };
    }, copy.data);
    assert.deepStrictEqual(decoded, { width: 200, height: 150, pixel: [20, 120, 220, 255] });
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
        assert.match((await shown.nth(1).locator('.attach-chip-detail').textContent()) ?? '', /^1,616 tokens · 935 at 1024×682$/);
        assert.strictEqual(await shown.nth(0).locator('.attach-chip-shrink').count(), 0, 'no smaller size, no Shrink');
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
