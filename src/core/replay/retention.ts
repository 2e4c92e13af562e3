import type { Message } from '../model/message';
import type { SessionStore } from '../ports/sessionStore';
import { readResult } from '../toolOutput/readResult';
import { errorLineOf, FACT_KINDS, isFailingResult, requestTextOf, type Fact, type FactKind } from './facts';

/** Due and present counts for one kind of fact; `due` 0 with `applicable` false means "n/a". */
export interface KindRetention {
  due: number;
  present: number;
  applicable: boolean;
}

/** One fact missing from one request. */
export interface LostFact {
  request: number;
  kind: FactKind;
  fact: string;
}

export interface RetentionReport {
  /** Index of the first request after a compaction (undefined: the run never compacted). */
  firstCompactedRequest?: number;
  /** Requests checked (every request from the first compaction on). */
  requestsChecked: number;
  kinds: Record<FactKind, KindRetention>;
  /** Where facts went missing: the first request each fact was lost in, at most a few hundred. */
  lost: LostFact[];
}

export interface RetentionOptions {
  /** Paths of the run's final change; undefined when the transcript does not record it (n/a). */
  finalChangePaths?: readonly string[];
  /** The system prompt, sent with every request outside the conversation. */
  systemText?: string;
}

interface RecordedRequest {
  index: number;
  messages: readonly Message[];
  due: Fact[];
  /** Tool results (by call id) that had entered the conversation before this request. */
  enteredResults: string[];
}

