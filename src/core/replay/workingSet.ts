import type { Message } from '../model/message';

/** How far back the working set is measured: the last 1, 3 and 5 whole tool results (and assistant messages). */
export const WORKING_SET_DEPTHS = [1, 3, 5] as const;
export type WorkingSetDepth = (typeof WORKING_SET_DEPTHS)[number];

/** Of the last `depth` messages of one kind before each compaction, how many the next request carried unchanged. */
export interface WorkingSetShare {
  depth: WorkingSetDepth;
  /** Messages due: at each compaction, the last `depth` there were (fewer early in a run). */
  due: number;
  /** Of those, the ones the request after the compaction carried whole. */
  present: number;
  /** Compactions after which every one of them was still whole. */
  compactionsAllKept: number;
}

/** What the agent was working from when each compaction ran, and what the request after it still carried. */
export interface WorkingSetReport {
  /** Compactions followed by a request (the run's end-of-run compaction has none to check). */
  compactions: number;
  /** The last 1, 3 and 5 whole tool results before each compaction. */
  results: WorkingSetShare[];
  /** The last 1, 3 and 5 assistant messages before each compaction. */
  assistant: WorkingSetShare[];
  /**
   * Re-read estimate: the tokens of the working-set results (the last five) that a compaction
   * removed. A live agent that needs one again reads it again, at about its size in new input.
   */
  reReadTokens: number;
  /** How many results the estimate counts. */
  reReadResults: number;
}

/** The deepest depth measured: the working set the re-read estimate counts. */
const DEEPEST = WORKING_SET_DEPTHS[WORKING_SET_DEPTHS.length - 1];

/** The last messages of each kind before a compaction, newest first. */
export interface WorkingSetSnapshot {
  results: Message[];
  assistant: Message[];
}

/** Same message, unchanged: same id, kind and content (the forms compaction leaves or replaces). */
function keyOf(m: Message): string {
  return `${m.id}\u0000${m.kind}\u0000${m.content.length}`;
}

/** A tool result as it entered the context (truncated or offloaded on entry counts: that is what the agent saw). */
function isWholeResult(m: Message): boolean {
  return m.agentVisible && m.role === 'tool' && m.kind === 'tool_result';
}

function isAssistant(m: Message): boolean {
  return m.agentVisible && m.role === 'assistant' && m.kind === 'assistant';
}

function emptyShares(): WorkingSetShare[] {
  return WORKING_SET_DEPTHS.map((depth) => ({ depth, due: 0, present: 0, compactionsAllKept: 0 }));
}

export function emptyWorkingSet(): WorkingSetReport {
  return { compactions: 0, results: emptyShares(), assistant: emptyShares(), reReadTokens: 0, reReadResults: 0 };
}

/**
 * Measures the working set across a replay: take a snapshot of the working context before each
 * request is planned (`snapshot`, which walks back only as far as it must), and hand the request's
 * messages to `compacted` when a compaction ran before it.
 */
export class WorkingSetTracker {
  private readonly report = emptyWorkingSet();

  constructor(private readonly countTokens: (m: Message) => number) {}

  snapshot(working: readonly Message[]): WorkingSetSnapshot {
    const results: Message[] = [];
    const assistant: Message[] = [];
    for (let i = working.length - 1; i >= 0 && (results.length < DEEPEST || assistant.length < DEEPEST); i--) {
      const m = working[i];
      if (results.length < DEEPEST && isWholeResult(m)) results.push(m);
      else if (assistant.length < DEEPEST && isAssistant(m)) assistant.push(m);
    }
    return { results, assistant };
  }

  /** A compaction ran between `before` and the request that carries `sent`. */
  compacted(before: WorkingSetSnapshot, sent: readonly Message[]): void {
    const carried = new Set(sent.map(keyOf));
    this.report.compactions++;
    const kept = (list: Message[]) => list.map((m) => carried.has(keyOf(m)));
    const keptResults = kept(before.results);
    count(this.report.results, keptResults);
    count(this.report.assistant, kept(before.assistant));
    before.results.forEach((m, i) => {
      if (keptResults[i]) return;
      this.report.reReadResults++;
      this.report.reReadTokens += this.countTokens(m);
    });
  }

  finish(): WorkingSetReport {
    return this.report;
  }
}

/** Adds one compaction's outcome (newest first) to the shares of every depth. */
function count(shares: WorkingSetShare[], kept: boolean[]): void {
  for (const share of shares) {
    const window = kept.slice(0, share.depth);
    share.due += window.length;
    share.present += window.filter(Boolean).length;
    if (window.every(Boolean)) share.compactionsAllKept++;
  }
}

/** Adds one run's working set into a running total. */
export function addWorkingSet(total: WorkingSetReport, run: WorkingSetReport): void {
  total.compactions += run.compactions;
  total.reReadTokens += run.reReadTokens;
  total.reReadResults += run.reReadResults;
  for (const [into, from] of [[total.results, run.results], [total.assistant, run.assistant]] as const) {
    into.forEach((share, i) => {
      share.due += from[i].due;
      share.present += from[i].present;
      share.compactionsAllKept += from[i].compactionsAllKept;
    });
  }
}

/** "95.0 / 80.0 / 71.3%": the share kept at each depth, "—" when no compaction ran. */
export function workingSetShares(shares: readonly WorkingSetShare[], compactions: number): string {
  if (compactions === 0) return '—';
  return `${shares.map((s) => (s.due ? ((s.present / s.due) * 100).toFixed(1) : '—')).join(' / ')}%`;
}
