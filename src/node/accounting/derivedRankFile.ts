import { RANK_FILE_MAGIC } from './rankFile';

/**
 * A rank file written as the tokens it shares with another encoding's: most of cl100k_base's
 * tokens are also o200k_base tokens, so the package ships cl100k_base as, per token, the index of
 * the same bytes among o200k_base's tokens, and the bytes only of the tokens o200k_base lacks. That
 * file is a third the size of cl100k_base's own (250 KB against 360 KB brotli-compressed), and
 * rebuilding the exact rank file from it takes a pass over both.
 *
 *   "TKD1", u8 base name length, base name (ASCII), the target's header as a rank file has it
 *   (u32 pattern length, pattern, u32 token count), u32 number of rank gaps, per gap u32 token
 *   position and u32 rank, then per token a u24 base token index (0xFFFFFF: not in the base) in
 *   three planes (high bytes, middle, low: each plane compresses on its own), then a u8 length per
 *   token not in the base, then those tokens' bytes.
 * All integers little-endian.
 */
export const DERIVED_RANK_FILE_MAGIC = 'TKD1';
const NOT_IN_BASE = 0xffffff;

/** A rank file's tokens: their bytes in rank order, and the rank gaps (token position → rank). */
interface RankFileTokens {
  header: Buffer;
  tokens: Buffer[];
  gaps: Array<[number, number]>;
}

function damaged(what: string): Error {
  return new Error(`not a rank file: ${what}`);
}

function readTokens(file: Uint8Array): RankFileTokens {
  const buffer = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (buffer.toString('latin1', 0, 4) !== RANK_FILE_MAGIC) throw damaged('no TKR1 header');
  const patternLength = buffer.readUInt32LE(4);
  const countAt = 8 + patternLength;
  const count = buffer.readUInt32LE(countAt);
  const lengthsSize = buffer.readUInt32LE(countAt + 4);
  const lengthsAt = countAt + 8;
  let at = lengthsAt + lengthsSize;
  const tokens: Buffer[] = [];
  const gaps: Array<[number, number]> = [];
  for (let i = lengthsAt; i < lengthsAt + lengthsSize; i++) {
    let length = buffer[i];
    if (length === 0) {
      gaps.push([tokens.length, buffer.readUInt32LE(i + 1)]);
      i += 5;
      length = buffer[i];
    }
    if (at + length > buffer.length) throw damaged('a token runs past the end');
    tokens.push(buffer.subarray(at, at + length));
    at += length;
  }
  if (tokens.length !== count) throw damaged(`${tokens.length} tokens where the header says ${count}`);
  return { header: buffer.subarray(4, countAt + 4), tokens, gaps };
}

/** The target rank file written against the base's tokens. */
export function encodeDerivedRankFile(target: Uint8Array, baseName: string, base: Uint8Array): Buffer {
  const { header, tokens, gaps } = readTokens(target);
  const index = new Map<string, number>();
  readTokens(base).tokens.forEach((token, i) => index.set(token.toString('latin1'), i));
  const planes = [Buffer.alloc(tokens.length), Buffer.alloc(tokens.length), Buffer.alloc(tokens.length)];
  const missing: Buffer[] = [];
  tokens.forEach((token, i) => {
    const found = index.get(token.toString('latin1'));
    const ref = found ?? NOT_IN_BASE;
    if (found === undefined) missing.push(token);
    planes[0][i] = ref >>> 16;
    planes[1][i] = (ref >>> 8) & 0xff;
    planes[2][i] = ref & 0xff;
  });
  const gapTable = Buffer.alloc(4 + gaps.length * 8);
  gapTable.writeUInt32LE(gaps.length);
  gaps.forEach(([position, rank], i) => {
    gapTable.writeUInt32LE(position, 4 + i * 8);
    gapTable.writeUInt32LE(rank, 8 + i * 8);
  });
  const name = Buffer.from(baseName, 'ascii');
  return Buffer.concat([Buffer.from(DERIVED_RANK_FILE_MAGIC, 'latin1'), Buffer.from([name.length]), name, header, gapTable, ...planes, Buffer.from(missing.map((t) => t.length)), ...missing]);
}

export function isDerivedRankFile(file: Uint8Array): boolean {
  return Buffer.from(file.buffer, file.byteOffset, 4).toString('latin1') === DERIVED_RANK_FILE_MAGIC;
}

/** The base encoding a derived rank file needs. */
export function derivedRankFileBase(file: Uint8Array): string {
  const buffer = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  return buffer.toString('ascii', 5, 5 + buffer[4]);
}

/** Rebuilds the exact rank file a derived one was written from, given its base's rank file. */
export function decodeDerivedRankFile(file: Uint8Array, base: Uint8Array): Buffer {
  const buffer = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (!isDerivedRankFile(buffer)) throw damaged('no TKD1 header');
  const baseTokens = readTokens(base).tokens;
  let at = 5 + buffer[4];
  const headerAt = at;
  const patternLength = buffer.readUInt32LE(at);
  at += 4 + patternLength;
  const count = buffer.readUInt32LE(at);
  at += 4;
  const header = buffer.subarray(headerAt, at);
  const gapCount = buffer.readUInt32LE(at);
  at += 4;
  const gaps = new Map<number, number>();
  for (let i = 0; i < gapCount; i++, at += 8) gaps.set(buffer.readUInt32LE(at), buffer.readUInt32LE(at + 4));
  if (at + 3 * count > buffer.length) throw damaged('it ends before its token list');
  const refs = new Int32Array(count);
  let notInBase = 0;
  for (let i = 0; i < count; i++) {
    refs[i] = (buffer[at + i] << 16) | (buffer[at + count + i] << 8) | buffer[at + 2 * count + i];
    if (refs[i] === NOT_IN_BASE) notInBase++;
  }
  let missingLengths = at + 3 * count;
  let missingBytes = missingLengths + notInBase;
  const tokens: Buffer[] = [];
  const lengths: number[] = [];
  for (let i = 0; i < count; i++) {
    const ref = refs[i];
    let token: Buffer | undefined;
    if (ref === NOT_IN_BASE) {
      const length = buffer[missingLengths++];
      token = buffer.subarray(missingBytes, missingBytes + length);
      missingBytes += length;
    } else token = baseTokens[ref];
    if (!token || token.length === 0 || missingBytes > buffer.length) throw damaged(`token ${i} is not in its base or runs past the end`);
    const rank = gaps.get(i);
    if (rank !== undefined) lengths.push(0, rank & 0xff, (rank >>> 8) & 0xff, (rank >>> 16) & 0xff, rank >>> 24);
    lengths.push(token.length);
    tokens.push(token);
  }
  const lengthsSize = Buffer.alloc(4);
  lengthsSize.writeUInt32LE(lengths.length);
  return Buffer.concat([Buffer.from(RANK_FILE_MAGIC, 'latin1'), header, lengthsSize, Buffer.from(lengths), ...tokens]);
}