const MAX_LOST = 500;
const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 159)}…` : text).replace(/\s+/g, ' ');

/**
 * Follows a replay request by request and reports which facts that had entered the conversation
 * were still in each request after the run's first compaction. Give it each message as it enters
 * the working context (`entered`) and each request's messages (`request`); `finish` resolves
 * the references of removed tool results against the store with read_result.
 */
export class RetentionTracker {
  private readonly facts: Fact[] = [];
  private readonly factIds = new Set<string>();
  private readonly pendingPaths: string[];
  private latestError?: Fact;
  private readonly enteredResults: string[] = [];
  private readonly requests: RecordedRequest[] = [];
  private compactedFrom?: number;
  private requestCount = 0;

  constructor(private readonly options: RetentionOptions = {}) {
    this.pendingPaths = [...(options.finalChangePaths ?? [])];
    if (options.systemText?.trim()) this.addFact('instructions', options.systemText.trim());
  }

  private addFact(kind: FactKind, text: string): Fact {
    const id = `${kind}\u0000${text}`;
    const fact = { id, kind, text };
    if (!this.factIds.has(id)) {
      this.factIds.add(id);
      this.facts.push(fact);
    }
    return fact;
  }

  /** A message entered the working context (as recorded: after truncation and offloading). */
  entered(m: Message): void {
    if (!m.agentVisible) return;
    if (m.role === 'user' && m.kind === 'user' && m.content.trim()) this.addFact('userWords', m.content.trim());
    if (m.kind === 'instructions' && m.content.trim()) this.addFact('instructions', m.content.trim());
    if (m.role === 'tool' && m.kind === 'tool_result' && m.toolCallId) {
      this.enteredResults.push(m.toolCallId);
      if (isFailingResult(m)) {
        const line = errorLineOf(m.content);
        if (line) this.latestError = { id: 'latestError', kind: 'latestError', text: line.slice(0, 600) };
      }
    }
    if (this.pendingPaths.length) {
      const text = requestTextOf(m);
      for (let i = this.pendingPaths.length - 1; i >= 0; i--) {
        if (text.includes(this.pendingPaths[i])) this.addFact('finalChangePaths', this.pendingPaths.splice(i, 1)[0]);
      }
    }
  }

  /** A request was planned; `compacted` is true when a compaction ran right before it. */
  request(messages: readonly Message[], compacted: boolean): void {
    const index = this.requestCount++;
    if (compacted && this.compactedFrom === undefined) this.compactedFrom = index;
    if (this.compactedFrom === undefined) return;
    const due = this.facts.filter((f) => f.kind !== 'instructions' || f.text !== this.options.systemText?.trim());
    if (this.latestError) due.push(this.latestError);
    this.requests.push({ index, messages, due, enteredResults: [...this.enteredResults] });
  }

  async finish(store: SessionStore, sessionId: string): Promise<RetentionReport> {
    const kinds = Object.fromEntries(FACT_KINDS.map((k) => [k, { due: 0, present: 0, applicable: true }])) as Record<FactKind, KindRetention>;
    kinds.finalChangePaths.applicable = this.options.finalChangePaths !== undefined;
    const lost: LostFact[] = [];
    const lostOnce = new Set<string>();
    const lose = (request: number, kind: FactKind, fact: string) => {
      const key = `${kind}\u0000${fact}`;
      if (lostOnce.has(key) || lost.length >= MAX_LOST) return;
      lostOnce.add(key);
      lost.push({ request, kind, fact: clip(fact) });
    };
    const contains = presenceCache();
    const refsByCall = new Map<string, string[]>();
    for (const blob of await store.listBlobs(sessionId)) {
      if (blob.toolCallId) refsByCall.set(blob.toolCallId, [...(refsByCall.get(blob.toolCallId) ?? []), blob.id]);
    }
    const resolves = new Map<string, Promise<boolean>>();
    const resolvable = (ref: string) => {
      let known = resolves.get(ref);
      if (!known) {
        known = readResult(store, { ref_id: ref, limit: 1 }).then(() => true, () => false);
        resolves.set(ref, known);
      }
      return known;
    };

    for (const request of this.requests) {
      // The system prompt travels outside the conversation with every request.
      if (this.options.systemText?.trim()) {
        kinds.instructions.due++;
        kinds.instructions.present++;
      }
      for (const fact of request.due) {
        kinds[fact.kind].due++;
        if (request.messages.some((m) => contains(m, fact.text))) kinds[fact.kind].present++;
        else lose(request.index, fact.kind, fact.text);
      }
      const whole = new Set(request.messages.filter((m) => m.kind === 'tool_result' && m.toolCallId).map((m) => m.toolCallId!));
      for (const callId of request.enteredResults) {
        if (whole.has(callId)) continue;
        kinds.removedResultRefs.due++;
        let found = false;
        for (const ref of refsByCall.get(callId) ?? []) {
          if (request.messages.some((m) => contains(m, ref)) && (await resolvable(ref))) {
            found = true;
            break;
          }
        }
        if (found) kinds.removedResultRefs.present++;
        else lose(request.index, 'removedResultRefs', `result of tool call ${callId}`);
      }
    }
    return { firstCompactedRequest: this.compactedFrom, requestsChecked: this.requests.length, kinds, lost };
  }
}

/** Memoized "does this message carry this text": messages repeat across requests. */
function presenceCache(): (m: Message, text: string) => boolean {
  const cache = new Map<string, Map<string, boolean>>();
  return (m, text) => {
    const key = `${m.id}\u0000${m.kind}\u0000${m.content.length}`;
    let known = cache.get(key);
    if (!known) cache.set(key, (known = new Map()));
    let found = known.get(text);
    if (found === undefined) {
      found = requestTextOf(m).includes(text);
      known.set(text, found);
    }
    return found;
  };
}

/** Adds one run's retention into a running total (for "all runs" lines). */
export function addRetention(total: Record<FactKind, KindRetention>, run: Record<FactKind, KindRetention>): void {
  for (const kind of FACT_KINDS) {
    total[kind].due += run[kind].due;
    total[kind].present += run[kind].present;
    total[kind].applicable ||= run[kind].applicable;
  }
}

export function emptyRetention(): Record<FactKind, KindRetention> {
  return Object.fromEntries(FACT_KINDS.map((k) => [k, { due: 0, present: 0, applicable: false }])) as Record<FactKind, KindRetention>;
}

/** "97.3%", or "n/a" when the kind does not apply, or "—" when nothing was due. */
export function retentionShare(k: KindRetention): string {
  if (!k.applicable) return 'n/a';
  if (k.due === 0) return '—';
  return `${((k.present / k.due) * 100).toFixed(1)}%`;
}
