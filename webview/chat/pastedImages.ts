/**
 * Images pasted into the composer or dropped on the chat from outside the workspace (a screenshot,
 * a file from the desktop): their bytes go to the host as base64, which checks them and costs them;
 * the webview only shows the chip the host sends back.
 */
import type { ChatToHost } from '../../src/protocol/chat';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The image files among what was pasted or dropped. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return Array.from(data.files ?? []).filter((file) => IMAGE_TYPES.has(file.type));
}

/** A file's or blob's bytes as base64, read by the browser (FileReader's data address without its prefix). */
export function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.addEventListener('load', () => {
      const url = String(reader.result ?? '');
      resolve(url.slice(url.indexOf(',') + 1));
    });
    reader.addEventListener('error', () => reject(reader.error ?? new Error('the image could not be read')));
    reader.readAsDataURL(blob);
  });
}

/** Reads each image and posts it to the host as an attach request. */
export function postImages(files: readonly File[], post: (message: ChatToHost) => void): void {
  for (const file of files) {
    void base64Of(file).then((data) => {
      const name = file.name && file.name !== 'image.png' ? file.name.slice(0, 200) : undefined;
      post({ type: 'attach', target: { kind: 'image', mediaType: file.type, data, ...(name ? { name } : {}) } });
    });
  }
}
