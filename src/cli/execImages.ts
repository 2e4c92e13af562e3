import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { ImageBilling } from '../core/images/imageSize';
import { imageAttachment, imagePartOf } from '../core/images/imageMessages';
import { MAX_IMAGE_BYTES } from '../core/images/imagePart';
import type { Message } from '../core/model/message';

/**
 * The images `--image PATH` attaches to the task, as attachment messages before it, with their
 * cost on the model's formula. Throws, saying which file and why, for a file that is missing,
 * too large, or not a PNG, JPEG, GIF or WebP image.
 */
export async function execImages(paths: readonly string[], cwd: string, billing: ImageBilling): Promise<Message[]> {
  const messages: Message[] = [];
  for (const given of paths) {
    const path = resolve(cwd, given);
    const size = await stat(path).then((s) => (s.isFile() ? s.size : -1), () => undefined);
    if (size === undefined) throw new Error(`--image ${given}: no such file`);
    if (size < 0) throw new Error(`--image ${given}: not a file`);
    if (size > MAX_IMAGE_BYTES) throw new Error(`--image ${given}: ${size} bytes; images up to ${MAX_IMAGE_BYTES} bytes can be sent`);
    const bytes = new Uint8Array(await readFile(path));
    try {
      messages.push(imageAttachment(imagePartOf({ bytes, origin: 'file', label: basename(path), path: given }, billing)));
    } catch (error) {
      throw new Error(`--image ${given}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return messages;
}
