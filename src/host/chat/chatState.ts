import type { Message } from '../../core/model/message';
import type { CompactionEventRecord, TurnUsageRecord } from '../../core/model/records';
import type { SessionInfo } from '../../core/ports/sessionStore';
import type { ModelPrices } from '../../core/providers/modelRegistry';
import type { ChatEntry, ChatState, ChatToolCallView, ChatTurnUsage } from '../../protocol/chat';
import { compactionActivity, type CompactionActivity } from '../session/compactionActivity';
import { ChatTimeline } from './chatTimeline';
import { chatMeter, itemTokens, turnUsage, usageByTurn } from '../session/turnFigures';
import type { ActiveSession } from '../session/sessionPorts';
import { turnNotice, type LiveTurn, type TurnNotice } from '../session/turnTracker';
import { countOf } from '../../protocol/wording';

/** What the chat shows besides the stored conversation. */
export interface ChatExtras {
  live?: LiveTurn;
  ended?: readonly TurnNotice[];
  usage?: readonly TurnUsageRecord[];
  priceOverrides?: Record<string, ModelPrices>;
  /** A message typed while no model was configured, sent once one is chosen. */
  pending?: string;
  /** The compaction running now. */
  compacting?: CompactionActivity;
  /** The last turn failed and can be sent again. */
  canRetry?: boolean;
}

/** A `/compact` that found nothing to remove is recorded as skipped: the chat says so. */
function nothingToCompact(record: CompactionEventRecord): ChatEntry {
  return { kind: 'notice', id: record.id, level: 'info', text: `Nothing to compact: the context (${countOf(record.tokensBefore, 'token')}) has nothing the strategies can remove yet.` };
}

/**
 * What earlier refreshes built, reused while unchanged: the stored messages' entries (extended
 * with what was appended), compaction entries and each turn's figures. A refresh then builds only
 * what changed, and the host can tell the webview which entries are new by their identity alone.
 */
export class ChatEntryMemo {
  readonly timeline = new ChatTimeline();
  readonly compactions = new WeakMap<CompactionEventRecord, ChatEntry>();
  readonly turnFigures = new Map<string, ChatEntry>();
}

function compactionEntry(record: CompactionEventRecord, memo: ChatEntryMemo): ChatEntry {
  let entry = memo.compactions.get(record);
  if (!entry) {
    entry = record.status === 'skipped' ? nothingToCompact(record) : { kind: 'compaction', id: record.id, record };
    memo.compactions.set(record, entry);
  }
  return entry;
}

function sameFigures(a: ChatTurnUsage, b: ChatTurnUsage): boolean {
  return (Object.keys(a) as Array<keyof ChatTurnUsage>).every((k) => a[k] === b[k]) && Object.keys(a).length === Object.keys(b).length;
}

/** A turn's figures entry: the previous object while the figures are the same. */
function figuresEntry(turnOf: string, figures: ChatTurnUsage, memo: ChatEntryMemo): ChatEntry {
  const before = memo.turnFigures.get(turnOf);
  if (before?.kind === 'usage' && sameFigures(before.usage, figures)) return before;
  const entry: ChatEntry = { kind: 'usage', id: `usage-${turnOf}`, usage: figures };
  memo.turnFigures.set(turnOf, entry);
  return entry;
}

/**
 * The conversation as the user saw it: the full transcript (not the compacted context), with
 * compaction notices in place, then the running turn (`live`) or what the last turn left (`ended`:
 * its error), which stays until the next turn starts.
 */
