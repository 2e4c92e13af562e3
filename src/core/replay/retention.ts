import type { Message } from '../model/message';
import type { SessionStore } from '../ports/sessionStore';
import { readResult } from '../toolOutput/readResult';
import { countDown, countUp, LiveResults, type ResultFacts } from './liveResults';
import { sharedStart } from './sharedStart';
import { FACT_KINDS, requestTextOf, type Fact, type FactKind } from './facts';
import { commandOf, errorLineOf, isFailingResult } from '../compaction/sessionFacts';
import { pathsOfCall, samePath } from '../compaction/callPaths';
import { openTodoLines } from '../plan/todoList';
import { commandKeyOf, errorLocationOf, isTestOrBuildCommand, numbersIn } from '../compaction/workFacts';

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

/** What the retention check reads of one message, worked out once per message object. */
interface MessageFacts extends ResultFacts {
  /** Same id, kind and length: the same message for the presence checks. */
  key: string;
}

/**
 * What is kept of one request for the removed-result check, which needs the store: the messages
 * that left and came since the previous checked request (the first one: all of them came).
 */
interface RecordedRequest {
  index: number;
  /** How many tool results had entered the conversation before this request. */
  enteredCount: number;
  gone: MessageFacts[];
  came: MessageFacts[];
}

const MAX_LOST = 500;
/** A fact as searched for: some ids (the latest error) keep their id as their text changes. */
const absentKey = (fact: Fact) => `${fact.id}\u0000${fact.text}\u0000${fact.alsoAs ?? ''}`;
const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 159)}…` : text).replace(/\s+/g, ' ');
/** The shape of a stored result's reference (see the blob store's ids). */
const REF = /\br(?:\d{28}|[0-9a-z]{9}[0-9a-f]{12})\b/g;

/**
 * Follows a replay request by request and reports which facts that had entered the conversation
 * were still in each request after the run's first compaction. Give it each message as it enters
 * the working context (`entered`) and each request's messages (`request`); `finish` resolves
 * the references of removed tool results against the store with read_result.
 * Each request is checked when it is planned, from what changed since the previous request (the
 * messages past the start they share), and only those changes are kept for `finish`, so the work
 * and memory grow with what the requests change, not with their sizes times the run.
 */
export class RetentionTracker {
  private readonly facts: Fact[] = [];
  private readonly factIds = new Set<string>();
  private readonly pendingPaths: string[];
  /** The file an editor tool opened last (an edit that names no path changes it). */
  private openFile?: string;
  /** Final-change paths the agent's own actions changed, with the name its action gave the file (`foobar/a.py` after a `cd`). */
  private readonly changedByAgent = new Map<string, string>();
  /** Final-change paths the conversation has named as the change names them. */
  private readonly named = new Set<string>();
  private latestError?: Fact;
  /** The numbers in the latest error (its line and where it happened): replaced with it. */
  private latestErrorNumbers: Fact[] = [];
  /** The open items of the agent's latest todo list, as its lines read: replaced with the list. */
  private openTodos: Fact[] = [];
  /** The command whose result is the latest error, and the test or build command run last. */
  private latestErrorCommand?: Fact;
  private lastCheckCommand?: Fact;
  /** Commands of the calls whose results have not come yet, by call id: their first line, and whether they check the work. */
  private readonly pendingCommands = new Map<string, { key: string; check: boolean }>();
  private readonly enteredResults: string[] = [];
  private readonly requests: RecordedRequest[] = [];
  private compactedFrom?: number;
  private requestCount = 0;
  private readonly kinds = Object.fromEntries(FACT_KINDS.map((k) => [k, { due: 0, present: 0, applicable: true }])) as Record<FactKind, KindRetention>;
  private readonly lost: LostFact[] = [];
  private readonly lostOnce = new Set<string>();
  private readonly contains = presenceCache();
  /** The message (by key) that held each fact last time: usually it still does. */
  private readonly holder = new Map<string, string>();
  /** The last checked request's messages, and how many of them have each key. */
  private lastChecked: readonly Message[] = [];
  private readonly keysInRequest = new Map<string, number>();
  /** Facts the last checked request held nowhere: searched again only in the messages that came since. */
  private readonly absent = new Set<string>();

  constructor(private readonly options: RetentionOptions = {}) {
    this.pendingPaths = [...(options.finalChangePaths ?? [])];
    this.kinds.finalChangePaths.applicable = options.finalChangePaths !== undefined;
    if (options.systemText?.trim()) this.addFact('instructions', options.systemText.trim());
  }

  private addFact(kind: FactKind, text: string): Fact {
    const id = `${kind}\u0000${text}`;
    const fact: Fact = { id, kind, text };
    if (!this.factIds.has(id)) {
      this.factIds.add(id);
      this.facts.push(fact);
    }
    return fact;
  }

  private lose(request: number, kind: FactKind, fact: string): void {
    const key = `${kind}\u0000${fact}`;
    if (this.lostOnce.has(key) || this.lost.length >= MAX_LOST) return;
    this.lostOnce.add(key);
    this.lost.push({ request, kind, fact: clip(fact) });
  }

  /** A message entered the working context (as recorded: after truncation and offloading). */
  entered(m: Message): void {
    if (!m.agentVisible) return;
    if (m.role === 'user' && m.kind === 'user' && m.content.trim()) {
      this.addFact('userWords', m.content.trim());
      for (const n of numbersIn(m.content)) this.addFact('numbers', n);
    }
    if (m.kind === 'instructions' && m.content.trim()) this.addFact('instructions', m.content.trim());
    if (m.role === 'assistant') {
      for (const call of m.toolCalls ?? []) {
        const command = commandOf(call);
        if (command !== undefined && commandKeyOf(command)) this.pendingCommands.set(call.id, { key: commandKeyOf(command), check: isTestOrBuildCommand(command) });
      }
    }
    const todos = openTodoLines(m);
    if (todos) this.openTodos = todos.map((line) => ({ id: `openTodo\u0000${line}`, kind: 'openTodos', text: line }));
    if (m.role === 'tool' && m.kind === 'tool_result' && m.toolCallId) {
      this.enteredResults.push(m.toolCallId);
      const command = this.pendingCommands.get(m.toolCallId);
      this.pendingCommands.delete(m.toolCallId);
      if (command?.check) this.lastCheckCommand = commandFact('lastCheckCommand', command.key);
      if (isFailingResult(m)) {
        const line = errorLineOf(m.content);
        if (line) {
          this.latestError = { id: 'latestError', kind: 'latestError', text: line.slice(0, 600) };
          const location = errorLocationOf(m.content, line);
          this.latestErrorNumbers = numbersIn(`${line.slice(0, 600)}\n${location ?? ''}`).map((n) => ({ id: `latestErrorNumber\u0000${n}`, kind: 'numbers', text: n }));
          this.latestErrorCommand = command === undefined ? undefined : commandFact('latestErrorCommand', command.key);
        }
      }
    }
    if (m.role === 'tool') {
      const open = /\(Open file: ([^)\n]+)\)/.exec(m.content.slice(-400));
      if (open && open[1].trim() !== 'n/a') this.openFile = open[1].trim();
    }
    // A path of the final change is due once the agent's own action changed it (an edit tool, or a
    // command that wrote it) and the conversation has named it as the change names it: files the
    // environment changed before the run are not the agent's work.
    for (const call of m.role === 'assistant' ? m.toolCalls ?? [] : []) {
      const paths = pathsOfCall(call, this.openFile);
      if (paths.opened) this.openFile = paths.opened;
      for (const path of this.pendingPaths) {
        const written = paths.changed.find((p) => samePath(p, path));
        if (written !== undefined && !this.changedByAgent.has(path)) this.changedByAgent.set(path, written);
      }
    }
    if (this.pendingPaths.length) {
      const text = requestTextOf(m);
      for (const path of this.pendingPaths) if (text.includes(path)) this.named.add(path);
      for (let i = this.pendingPaths.length - 1; i >= 0; i--) {
        const path = this.pendingPaths[i];
        const written = this.changedByAgent.get(path);
        if (!this.named.has(path) || written === undefined) continue;
        // Kept by the change's name, or by the one the agent's own command gave it.
        const fact = this.addFact('finalChangePaths', this.pendingPaths.splice(i, 1)[0]);
        if (written !== path) fact.alsoAs = written;
      }
    }
  }

  /** A request was planned; `compacted` is true when a compaction ran right before it. */
  request(messages: readonly Message[], compacted: boolean): void {
    const index = this.requestCount++;
    if (compacted && this.compactedFrom === undefined) this.compactedFrom = index;
    if (this.compactedFrom === undefined) return;
    const system = this.options.systemText?.trim();
    // The system prompt travels outside the conversation with every request.
    if (system) {
      this.kinds.instructions.due++;
      this.kinds.instructions.present++;
    }
    const shared = sharedStart(this.lastChecked, messages);
    const gone = this.lastChecked.slice(shared).map(factsOf);
    const came = messages.slice(shared).map(factsOf);
    this.lastChecked = messages;
    for (const f of gone) countDown(this.keysInRequest, f.key);
    for (const f of came) countUp(this.keysInRequest, f.key);
    const due = this.facts.filter((f) => f.kind !== 'instructions' || f.text !== system);
    if (this.latestError) due.push(this.latestError);
    for (const fact of [this.latestErrorCommand, this.lastCheckCommand]) if (fact && !due.some((d) => d.kind === 'commands' && d.text === fact.text)) due.push(fact);
    for (const fact of this.latestErrorNumbers) if (!due.some((d) => d.kind === 'numbers' && d.text === fact.text)) due.push(fact);
    due.push(...this.openTodos);
    for (const fact of due) {
      this.kinds[fact.kind].due++;
      const last = this.holder.get(fact.id);
      let present = last !== undefined && this.keysInRequest.has(last);
      if (!present) {
        // A fact the previous request did not hold can only be in the messages that came since.
        // Those messages are looked at for it once (the next request shares them): not remembered.
        const wasAbsent = this.absent.has(absentKey(fact));
        const holds = wasAbsent ? (m: Message, text: string) => requestTextOf(m).includes(text) : this.contains;
        let at = -1;
        for (let i = wasAbsent ? shared : 0; i < messages.length && at < 0; i++) if (holds(messages[i], fact.text) || (fact.alsoAs !== undefined && holds(messages[i], fact.alsoAs))) at = i;
        present = at >= 0;
        if (present) this.holder.set(fact.id, factsOf(messages[at]).key);
      }
      if (present) {
        this.kinds[fact.kind].present++;
        this.absent.delete(absentKey(fact));
      } else {
        this.absent.add(absentKey(fact));
        this.lose(index, fact.kind, fact.text);
      }
    }
    this.requests.push({ index, enteredCount: this.enteredResults.length, gone, came });
  }

  async finish(store: SessionStore, sessionId: string): Promise<RetentionReport> {
    const callOf = new Map<string, string>();
    for (const blob of await store.listBlobs(sessionId)) if (blob.toolCallId) callOf.set(blob.id, blob.toolCallId);
    const resolves = new Map<string, boolean>();
    const toResolve = new Set<string>();
    for (const request of this.requests) for (const f of request.came) for (const ref of f.refs) if (callOf.has(ref)) toResolve.add(ref);
    // Reads are independent: they wait for the disk together, a few at a time.
    const pending = [...toResolve];
    for (let start = 0; start < pending.length; start += RESOLVE_BATCH) {
      const batch = pending.slice(start, start + RESOLVE_BATCH);
      const found = await Promise.all(batch.map((ref) => readResult(store, sessionId, { ref_id: ref, limit: 1 }).then(() => true, () => false)));
      batch.forEach((ref, i) => resolves.set(ref, found[i]));
    }
    const kind = this.kinds.removedResultRefs;
    const live = new LiveResults((ref) => (resolves.get(ref) ? callOf.get(ref) : undefined));
    /** Entered results (by position) whose loss has not been reported, oldest first. */
    const unreported: number[] = [];
    let entered = 0;
    for (const request of this.requests) {
      for (const m of request.gone) live.leave(m);
      for (const m of request.came) live.come(m);
      const removed = request.enteredCount - live.wholeCount;
      kind.due += removed;
      kind.present += Math.min(live.reachableCount, removed);
      if (live.reachableCount >= removed || this.lost.length >= MAX_LOST) continue;
      // A result's loss is reported once: only results not reported yet are looked at again.
      while (entered < request.enteredCount) unreported.push(entered++);
      let kept = 0;
      for (let n = 0; n < unreported.length; n++) {
        const at = unreported[n];
        const callId = this.enteredResults[at];
        if (this.lost.length >= MAX_LOST || live.hasWhole(callId) || live.reaches(callId)) unreported[kept++] = at;
        else this.lose(request.index, 'removedResultRefs', `result of tool call ${callId}`);
      }
      unreported.length = kept;
    }
    return { firstCompactedRequest: this.compactedFrom, requestsChecked: this.requests.length, kinds: this.kinds, lost: this.lost };
  }
}

const RESOLVE_BATCH = 32;

/** A command fact: found as written (a summary) or as a tool call's JSON arguments hold it. */
function commandFact(role: string, command: string): Fact {
  const escaped = JSON.stringify(command).slice(1, -1);
  return { id: `${role}\u0000${command}`, kind: 'commands', text: command, alsoAs: escaped === command ? undefined : escaped };
}

const factsMemo = new WeakMap<Message, MessageFacts>();

function factsOf(m: Message): MessageFacts {
  let facts = factsMemo.get(m);
  if (!facts) {
    facts = { key: `${m.id}\u0000${m.kind}\u0000${m.content.length}`, refs: unique(requestTextOf(m).match(REF) ?? []) };
    if (m.kind === 'tool_result' && m.toolCallId) facts.call = m.toolCallId;
    factsMemo.set(m, facts);
  }
  return facts;
}

const unique = (list: string[]) => (list.length > 1 ? [...new Set(list)] : list);

/** Memoized "does this message carry this text": messages repeat across requests. */
function presenceCache(): (m: Message, text: string) => boolean {
  const cache = new Map<string, Map<string, boolean>>();
  return (m, text) => {
    const { key } = factsOf(m);
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
