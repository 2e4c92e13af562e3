/**
 * The spawner's wire format, both ways over a pipe: each frame is its length (4 bytes, big-endian,
 * counting what follows), a kind (1 byte), the process's id (4 bytes), then the payload: JSON for
 * requests and ends, raw bytes for output.
 */
export const enum FrameKind {
  /** Host → spawner: start a process (JSON Launch). */
  Start = 1,
  /** Host → spawner: kill a process's group. */
  Kill = 2,
  /** Spawner → host: it is ready for requests. */
  Ready = 10,
  /** Spawner → host: the process started (JSON { pid }). */
  Started = 11,
  Stdout = 12,
  Stderr = 13,
  /** Spawner → host: the process ended, after its last output (JSON ProcessEnd). */
  End = 14,
}

const HEADER = 9;

export function frame(kind: FrameKind, id: number, payload: Buffer | string = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const header = Buffer.allocUnsafe(HEADER);
  header.writeUInt32BE(body.length + 5, 0);
  header.writeUInt8(kind, 4);
  header.writeUInt32BE(id, 5);
  return Buffer.concat([header, body]);
}

/** Cuts a byte stream into frames, whatever the chunks' boundaries. */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes needed before the next frame can be read (its header, then all of it): chunks are joined only then. */
  private need = 4;

  constructor(private readonly onFrame: (kind: FrameKind, id: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.need) return;
    const buffer = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    let at = 0;
    this.need = 4;
    while (buffer.length - at >= 4) {
      const total = 4 + buffer.readUInt32BE(at);
      if (buffer.length - at < total) {
        this.need = total;
        break;
      }
      this.onFrame(buffer.readUInt8(at + 4) as FrameKind, buffer.readUInt32BE(at + 5), buffer.subarray(at + HEADER, at + total));
      at += total;
    }
    const rest = buffer.subarray(at);
    this.pending = rest.length ? [rest] : [];
    this.pendingBytes = rest.length;
  }
}
