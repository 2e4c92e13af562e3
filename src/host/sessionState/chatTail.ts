import type { ChatEntry, ChatToolCallView } from '../../protocol/chat';
import { compactionActivity, type CompactionActivity } from './compactionActivity';
import type { LiveTurn, TurnNotice } from './liveTurn';

/** The key of the entry the response in flight streams into. */
export const STREAMING_KEY = 'assistant:streaming';

/** What the chat shows after the stored entries, and what it is made from. */
export interface TailSources {
  /** The last turn's figures (shown while that turn is not running). */
  figures?: ChatEntry;
  live?: LiveTurn;
  ended: readonly TurnNotice[];
  canRetry: boolean;
  unsent: { pending?: string; waiting: readonly string[] };
  compacting?: CompactionActivity;
  /** The agent's todo list: one card, last, next to the composer. */
  todos?: ChatEntry;
}

/**
 * What follows the stored entries (a handful): the last turn's figures unless it runs, messages
 * waiting for the session to resume or for a model, the running turn's notices and streaming
 * response or what the last turn left (its error, with Retry), the compaction running now, and
 * the agent's todo list.
 */
export function tailEntries(s: TailSources): ChatEntry[] {
  const { live } = s;
  const tail: ChatEntry[] = [];
  if (s.figures && !live) tail.push(s.figures);
  s.unsent.waiting.forEach((text, i) => tail.push({ kind: 'user', id: `waiting-${i}`, text, pending: true }));
  if (s.unsent.pending !== undefined) {
    tail.push({ kind: 'user', id: 'pending', text: s.unsent.pending, pending: true });
    tail.push({ kind: 'notice', id: 'pending-model', level: 'warning', text: 'No model is configured, so this message has not been sent. Choose a model and it is sent right away.', action: 'selectModel' });
  }
  if (live) {
    for (const notice of live.notices) tail.push({ kind: 'notice', ...notice });
    if (live.streamingText || live.streamingThinking) {
      const thinking = live.streamingThinking ? { thinking: { text: live.streamingThinking, redacted: 0, streaming: !live.streamingText } } : {};
      tail.push({ kind: 'assistant', id: 'streaming', text: live.streamingText, streaming: true, toolCalls: [], ...thinking });
    }
  } else {
    s.ended.forEach((notice, i) => tail.push({ kind: 'notice', id: `turn-${notice.level}-${i}`, ...notice, ...(notice.level === 'error' && s.canRetry ? { action: 'retry' as const } : {}) }));
  }
  if (s.compacting) tail.push(compactionActivity(s.compacting));
  if (s.todos) tail.push(s.todos);
  return tail;
}

/**
 * A stored card as the running turn shows it: a call waiting for an approval (the answer's id on
 * a subagent's, whose approval shows on its delegate card) and a running subagent's progress.
 * Only the latest card with a call's id shows them (`ownsCall`): the call of this turn.
 */
export function withLiveMarks(entry: ChatEntry, live: LiveTurn | undefined, ownsCall: (callId: string) => boolean): ChatEntry {
  if (!live || entry.kind !== 'assistant' || (live.approvals.size === 0 && live.subagents.size === 0)) return entry;
  const ids = entry.toolCalls.map((c) => c.callId);
  let toolCalls: ChatToolCallView[] | undefined;
  entry.toolCalls.forEach((call, at) => {
    if (ids.lastIndexOf(call.callId) !== at || !ownsCall(call.callId)) return;
    let marked = call;
    for (const [answerId, { card, ...approval }] of live.approvals) {
      if ((card ?? answerId) !== call.callId) continue;
      if (marked.status === 'running') marked = { ...marked, status: 'awaiting_approval', approval: card ? { ...approval, answerId } : approval };
      break;
    }
    const subagent = live.subagents.get(call.callId);
    if (subagent) marked = { ...marked, subagent: { ...subagent } };
    if (marked !== call) (toolCalls ??= [...entry.toolCalls])[at] = marked;
  });
  return toolCalls ? { ...entry, toolCalls } : entry;
}
