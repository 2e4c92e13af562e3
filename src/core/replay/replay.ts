import type { TokenCounter } from '../accounting/tokenizer';
import type { FixedComponents } from '../accounting/usageBasis';
import type { Message, ToolCall } from '../model/message';
import type { CompactionEventRecord, ComponentTokens, RequestItem } from '../model/records';
import { fixedOf, promptSection, type PromptSections } from '../prompt/promptSections';
import { countMessage } from '../accounting/messageTokens';
import type { SessionStore } from '../ports/sessionStore';
import { DEFAULT_SETTINGS, type ContextSettings } from '../settings';
import { ContextSession } from '../context/contextSession';
import type { PlannedRequest } from '../context/contextSessionTypes';
import type { ReplayPolicy } from './baselines';
import { PairingCheck } from './pairingCheck';
import { RetentionTracker, type RetentionReport } from './retention';
import { RunningTotal, RunningTotals } from './sharedStart';
import { WorkingSetTracker, type WorkingSetReport } from './workingSet';

/** Cache pricing used for the effective cost: cached input 0.1×, cache write 1.25× (the providers' usual cache pricing). */
export const CACHE_READ_PRICE = 0.1;
export const CACHE_WRITE_PRICE = 1.25;

export interface RequestReport {
  index: number;
  components: ComponentTokens;
  totalTokens: number;
  /** Tokens identical to the previous request's prefix (the prompt-cache proxy). */
  prefixTokens: number;
  overWindow: boolean;
  brokenPairs: string[];
  truncated: number;
  offloaded: number;
  archived: number;
  summarized: number;
  compaction?: CompactionReport;
  /** With `withItems`: every item of the request, in prompt order; their tokens add up to totalTokens. */
  items?: ReplayItem[];
}

/** A compaction as the replay report shows it, with the summary it wrote (when it wrote one). */
export interface CompactionReport {
  id: string;
  strategies: string[];
  tokensBefore: number;
  tokensAfter: number;
  summary?: string;
}

/** One item of a replayed request, as `tally replay --json` writes it. */
export interface ReplayItem {
  id: string;
  kind: string;
  section?: string;
  label: string;
  source?: string;
  path?: string;
  tokens: number;
}

export function replayItemOf(item: RequestItem): ReplayItem {
  const out: ReplayItem = { id: item.messageId, kind: item.kind, label: item.label ?? (item.toolName ? `${item.role} · ${item.toolName}` : item.role), tokens: item.tokens };
  if (item.section) out.section = item.section;
  if (item.source) out.source = item.source;
  if (item.path) out.path = item.path;
  return out;
}

export interface RunReport {
  label: string;
  policy: string;
  contextWindow: number;
  maxOutputTokens: number;
  effectiveWindow: number;
  requests: number;
  peakRequestTokens: number;
  cumulativeInputTokens: number;
  /** Token-weighted share of input that repeats the previous request's prefix. */
  prefixReuse: number;
  /** Mean of the per-request shares (requests after the first). */
  meanPrefixReuse: number;
  effectiveCost: number;
  /**
   * The effective cost with the re-read estimate added: each working-set result a compaction
   * removed, read again as new input (its tokens at the cache-write price).
   */
  effectiveCostWithReRead: number;
  compactions: number;
  /** The compaction that ran at the end of the run, where no request followed it. */
  endCompaction?: CompactionReport;
  violations: { overWindow: number; brokenPairs: number };
  durationMs: number;
  sessionId: string;
  /** Which facts stayed in the requests after the first compaction. */
  retention: RetentionReport;
  /** What the agent was working from at each compaction, and what the next request still carried. */
  workingSet: WorkingSetReport;
  requestsDetail: RequestReport[];
}

export interface ReplayOptions {
  label: string;
  messages: readonly Message[];
  policy: ReplayPolicy;
  store: SessionStore;
  counter: TokenCounter;
  contextWindow: number;
  maxOutputTokens: number;
  baseSettings?: ContextSettings;
  /** Paths of the run's final change, when the transcript records it (for the retention check). */
  finalChangePaths?: readonly string[];
  /** Keep each request's items in its report (for `--json`; large runs use a lot of memory). */
  withItems?: boolean;
  /** Called after each request is planned and recorded (progress reporting; a seeder flushes the store here), awaited. */
  onRequest?: (report: RequestReport) => void | Promise<void>;
  /** The session as it is listed; by default a replay of `label` (a seeder writes a chat session). */
  session?: { title: string; origin: string };
  /** The model each usage record names; by default `replay:<policy>`. */
  model?: string;
  /**
   * Follow which facts each request keeps and what each compaction cost the working set (default
   * true). A seeder writing a session for a bench reads neither, and leaves them empty.
   */
  checks?: boolean;
}

