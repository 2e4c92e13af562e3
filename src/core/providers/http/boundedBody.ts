/**
 * Reads a server's answer with a size cap while it streams, so that a server sending an endless or
 * enormous body costs at most the cap in memory: past it, reading stops and the connection closes.
 */

/** The answer grew past the cap; nothing more was read. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the server's answer was larger than ${formatBytes(maxBytes)}`);
    this.name = 'BodyTooLargeError';
  }
}

/** "4 MB", "64 KB". */
export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/**
 * The body as UTF-8 text, up to `maxBytes`. Throws BodyTooLargeError (and cancels the body) as soon
 * as more arrives, or when Content-Length already says so; errors of the stream itself (an abort,
 * a dropped connection) pass through.
 */
export async function readTextUpTo(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(maxBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let received = 0;
  let complete = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      received += chunk.value.byteLength;
      if (received > maxBytes) throw new BodyTooLargeError(maxBytes);
      parts.push(decoder.decode(chunk.value, { stream: true }));
    }
    parts.push(decoder.decode());
    complete = true;
    return parts.join('');
  } finally {
    if (!complete) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
