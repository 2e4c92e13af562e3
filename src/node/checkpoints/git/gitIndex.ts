import { readFileSync, statSync } from 'fs';

/** A tracked regular file as git's index records it: its blob and the file's stat when git last saw it. */
export interface IndexEntry {
  /** The blob's id, hex. */
  oid: string;
  /** The file's size, mtime and ctime (seconds and nanoseconds) and inode, 32-bit as the index keeps them. */
  size: number;
  mtimeSec: number;
  mtimeNsec: number;
  ctimeSec: number;
  ctimeNsec: number;
  ino: number;
}

/**
 * The index's entries by path, each read from the index's bytes when asked for: reading the index
 * only finds where each entry is (a command's first listing waits on it, the host unsliced), and
 * what an entry holds is read as the listing asks, in its slices.
 */
export class IndexEntries {
  constructor(
    private readonly buf: Buffer,
    private readonly offsets: ReadonlyMap<string, number>,
  ) {}

  get size(): number {
    return this.offsets.size;
  }

  get(path: string): IndexEntry | undefined {
    const at = this.offsets.get(path);
    if (at === undefined) return undefined;
    const buf = this.buf;
    return {
      oid: buf.toString('hex', at + 40, at + 40 + HASH_BYTES),
      ctimeSec: buf.readUInt32BE(at),
      ctimeNsec: buf.readUInt32BE(at + 4),
      mtimeSec: buf.readUInt32BE(at + 8),
      mtimeNsec: buf.readUInt32BE(at + 12),
      ino: buf.readUInt32BE(at + 20),
      size: buf.readUInt32BE(at + 36),
    };
  }
}

export interface GitIndex {
  /** By path from the repository's root, `/`-separated: regular files at stage 0 only. */
  entries: IndexEntries;
  /** The index file's own modification time: an entry as recent cannot vouch for its file (git's "racy" entries). */
  writtenAtMs: number;
  /** What tells the index file changed: its size, time and inode. */
  signature: string;
}

const SIGNATURE = 0x44495243; // "DIRC"
const HASH_BYTES = 20;
const EXTENDED = 0x4000;
const REGULAR_FILE = 0o100000;
const TYPE_MASK = 0o170000;

/** Git's offset varint (index v4's prefix lengths). */
function varint(buf: Buffer, at: number): { value: number; next: number } {
  let byte = buf[at++];
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = buf[at++];
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: at };
}

/** The index file's signature (size, time, inode), or undefined when there is none. */
export function indexSignature(path: string): string | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat?.isFile() ? `${stat.size}:${stat.mtimeMs}:${stat.ino}` : undefined;
}

/**
 * Reads git's index (versions 2 to 4, SHA-1): the regular files it tracks with their blobs and
 * the stat git recorded. Throws, saying why, for what it does not read (a split index, another
 * version, a damaged file): the caller then takes nothing from git.
 */
export function readGitIndex(path: string): GitIndex {
  const stat = statSync(path);
  const buf = readFileSync(path);
  if (buf.length < 12 + HASH_BYTES || buf.readUInt32BE(0) !== SIGNATURE) throw new Error('not a git index');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Error(`index version ${version}`);
  const count = buf.readUInt32BE(8);
  const end = buf.length - HASH_BYTES;
  const offsets = new Map<string, number>();
  let at = 12;
  let previous = '';
  for (let i = 0; i < count; i++) {
    if (at + 62 > end) throw new Error('the index ends inside an entry');
    const flags = buf.readUInt16BE(at + 60);
    const extended = version >= 3 && (flags & EXTENDED) !== 0;
    const nameAt = at + 62 + (extended ? 2 : 0);
    let name: string;
    let next: number;
    if (version === 4) {
      const strip = varint(buf, nameAt);
      const nul = buf.indexOf(0, strip.next);
      if (nul < 0 || nul > end) throw new Error('the index ends inside a path');
      name = previous.slice(0, previous.length - strip.value) + buf.toString('utf8', strip.next, nul);
      next = nul + 1;
    } else {
      const nameLength = flags & 0xfff;
      const nul = nameLength < 0xfff ? nameAt + nameLength : buf.indexOf(0, nameAt);
      if (nul < 0 || nul > end) throw new Error('the index ends inside a path');
      name = buf.toString('utf8', nameAt, nul);
      next = at + ((nul - at + 8) & ~7);
    }
    const mode = buf.readUInt32BE(at + 24);
    const stage = (flags >> 12) & 3;
    if ((mode & TYPE_MASK) === REGULAR_FILE && stage === 0) offsets.set(name, at);
    previous = name;
    at = next;
  }
  while (at + 8 <= end) {
    const signature = buf.toString('latin1', at, at + 4);
    if (signature === 'link') throw new Error('a split index');
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return { entries: new IndexEntries(buf, offsets), writtenAtMs: stat.mtimeMs, signature: `${stat.size}:${stat.mtimeMs}:${stat.ino}` };
}

const TWO_32 = 4294967296;
/** Times compared to the microsecond: Node's millisecond times carry about that much of the nanoseconds. */
const sameTime = (ms: number, sec: number, nsec: number) => Math.abs(ms - (sec * 1000 + nsec / 1e6)) < 0.001;

/**
 * Whether the file, stated now, is the one the index entry describes, so its bytes are the entry's
 * blob: size, both times and inode unchanged since git recorded them (as `git status` decides),
 * and the file last changed before the index was written (else a change in the same clock step
 * could hide, git's "racy" case).
 */
export function indexVouchesFor(entry: IndexEntry, index: GitIndex, stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): boolean {
  return (
    entry.size === stat.size % TWO_32 &&
    entry.ino === stat.ino % TWO_32 &&
    sameTime(stat.mtimeMs, entry.mtimeSec, entry.mtimeNsec) &&
    sameTime(stat.ctimeMs, entry.ctimeSec, entry.ctimeNsec) &&
    stat.mtimeMs < index.writtenAtMs
  );
}
