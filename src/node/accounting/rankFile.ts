import { mkdirSync, writeFileSync } from 'fs';
import { brotliCompressSync, constants } from 'zlib';
import { join } from 'path';
import type { EncodingName } from '../../core/accounting/rankTable';
import { encodeDerivedRankFile } from './derivedRankFile';

/**
 * The binary form in which an encoding's ranks ship beside the bundles (dist/ranks/<name>.ranks.br),
 * read by the extension and the CLI alike:
 *   "TKR1", u32 pattern length, the pre-tokenizer pattern (UTF-8), u32 token count, u32 size of the
 *   lengths section; the lengths section: one u8 length per token in rank order, where a 0 is
 *   followed by a u32 that sets the rank of the next token (for gaps in the numbering) and then its
 *   length; then every token's bytes back to back, in the same order.
 * All integers little-endian. Raw bytes instead of base64 text: half the size and no decoding;
 * lengths apart from bytes so they compress well. The file ships brotli-compressed
 * (`<name>.ranks.br`): 15% smaller than the package's own zip compression would make it, and
 * decompressed off the main thread when a session opens.
 */
export const RANK_FILE_MAGIC = 'TKR1';

export const ENCODINGS: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

/** js-tiktoken's rank module: the pattern and "! <offset> <base64> <base64>…" lines. */
export interface TiktokenRanksModule {
  pat_str: string;
  bpe_ranks: string;
}

export function rankFileName(encoding: EncodingName): string {
  return `${encoding}.ranks.br`;
}

/**
 * Brotli at a middle quality (in well under a second) for development builds and tests; at the
 * best quality for the package: 6–10% smaller (88 KB less for both files), about 3 s more at build
 * time, and no slower to decompress.
 */
export function compressRankFile(raw: Buffer, quality: 'fast' | 'best' = 'fast'): Buffer {
  return brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: quality === 'best' ? 11 : 7, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
}

/** Converts js-tiktoken's rank module to the binary rank file. */
export function encodeRankFile(source: TiktokenRanksModule): Buffer {
  const steps = encodeRankFileSteps(source);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same conversion, pausing every few thousand lines so an async caller can give the event loop a turn. */
export function* encodeRankFileSteps(source: TiktokenRanksModule): Generator<void, Buffer> {
  const chunks: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    chunks.push(b);
  };
  const pattern = Buffer.from(source.pat_str, 'utf8');
  chunks.push(Buffer.from(RANK_FILE_MAGIC, 'latin1'));
  u32(pattern.length);
  chunks.push(pattern);
  const lines = source.bpe_ranks.split('\n').filter(Boolean);
  const count = lines.reduce((n, line) => n + line.split(' ').length - 2, 0);
  u32(count);
  const lengths: number[] = [];
  const tokens: Buffer[] = [];
  let nextRank = 0;
  for (const line of lines) {
    const fields = line.split(' ');
    const offset = Number.parseInt(fields[1], 10);
    if (offset !== nextRank) lengths.push(0, offset & 0xff, (offset >>> 8) & 0xff, (offset >>> 16) & 0xff, offset >>> 24);
    for (let i = 2; i < fields.length; i++) {
      const token = Buffer.from(fields[i], 'base64');
      if (token.length < 1 || token.length > 255) throw new Error(`token of ${token.length} bytes cannot be stored in a rank file`);
      lengths.push(token.length);
      tokens.push(token);
    }
    nextRank = offset + fields.length - 2;
    if (tokens.length % 20_000 < fields.length - 2) yield;
  }
  u32(lengths.length);
  return Buffer.concat([...chunks, Buffer.from(lengths), Buffer.concat(tokens)]);
}

/** js-tiktoken's own rank module; only present when running from source (tests, benchmarks, the build). */
export function tiktokenRanksModule(encoding: EncodingName): TiktokenRanksModule {
  // A computed name so bundlers leave js-tiktoken's 2-3 MB string literals out of the bundles.
  const moduleName = ['js-tiktoken', 'ranks', encoding].join('/');
  const module = require(moduleName);
  return module.default ?? module;
}

/**
 * Encodings shipped as the tokens they share with another (see derivedRankFile.ts): cl100k_base's
 * tokens are 85% o200k_base's, which keeps the package 110 KB smaller.
 */
export const WRITTEN_AGAINST: Partial<Record<EncodingName, EncodingName>> = { cl100k_base: 'o200k_base' };

/** Writes every encoding's rank file into `dir` (the build does this for dist/ranks). */
export function writeRankFiles(dir: string, quality: 'fast' | 'best' = 'fast'): string[] {
  mkdirSync(dir, { recursive: true });
  const raw = new Map(ENCODINGS.map((encoding) => [encoding, encodeRankFile(tiktokenRanksModule(encoding))]));
  return ENCODINGS.map((encoding) => {
    const path = join(dir, rankFileName(encoding));
    const base = WRITTEN_AGAINST[encoding];
    const file = base ? encodeDerivedRankFile(raw.get(encoding)!, base, raw.get(base)!) : raw.get(encoding)!;
    writeFileSync(path, compressRankFile(file, quality));
    return path;
  });
}
