import { nextTurn } from '../nextTurn';
import type { RankMap } from './bpeCount';

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface LoadedRanks {
  rankMap: RankMap;
  /** The encoding's pre-tokenizer pattern (the regex that splits text into pieces). */
  pattern: string;
}

interface RanksModule {
  pat_str: string;
  bpe_ranks: string;
}

/** Tokens added to the map between pauses when loading asynchronously (≈ 25 ms of work). */
const TOKENS_PER_PAUSE = 20_000;

function ranksModule(encoding: EncodingName): RanksModule {
  // Required here, not at the top, so activation never pays for parsing the ranks module.
  const module = encoding === 'cl100k_base' ? require('js-tiktoken/ranks/cl100k_base') : require('js-tiktoken/ranks/o200k_base');
  return module.default ?? module;
}

/**
 * Builds the byte-sequence → rank map from js-tiktoken's compressed ranks ("! <offset> <base64>…"
 * runs), keyed the way js-tiktoken keys it (bytes joined by commas). A later duplicate of a token
 * wins, as in js-tiktoken. The generator pauses every few thousand tokens.
 */
function* buildRanks(encoding: EncodingName): Generator<void, LoadedRanks> {
  const source = ranksModule(encoding);
  const rankMap: RankMap = new Map();
  let added = 0;
  for (const line of source.bpe_ranks.split('\n')) {
    if (!line) continue;
    const fields = line.split(' ');
    const offset = Number.parseInt(fields[1], 10);
    for (let i = 2; i < fields.length; i++) {
      rankMap.set(Buffer.from(fields[i], 'base64').join(','), offset + i - 2);
      if (++added % TOKENS_PER_PAUSE === 0) yield;
    }
  }
  return { rankMap, pattern: source.pat_str };
}

export function loadRanksSync(encoding: EncodingName): LoadedRanks {
  const steps = buildRanks(encoding);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same map, built in slices with a turn for the event loop between them. */
export async function loadRanksAsync(encoding: EncodingName): Promise<LoadedRanks> {
  const steps = buildRanks(encoding);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}