export function buildChatEntries(transcript: readonly Message[], compactions: readonly CompactionEventRecord[], extras: ChatExtras = {}, memo = new ChatEntryMemo()): ChatEntry[] {
  const { live, ended = [], usage = [] } = extras;
  memo.timeline.update(transcript, itemTokens(usage));
  const { entries: stored, messages } = memo.timeline;
  const users = messages.filter((m) => m.role === 'user');
  const turns = usageByTurn(users, usage);
  // Messages keep their transcript order; a compaction goes before the first message after it started.
  const shown = compactions.filter((r) => r.status !== 'skipped' || r.trigger === 'manual').sort((a, b) => a.startedAt - b.startedAt);
  const timeline: ChatEntry[] = [];
  let nextCompaction = 0;
  stored.forEach((entry, i) => {
    while (nextCompaction < shown.length && shown[nextCompaction].startedAt < messages[i].createdAt) timeline.push(compactionEntry(shown[nextCompaction++], memo));
    timeline.push(entry);
  });
  while (nextCompaction < shown.length) timeline.push(compactionEntry(shown[nextCompaction++], memo));
  const entries: ChatEntry[] = [];
  // Each turn's figures close the turn: they go right before the next user message.
  let turnOf: string | undefined;
  const closeTurn = () => {
    const figures = turnOf ? turnUsage(turns.get(turnOf) ?? [], extras.priceOverrides) : undefined;
    if (turnOf && figures && !(live && turnOf === users[users.length - 1]?.id)) entries.push(figuresEntry(turnOf, figures, memo));
  };
  for (const entry of timeline) {
    if (entry.kind === 'user') {
      closeTurn();
      turnOf = entry.id;
    }
    entries.push(entry);
  }
  closeTurn();
  if (extras.pending !== undefined) {
    entries.push({ kind: 'user', id: 'pending', text: extras.pending, pending: true });
    entries.push({ kind: 'notice', id: 'pending-model', level: 'warning', text: 'No model is configured, so this message has not been sent. Choose a model and it is sent right away.', action: 'selectModel' });
  }
  if (live) {
    const approvals = new Map<string, ChatToolCallView['approval']>();
    const resolved = new Set<string>();
    for (const event of live.events) {
      if (event.type === 'approval_needed') {
        const { title, detail, kind, allowForSession, runs, noAllowance } = event.request;
        approvals.set(event.request.callId, { title, detail, kind, allowForSession, runs, noAllowance });
      }
      if (event.type === 'approval_resolved') resolved.add(event.callId);
      const notice = turnNotice(event);
      if (notice) entries.push({ kind: 'notice', id: `${event.type === 'error' ? 'err' : event.type}-${entries.length}`, ...notice });
    }
    // A pending approval belongs to the latest card with its id: the call running now. The entry is
    // copied, since stored entries are shared between refreshes.
    for (const [callId, approval] of approvals) {
      if (resolved.has(callId)) continue;
      for (let i = entries.length - 1; i >= 0; i--) {
        const entry = entries[i];
        if (entry.kind !== 'assistant') continue;
        const at = entry.toolCalls.map((c) => c.callId).lastIndexOf(callId);
        if (at < 0) continue;
        if (entry.toolCalls[at].status === 'running') {
          entries[i] = { ...entry, toolCalls: entry.toolCalls.map((c, j) => (j === at ? { ...c, status: 'awaiting_approval' as const, approval } : c)) };
        }
        break;
      }
    }
    if (live.streamingText || live.streamingThinking) {
      const thinking = live.streamingThinking ? { thinking: { text: live.streamingThinking, redacted: 0, streaming: !live.streamingText } } : {};
      entries.push({ kind: 'assistant', id: 'streaming', text: live.streamingText, streaming: true, toolCalls: [], ...thinking });
    }
  } else {
    ended.forEach((notice, i) => entries.push({ kind: 'notice', id: `turn-${notice.level}-${i}`, ...notice, ...(notice.level === 'error' && extras.canRetry ? { action: 'retry' as const } : {}) }));
  }
  if (extras.compacting) entries.push(compactionActivity(extras.compacting));
  return entries;
}

export function buildChatState(args: {
  session?: ActiveSession;
  transcript: readonly Message[];
  compactions: readonly CompactionEventRecord[];
  sessions: readonly SessionInfo[];
  banner?: string;
  /** The transcript is the recent part of the session: older messages were not read. */
  earlierUnloaded?: boolean;
  /** Entries of stored messages from earlier refreshes, reused while unchanged. */
  memo?: ChatEntryMemo;
} & ChatExtras): ChatState {
  const { session } = args;
  return {
    sessionId: session?.info.id,
    sessionTitle: session?.info.title,
    entries: buildChatEntries(args.transcript, args.compactions, args, args.memo),
    busy: Boolean(session?.agent?.busy),
    meter: session && chatMeter(session, args.usage),
    model: session?.chat ? { id: session.chat.model.id, label: session.chat.label } : undefined,
    sessions: [...args.sessions].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, 50).map((s) => ({ id: s.id, title: s.title, updatedAt: s.updatedAt })),
    banner: args.banner ?? (args.pending !== undefined ? undefined : session?.unavailable),
    ...(args.earlierUnloaded ? { earlierUnloaded: true } : {}),
  };
}
