import { existsSync, readFileSync } from 'fs';
import { readFile } from 'fs/promises';
import { join } from 'path';
import { promisify } from 'util';
import { brotliDecompress, brotliDecompressSync } from 'zlib';
import { runSliced, runSteps } from '../../core/accounting/rankLoader';
import type { EncodingName } from '../../core/accounting/rankTable';
import type { RankSource } from '../../core/ports/rankSource';
import { decodeDerivedRankFile, derivedRankFileBase, isDerivedRankFile } from './derivedRankFile';
import { encodeRankFileSteps, rankFileName, tiktokenRanksModule } from './rankFile';

/**
 * Where the rank files are: `ranks/` beside the running bundle (dist/extension.js and dist/cli.js
 * share dist/ranks). From source (tests, benchmarks) there is no such folder and the ranks come
 * from js-tiktoken's own rank module, converted in memory: the same bytes the build writes.
 */
export function defaultRankDirectory(): string {
  return join(__dirname, 'ranks');
}

function rankFilePath(encoding: EncodingName, directory: string): string | undefined {
  const path = join(directory, rankFileName(encoding));
  return existsSync(path) ? path : undefined;
}

function* fromTiktoken(encoding: EncodingName, directory: string): Generator<void, Uint8Array> {
  try {
    return yield* encodeRankFileSteps(tiktokenRanksModule(encoding));
  } catch (error) {
    throw new Error(`Tally's token ranks for ${encoding} are missing: no ${join(directory, rankFileName(encoding))} and no js-tiktoken to read them from (${(error as Error).message})`);
  }
}

const decompress = promisify(brotliDecompress);

function damaged(path: string, error: unknown): Error {
  return new Error(`Tally's token ranks at ${path} are damaged (${(error as Error).message}); reinstall the extension`);
}

/** Rank files from `directory`, or converted from js-tiktoken's module when the folder has none. */
export function nodeRankSource(directory = defaultRankDirectory()): RankSource {
  const source: RankSource = {
    readSync(encoding) {
      const path = rankFilePath(encoding, directory);
      if (!path) return runSteps(fromTiktoken(encoding, directory));
      let file: Uint8Array;
      try {
        file = brotliDecompressSync(readFileSync(path));
      } catch (error) {
        throw damaged(path, error);
      }
      return isDerivedRankFile(file) ? rebuilt(path, file, source.readSync(baseOf(encoding, path, file))) : file;
    },
    async read(encoding) {
      const path = rankFilePath(encoding, directory);
      if (!path) return runSliced(fromTiktoken(encoding, directory));
      // Decompressed on libuv's thread pool: the extension host keeps running meanwhile.
      const file = await decompress(await readFile(path)).catch((error: unknown) => {
        throw damaged(path, error);
      });
      return isDerivedRankFile(file) ? rebuilt(path, file, await source.read(baseOf(encoding, path, file))) : file;
    },
  };
  return source;
}

function baseOf(encoding: EncodingName, path: string, file: Uint8Array): EncodingName {
  const base = derivedRankFileBase(file);
  if (base === encoding || (base !== 'o200k_base' && base !== 'cl100k_base')) throw damaged(path, new Error(`written against an unknown encoding "${base}"`));
  return base;
}

function rebuilt(path: string, file: Uint8Array, base: Uint8Array): Uint8Array {
  try {
    return decodeDerivedRankFile(file, base);
  } catch (error) {
    throw damaged(path, error);
  }
}
