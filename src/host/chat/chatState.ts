import type { Message } from '../../core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../core/model/records';
import type { SessionInfo } from '../../core/ports/sessionStore';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';
import type { ChatEntry, ChatState, ChatToolCallView } from '../../protocol/chat';
import { compactionActivity, type CompactionActivity } from '../session/compactionActivity';
import { ChatEntries } from './chatEntries';
import { chatMeter, countingMeter } from '../session/turnFigures';
import { isResumed, type ShownSession } from '../session/sessionPorts';
import type { LiveTurn, TurnNotice } from '../session/turnTracker';

/** What the chat shows besides the stored conversation. */
export interface ChatExtras {
  live?: LiveTurn;
  ended?: readonly TurnNotice[];
  usage?: readonly RequestUsageRecord[];
  priceOverrides?: Record<string, ModelPrices>;
  /** A message typed while no model was configured, sent once one is chosen. */
  pending?: string;
  /** Messages sent while the session's context is read, sent once it is. */
  waiting?: readonly string[];
  /** The compaction running now. */
  compacting?: CompactionActivity;
  /** The last turn failed and can be sent again. */
  canRetry?: boolean;
}

/**
 * What follows the stored entries, rebuilt on each refresh (it is small): the last turn's figures
 * unless it runs, a message waiting for a model, the running turn's notices and streaming text or
 * what the last turn left (its error), the compaction running now. `cards`: stored cards shown
 * with the approval their running call waits for, by key (the stored entry itself is not changed).
 */
export function chatTail(stored: ChatEntries, extras: ChatExtras = {}): { tail: ChatEntry[]; cards: Map<string, ChatEntry> } {
  const { live, ended = [] } = extras;
  const tail: ChatEntry[] = [];
  const cards = new Map<string, ChatEntry>();
  const figures = stored.lastTurnFigures();
  if (figures && !live) tail.push(figures);
  (extras.waiting ?? []).forEach((text, i) => tail.push({ kind: 'user', id: `waiting-${i}`, text, pending: true }));
  if (extras.pending !== undefined) {
    tail.push({ kind: 'user', id: 'pending', text: extras.pending, pending: true });
    tail.push({ kind: 'notice', id: 'pending-model', level: 'warning', text: 'No model is configured, so this message has not been sent. Choose a model and it is sent right away.', action: 'selectModel' });
  }
  if (live) {
    for (const notice of live.notices) tail.push({ kind: 'notice', ...notice });
    // A pending approval and a subagent's progress belong to the latest card with the call's id: the call of this turn.
    const marked = (callId: string, mark: (call: ChatToolCallView) => ChatToolCallView | undefined): void => {
      const key = stored.cardOf(callId);
      const entry = key === undefined ? undefined : cards.get(key) ?? stored.entry(key);
      if (key === undefined || entry?.kind !== 'assistant') return;
      const at = entry.toolCalls.map((c) => c.callId).lastIndexOf(callId);
      const call = entry.toolCalls[at] && mark(entry.toolCalls[at]);
      if (call) cards.set(key, { ...entry, toolCalls: entry.toolCalls.map((c, j) => (j === at ? call : c)) });
    };
    for (const [answerId, { card, ...approval }] of live.approvals) {
      const shown = card ? { ...approval, answerId } : approval;
      marked(card ?? answerId, (c) => (c.status === 'running' ? { ...c, status: 'awaiting_approval', approval: shown } : undefined));
    }
    for (const [callId, subagent] of live.subagents ?? []) marked(callId, (c) => ({ ...c, subagent: { ...subagent } }));
    if (live.streamingText || live.streamingThinking) {
      const thinking = live.streamingThinking ? { thinking: { text: live.streamingThinking, redacted: 0, streaming: !live.streamingText } } : {};
      tail.push({ kind: 'assistant', id: 'streaming', text: live.streamingText, streaming: true, toolCalls: [], ...thinking });
    }
  } else {
    ended.forEach((notice, i) => tail.push({ kind: 'notice', id: `turn-${notice.level}-${i}`, ...notice, ...(notice.level === 'error' && extras.canRetry ? { action: 'retry' as const } : {}) }));
  }
  if (extras.compacting) tail.push(compactionActivity(extras.compacting));
  return { tail, cards };
}

/** Every entry the chat shows: the stored ones (cards waiting for approval marked) and the tail. */
export function chatEntriesOf(stored: ChatEntries, extras: ChatExtras = {}): ChatEntry[] {
  const { tail, cards } = chatTail(stored, extras);
  return [...stored.keys.map((key) => cards.get(key) ?? stored.entry(key)!), ...tail];
}

/**
 * The conversation as the user saw it: the full transcript (not the compacted context), with
 * compaction notices in place, then the running turn (`live`) or what the last turn left (`ended`:
 * its error), which stays until the next turn starts.
 */
export function buildChatEntries(transcript: readonly Message[], compactions: readonly CompactionEventRecord[], extras: ChatExtras = {}): ChatEntry[] {
  const stored = new ChatEntries(extras.priceOverrides);
  stored.reset(transcript, compactions, extras.usage ?? []);
  return chatEntriesOf(stored, extras);
}

/** Everything the chat shows but its entries. */
export function chatHeader(args: {
  /** While it resumes, the meter says it is counting (with the last request's stored figure). */
  session?: ShownSession;
  sessions: readonly SessionInfo[];
  banner?: string;
  /** The transcript is the recent part of the session: older messages were not read. */
  earlierUnloaded?: boolean;
} & ChatExtras): Omit<ChatState, 'entries'> {
  const { session } = args;
  const resumed = session && isResumed(session) ? session : undefined;
  return {
    sessionId: session?.info.id,
    sessionTitle: session?.info.title,
    busy: Boolean(resumed?.agent?.busy),
    meter: resumed && chatMeter(resumed, args.usage),
    ...(session && !resumed && !session.readError ? { counting: countingMeter(args.usage) } : {}),
    model: session?.chat ? { id: session.chat.model.id, label: session.chat.label } : undefined,
    sessions: [...args.sessions].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, 50).map((s) => ({ id: s.id, title: s.title, updatedAt: s.updatedAt })),
    banner: args.banner ?? session?.readError ?? (args.pending !== undefined ? undefined : session?.unavailable),
    ...(args.earlierUnloaded ? { earlierUnloaded: true } : {}),
  };
}

/** The chat's whole state, its stored entries folded from `transcript`. */
export function buildChatState(args: Parameters<typeof chatHeader>[0] & { transcript: readonly Message[]; compactions: readonly CompactionEventRecord[] }): ChatState {
  return { ...chatHeader(args), entries: buildChatEntries(args.transcript, args.compactions, args) };
}
