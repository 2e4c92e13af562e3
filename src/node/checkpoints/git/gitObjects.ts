import { createHash } from 'crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'fs';
import { join } from 'path';
import { inflateSync } from 'zlib';

const OBJ_BLOB = 3;
const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;
const TYPE_NAMES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const MAX_DELTA_DEPTH = 100;

/** Git's id of a blob holding `bytes`: SHA-1 over its header and bytes. */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

/** Inflates the zlib stream at `position` whose result is `size` bytes, reading more of the file until the stream is whole. */
function inflateAt(fd: number, position: number, size: number): Buffer {
  for (let length = size + 64; ; length *= 4) {
    const chunk = readAt(fd, position, length);
    try {
      const out = inflateSync(chunk);
      if (out.length !== size) throw new Error('a packed object is not the size its header says');
      return out;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'Z_BUF_ERROR' || chunk.length < length) throw error;
    }
  }
}

/** Applies a git delta to its base. */
function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let at = 0;
  const size = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (size() !== base.length) throw new Error('a delta does not fit its base');
  const out = Buffer.alloc(size());
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[at++] * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) length += delta[at++] * 2 ** (8 * bit);
      if (length === 0) length = 0x10000;
      if (offset + length > base.length || written + length > out.length) throw new Error('a delta copies past its base');
      base.copy(out, written, offset, offset + length);
      written += length;
    } else if (op) {
      if (written + op > out.length || at + op > delta.length) throw new Error('a delta inserts past its end');
      delta.copy(out, written, at, at + op);
      written += op;
      at += op;
    } else throw new Error('a delta holds a reserved instruction');
  }
  if (written !== out.length) throw new Error('a delta is short of its size');
  return out;
}

interface PackIndex {
  idx: string;
  pack: string;
  count: number;
  fanout: Uint32Array;
}

/**
 * Reads blobs from a repository's object folders, loose and packed (index v2 packs, deltas
 * followed), without running git. Every blob is checked against its id before it is returned.
 */
export class GitObjects {
  private packs?: PackIndex[];

  constructor(private readonly objectFolders: readonly string[]) {}

  /** The bytes of blob `oid`; throws when it is not found or does not hash to its id. */
  readBlob(oid: string): Buffer {
    const found = this.read(oid, 0);
    if (found.type !== OBJ_BLOB) throw new Error(`${oid} is a ${TYPE_NAMES[found.type] ?? 'non-blob'}, not a file's bytes`);
    if (gitBlobId(found.data) !== oid) throw new Error(`${oid} does not hash to its id`);
    return found.data;
  }

  private read(oid: string, depth: number): { type: number; data: Buffer } {
    if (depth > MAX_DELTA_DEPTH) throw new Error('a delta chain is too deep');
    for (const folder of this.objectFolders) {
      let raw: Buffer;
      try {
        raw = readFileSync(join(folder, oid.slice(0, 2), oid.slice(2)));
      } catch {
        continue;
      }
      const data = inflateSync(raw);
      const nul = data.indexOf(0);
      const [typeName, size] = data.toString('latin1', 0, nul).split(' ');
      const type = Number(Object.keys(TYPE_NAMES).find((k) => TYPE_NAMES[Number(k)] === typeName) ?? 0);
      if (Number(size) !== data.length - nul - 1) throw new Error(`${oid} is not the size its header says`);
      return { type, data: data.subarray(nul + 1) };
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const pack of this.packIndexes()) {
        const offset = this.offsetIn(pack, oid);
        if (offset !== undefined) return this.readPacked(pack, offset, depth);
      }
      this.packs = undefined; // packs written since they were listed (a gc, a fetch)
    }
    throw new Error(`${oid} is not in the repository's objects`);
  }

  private packIndexes(): PackIndex[] {
    if (this.packs) return this.packs;
    const packs: PackIndex[] = [];
    for (const folder of this.objectFolders) {
      let names: string[] = [];
      try {
        names = readdirSync(join(folder, 'pack')).filter((n) => n.endsWith('.idx'));
      } catch {
        continue;
      }
      for (const name of names) {
        const idx = join(folder, 'pack', name);
        const fd = openSync(idx, 'r');
        try {
          const head = readAt(fd, 0, 8 + 256 * 4);
          if (head.length < 8 + 1024 || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) continue;
          const fanout = new Uint32Array(256);
          for (let i = 0; i < 256; i++) fanout[i] = head.readUInt32BE(8 + i * 4);
          packs.push({ idx, pack: idx.replace(/\.idx$/, '.pack'), count: fanout[255], fanout });
        } finally {
          closeSync(fd);
        }
      }
    }
    return (this.packs = packs);
  }

  /** Where `oid` starts in the pack, by a binary search of the index's sorted ids (read a few bytes at a time). */
  private offsetIn(pack: PackIndex, oid: string): number | undefined {
    const want = Buffer.from(oid, 'hex');
    const first = want[0];
    let low = first ? pack.fanout[first - 1] : 0;
    let high = pack.fanout[first];
    const fd = openSync(pack.idx, 'r');
    try {
      const ids = 8 + 1024;
      while (low < high) {
        const mid = (low + high) >>> 1;
        const cmp = readAt(fd, ids + mid * 20, 20).compare(want);
        if (cmp === 0) {
          const offsets = ids + pack.count * 24;
          const small = readAt(fd, offsets + mid * 4, 4).readUInt32BE(0);
          if (!(small & 0x80000000)) return small;
          const large = readAt(fd, offsets + pack.count * 4 + (small & 0x7fffffff) * 8, 8);
          return large.readUInt32BE(0) * 2 ** 32 + large.readUInt32BE(4);
        }
        if (cmp < 0) low = mid + 1;
        else high = mid;
      }
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  private readPacked(pack: PackIndex, offset: number, depth: number): { type: number; data: Buffer } {
    const fd = openSync(pack.pack, 'r');
    try {
      const head = readAt(fd, offset, 32);
      let at = 0;
      let byte = head[at++];
      const type = (byte >> 4) & 7;
      let size = byte & 0x0f;
      let shift = 4;
      while (byte & 0x80) {
        byte = head[at++];
        size += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      }
      if (type === OBJ_OFS_DELTA) {
        byte = head[at++];
        let back = byte & 0x7f;
        while (byte & 0x80) {
          byte = head[at++];
          back = (back + 1) * 128 + (byte & 0x7f);
        }
        const base = this.readPacked(pack, offset - back, depth + 1);
        return { type: base.type, data: applyDelta(base.data, inflateAt(fd, offset + at, size)) };
      }
      if (type === OBJ_REF_DELTA) {
        const baseId = head.toString('hex', at, at + 20);
        const base = this.read(baseId, depth + 1);
        return { type: base.type, data: applyDelta(base.data, inflateAt(fd, offset + at + 20, size)) };
      }
      return { type, data: inflateAt(fd, offset + at, size) };
    } finally {
      closeSync(fd);
    }
  }
}