/** The badges a request report counts, in the order of its fields. */
const COUNTED_BADGES: ReadonlyArray<RequestItem['badges'][number]> = ['truncated', 'offloaded', 'archived', 'summarized'];

/**
 * How many items carry each counted badge. A session hands out the same item objects while they
 * are unchanged, so the counts are kept over the start shared with the previous request's items.
 */
function badgeCounts(): RunningTotals<RequestItem> {
  return new RunningTotals<RequestItem>(COUNTED_BADGES.length, (item, row) => {
    for (const badge of item.badges) {
      const k = COUNTED_BADGES.indexOf(badge);
      if (k >= 0) row[k]++;
    }
  });
}

function compactionReport(c: CompactionEventRecord): CompactionReport {
  const out: CompactionReport = { id: c.id, strategies: c.strategies, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter };
  if (c.summary !== undefined) out.summary = c.summary;
  return out;
}

/** The same message as the previous request sent, for the prompt-cache estimate (no key strings built per message per request). */
function sameSent(a: Message, b: Message): boolean {
  return a === b || (a.id === b.id && a.content.length === b.content.length && a.kind === b.kind);
}

/**
 * Feeds a recorded run through the real context manager one message at a time, as the agent loop
 * would: before each assistant message the request the model would have received is planned,
 * measured and checked; tool outputs go through truncation and offloading.
 */
