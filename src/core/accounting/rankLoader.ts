import { nextTurn } from '../nextTurn';
import type { RankSource } from '../ports/rankSource';
import { buildRankTable, type EncodingName, type LoadedRanks } from './rankTable';

export type { EncodingName, LoadedRanks };

let installed: RankSource | undefined;

/** Sets where every token counter reads its ranks from; each entry point installs one before counting. */
export function useRankSource(source: RankSource): void {
  installed = source;
}

function currentSource(): RankSource {
  if (!installed) throw new Error("Tally's token ranks cannot be loaded: no rank source is installed (useRankSource)");
  return installed;
}

/** Runs a stepped computation to the end without pausing. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export function loadRanksSync(encoding: EncodingName, source: RankSource = currentSource()): LoadedRanks {
  return runSteps(buildRankTable(source.readSync(encoding)));
}

/** The same table, read without blocking and built in slices with a turn for the event loop between them. */
export async function loadRanksAsync(encoding: EncodingName, source: RankSource = currentSource()): Promise<LoadedRanks> {
  return runSliced(buildRankTable(await source.read(encoding)));
}

/** Runs a stepped computation with a turn for the event loop between steps. */
export async function runSliced<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}
