import { existsSync, readFileSync } from 'fs';
import { readFile } from 'fs/promises';
import { join } from 'path';
import { nextTurn } from '../nextTurn';
import { encodeRankFileSteps, rankFileName, tiktokenRanksModule } from '../../node/accounting/rankFile';
import { buildRankTable, type EncodingName, type LoadedRanks } from './rankTable';

export type { EncodingName, LoadedRanks };

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

function run<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export function loadRanksSync(encoding: EncodingName, directory = defaultRankDirectory()): LoadedRanks {
  const path = rankFilePath(encoding, directory);
  return run(buildRankTable(path ? readFileSync(path) : run(fromTiktoken(encoding, directory))));
}

/** The same table, read without blocking and built in slices with a turn for the event loop between them. */
export async function loadRanksAsync(encoding: EncodingName, directory = defaultRankDirectory()): Promise<LoadedRanks> {
  const path = rankFilePath(encoding, directory);
  const file = path ? await readFile(path) : await runSliced(fromTiktoken(encoding, directory));
  return runSliced(buildRankTable(file));
}

async function runSliced<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}