export async function replayRun(options: ReplayOptions): Promise<RunReport> {
  const started = Date.now();
  const { counter, store } = options;
  const settings = options.policy.settings({ ...(options.baseSettings ?? DEFAULT_SETTINGS), contextWindow: options.contextWindow, maxOutputTokens: options.maxOutputTokens });
  const session = await store.createSession(options.session ?? { title: `${options.label} (${options.policy.name})`, origin: `replay:${options.label}` });
  const contextSession = await ContextSession.open({
    store,
    sessionId: session.id,
    settings,
    counter,
    strategies: options.policy.strategies,
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
  });

  const systemText = options.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const sections: PromptSections = {
    system: systemText ? [promptSection(counter, { id: 'system:recorded', kind: 'system-section', label: 'System prompt (recorded)', text: systemText })] : [],
    tools: [],
    dynamic: [],
  };
  const fixed: FixedComponents = fixedOf(sections);
  const prefix = `${session.id.slice(-6)}:`;
  const retention = new RetentionTracker({ finalChangePaths: options.finalChangePaths, systemText });
  const workingSet = new WorkingSetTracker((m) => countMessage(m, counter));
  const checks = options.checks !== false;
  const openCalls = new Map<string, ToolCall>();
  const reports: RequestReport[] = [];
  let previous: readonly Message[] | undefined;
  let compactions = 0;
  // The prefix tokens and the pairing check redo only what changed since the previous request.
  const sentTokens = new RunningTotal<Message>((m) => countMessage(m, counter));
  const badges = badgeCounts();
  const pairing = new PairingCheck();

  // The session hands out the same item objects while their messages are unchanged: each is described once.
  const described = new WeakMap<RequestItem, ReplayItem>();
  const itemOf = (item: RequestItem): ReplayItem => {
    let out = described.get(item);
    if (!out) described.set(item, (out = replayItemOf(item)));
    return out;
  };

  /** Describes one planned request: size, prefix reuse with the previous one, pairing, badges. */
  const reportOf = (request: PlannedRequest): RequestReport => {
    const { plan } = request;
    const compaction = request.compactionId ? request.compaction : undefined;
    const sent = plan.messages;
    sentTokens.update(sent);
    let prefixTokens = previous ? fixed.system + fixed.tools + fixed.skills + (fixed.hooks ?? 0) : 0;
    if (previous) {
      let same = 0;
      while (same < sent.length && same < previous.length && sameSent(sent[same], previous[same])) same++;
      prefixTokens += sentTokens.total(same);
    }
    previous = sent;
    badges.update(plan.items);
    const report: RequestReport = {
      index: reports.length,
      components: { ...plan.budget.components },
      totalTokens: plan.budget.used,
      prefixTokens,
      overWindow: plan.budget.used > plan.budget.effectiveWindow,
      brokenPairs: pairing.check(plan.messages),
      truncated: badges.total(0),
      offloaded: badges.total(1),
      archived: badges.total(2),
      summarized: badges.total(3),
      compaction: compaction && compactionReport(compaction),
    };
    if (options.withItems) report.items = plan.items.map(itemOf);
    return report;
  };

  const planRequest = async () => {
    const before = checks ? workingSet.snapshot(contextSession.messages) : undefined;
    // A blocked request is measured and recorded as if sent: the report counts it over the window.
    const request = await contextSession.nextRequest({ fixed, sections });
    if (request.compactionId) {
      compactions++;
      if (before) workingSet.compacted(before, request.plan.messages);
    }
    const report = reportOf(request);
    reports.push(report);
    if (checks) retention.request(request.plan.messages, Boolean(request.compactionId));
    await contextSession.recordResponse(request, { model: options.model ?? `replay:${options.policy.name}` });
    await options.onRequest?.(report);
  };

  for (const source of options.messages) {
    if (source.role === 'system') continue;
    const message: Message = { ...source, id: prefix + source.id };
    if (message.role === 'assistant') {
      await planRequest();
      for (const m of await contextSession.append(message)) if (checks) retention.entered(m);
      for (const call of message.toolCalls ?? []) openCalls.set(call.id, call);
    } else if (message.role === 'tool') {
      const call = message.toolCallId ? openCalls.get(message.toolCallId) : undefined;
      if (!call || !contextSession.openCallIds().has(call.id)) continue; // broken pair in the source: the normalizer covers it
      openCalls.delete(call.id);
      const entered = await contextSession.recordToolResult(call, source.content, { isError: Boolean(source.meta?.isError) });
      if (checks) retention.entered(entered);
    } else {
      for (const m of await contextSession.append(message)) if (checks) retention.entered(m);
    }
  }
  // The run ends where the product would prepare its next request: a context left over the
  // compaction threshold (a last user or tool message no request followed) is compacted as that
  // request would compact it, so the replayed session obeys the thresholds the product keeps.
  let endCompaction: CompactionReport | undefined;
  if (contextSession.measure(fixed).shouldCompact()) {
    const next = await contextSession.nextRequest({ fixed, sections });
    if (next.compactionId && next.compaction) {
      compactions++;
      endCompaction = compactionReport(next.compaction);
    }
  }
  await store.flush();

  const effective = contextSession.measure(fixed).effectiveWindow;
  const cumulative = reports.reduce((n, r) => n + r.totalTokens, 0);
  const reused = reports.reduce((n, r) => n + r.prefixTokens, 0);
  const later = reports.slice(1);
  const effectiveCost = reports.reduce((n, r) => n + CACHE_READ_PRICE * r.prefixTokens + CACHE_WRITE_PRICE * (r.totalTokens - r.prefixTokens), 0);
  const working = workingSet.finish();
  return {
    label: options.label,
    policy: options.policy.name,
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
    effectiveWindow: effective,
    requests: reports.length,
    peakRequestTokens: reports.reduce((max, r) => Math.max(max, r.totalTokens), 0),
    cumulativeInputTokens: cumulative,
    prefixReuse: cumulative ? reused / cumulative : 0,
    meanPrefixReuse: later.length ? later.reduce((n, r) => n + (r.totalTokens ? r.prefixTokens / r.totalTokens : 0), 0) / later.length : 0,
    effectiveCost,
    effectiveCostWithReRead: effectiveCost + CACHE_WRITE_PRICE * working.reReadTokens,
    compactions,
    endCompaction,
    violations: {
      overWindow: reports.filter((r) => r.overWindow).length,
      brokenPairs: reports.filter((r) => r.brokenPairs.length > 0).length,
    },
    durationMs: Date.now() - started,
    sessionId: session.id,
    retention: await retention.finish(store, session.id),
    workingSet: working,
    requestsDetail: reports,
  };
}
