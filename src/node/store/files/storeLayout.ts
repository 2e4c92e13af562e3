import { join } from 'path';

/**
 * Where each file of the store lives (see docs/ARCHITECTURE.md, "Storage layout"):
 *   sessions/<sessionId>/<writer>.info.sqlite   session row
 *   sessions/<sessionId>/<writer>.snap.sqlite   latest snapshot
 *   sessions/<sessionId>/<writer>.seg<N>.sqlite messages, events, usage, blob index
 *   blobs/<sha256>.blob                         an offloaded result's bytes, once per content
 *   blobs/<refId>.ref                           what a ref points to (JSON: tool, size, hashes)
 *   blobs/<refId>.sqlite, blobs/<refId>.p<N>.sqlite   results stored by earlier versions (read only)
 *   index/<writer>.base.sqlite, index/<writer>.delta.sqlite   the session list
 * A writer (one per window) writes only files carrying its own id.
 */
export const REF_PATTERN = /^[a-z0-9]{6,64}$/;
export const CONTENT_HASH = /^[0-9a-f]{64}$/;
export const SESSION_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;
/** A session file of some writer. */
export const WRITER_FILE = /^(w[a-z0-9]+)\.(?:info|snap|seg\d+)\.sqlite$/;
/** An index file of some writer. */
export const INDEX_FILE = /^(w[a-z0-9]+)\.(?:base|delta)\.sqlite$/;
export const INFO_FILE = /\.info\.sqlite$/;
export const SNAPSHOT_FILE = /\.snap\.sqlite$/;
export const SEGMENT_FILE = /\.seg\d+\.sqlite$/;
/** `<root>/sessions/<id>/<writer>.seg<N>.sqlite` → [id, N]. */
const SEGMENT_PATH = /[\\/]([^\\/]+)[\\/][^\\/]+\.seg(\d+)\.sqlite$/;

export class StoreLayout {
  constructor(readonly root: string, readonly writer: string) {}

  get sessionsDir(): string {
    return join(this.root, 'sessions');
  }

  get blobsDir(): string {
    return join(this.root, 'blobs');
  }

  get indexDir(): string {
    return join(this.root, 'index');
  }

  sessionDir(sessionId: string): string {
    if (!SESSION_PATTERN.test(sessionId)) throw new Error(`invalid session id "${sessionId}"`);
    return join(this.sessionsDir, sessionId);
  }

  infoPath(sessionId: string): string {
    return join(this.sessionDir(sessionId), `${this.writer}.info.sqlite`);
  }

  snapshotPath(sessionId: string): string {
    return join(this.sessionDir(sessionId), `${this.writer}.snap.sqlite`);
  }

  segmentPath(sessionId: string, n: number): string {
    return join(this.sessionDir(sessionId), `${this.writer}.seg${n}.sqlite`);
  }

  blobPath(refId: string): string {
    if (!REF_PATTERN.test(refId)) throw new Error(`invalid ref_id "${refId}"`);
    return join(this.blobsDir, `${refId}.sqlite`);
  }

  /** What a ref points to (written after the content it names). */
  refPath(refId: string): string {
    if (!REF_PATTERN.test(refId)) throw new Error(`invalid ref_id "${refId}"`);
    return join(this.blobsDir, `${refId}.ref`);
  }

  /** The bytes of a stored result, named by their SHA-256: the same content is stored once. */
  contentPath(sha256: string): string {
    if (!CONTENT_HASH.test(sha256)) throw new Error(`invalid content hash "${sha256}"`);
    return join(this.blobsDir, `${sha256}.blob`);
  }

  blobPartPath(refId: string, part: number): string {
    if (!REF_PATTERN.test(refId)) throw new Error(`invalid ref_id "${refId}"`);
    return join(this.blobsDir, `${refId}.p${part}.sqlite`);
  }

  /** Rows written at open (merged from closed windows) or rebuilt from the session folders. */
  get indexBasePath(): string {
    return join(this.indexDir, `${this.writer}.base.sqlite`);
  }

  /** Rows this window writes as it goes (small, rewritten on every change). */
  get indexDeltaPath(): string {
    return join(this.indexDir, `${this.writer}.delta.sqlite`);
  }

  /** The session id and segment number of a segment file's path, if it is one. */
  static segmentOf(path: string): { sessionId: string; n: number } | undefined {
    const match = SEGMENT_PATH.exec(path);
    return match ? { sessionId: match[1], n: Number(match[2]) } : undefined;
  }

  /** The session id of a file under `sessions/`. */
  static sessionOf(path: string): string {
    return path.split(/[\\/]/).slice(-2)[0];
  }
}
