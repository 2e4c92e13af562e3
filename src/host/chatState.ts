import type { Message } from '../core/model/message';
import type { CompactionEventRecord, TurnUsageRecord } from '../core/model/records';
import type { SessionInfo } from '../core/ports/sessionStore';
import type { ModelPrices } from '../core/providers/modelRegistry';
import type { ChatEntry, ChatState, ChatToolCallView } from '../protocol/chat';
import { compactionActivity, type CompactionActivity } from './compactionActivity';
import { messageTokens, turnUsage, usageByTurn } from './turnFigures';
import type { ActiveSession } from './sessionController';
import { bindToolResults } from './toolResultBinding';
import { turnNotice, type LiveTurn, type TurnNotice } from './turnTracker';

const PREVIEW_CHARS = 2_000;

function toolView(call: { id: string; name: string; arguments: string }, result: Message | undefined): ChatToolCallView {
  const status: ChatToolCallView['status'] = !result
    ? 'running'
    : result.kind === 'aborted'
      ? 'aborted'
      : result.meta?.denied
        ? 'denied'
        : result.meta?.isError
          ? 'error'
          : 'done';
  return {
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    status,
    resultPreview: result ? result.content.slice(0, PREVIEW_CHARS) : undefined,
    truncated: Boolean(result?.meta?.truncated),
    offloadRef: result?.meta?.offloadRef,
  };
}

/**
 * The conversation as the user saw it: the full transcript (not the compacted context), with
 * compaction notices in place, then the running turn (`live`) or what the last turn left (`ended`:
 * its error), which stays until the next turn starts.
 */
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
  return { kind: 'notice', id: record.id, level: 'info', text: `Nothing to compact: the context (${record.tokensBefore.toLocaleString('en-US')} tokens) has nothing the strategies can remove yet.` };
}

export function buildChatEntries(transcript: readonly Message[], compactions: readonly CompactionEventRecord[], extras: ChatExtras = {}): ChatEntry[] {
  const { live, ended = [], usage = [] } = extras;
  const results = bindToolResults(transcript);
  const tokens = messageTokens(transcript, usage);
  const users = transcript.filter((m) => m.userVisible && m.role === 'user' && m.kind === 'user');
  const turns = usageByTurn(users, usage);
  const timeline: Array<{ at: number; entry: ChatEntry }> = [];
  for (const m of transcript) {
    if (!m.userVisible) continue;
    if (m.role === 'user' && m.kind === 'user') timeline.push({ at: m.createdAt, entry: { kind: 'user', id: m.id, text: m.content, tokens: tokens.get(m.id) } });
    else if (m.role === 'assistant') {
      timeline.push({ at: m.createdAt, entry: { kind: 'assistant', id: m.id, text: m.content, tokens: tokens.get(m.id), toolCalls: (m.toolCalls ?? []).map((c, i) => toolView(c, results.get(m.id)?.[i])) } });
    }
  }
  for (const record of compactions) {
    if (record.status === 'skipped') {
      if (record.trigger === 'manual') timeline.push({ at: record.startedAt, entry: nothingToCompact(record) });
      continue;
    }
    timeline.push({ at: record.startedAt, entry: { kind: 'compaction', id: record.id, record } });
  }
  timeline.sort((a, b) => a.at - b.at);
  const entries: ChatEntry[] = [];
  // Each turn's figures close the turn: they go right before the next user message.
  let turnOf: string | undefined;
  const closeTurn = () => {
    const figures = turnOf ? turnUsage(turns.get(turnOf) ?? [], extras.priceOverrides) : undefined;
    if (turnOf && figures && !(live && turnOf === users[users.length - 1]?.id)) entries.push({ kind: 'usage', id: `usage-${turnOf}`, usage: figures });
  };
  for (const { entry } of timeline) {
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
      if (event.type === 'approval_needed') approvals.set(event.request.callId, { title: event.request.title, detail: event.request.detail, kind: event.request.kind, allowForSession: event.request.allowForSession });
      if (event.type === 'approval_resolved') resolved.add(event.callId);
      const notice = turnNotice(event);
      if (notice) entries.push({ kind: 'notice', id: `${event.type === 'error' ? 'err' : event.type}-${entries.length}`, ...notice });
    }
    // A pending approval belongs to the latest card with its id: the call running now.
    for (const [callId, approval] of approvals) {
      if (resolved.has(callId)) continue;
      const call = entries.flatMap((e) => (e.kind === 'assistant' ? e.toolCalls : [])).filter((c) => c.callId === callId).pop();
      if (call?.status === 'running') {
        call.status = 'awaiting_approval';
        call.approval = approval;
      }
    }
    if (live.streamingText) entries.push({ kind: 'assistant', id: 'streaming', text: live.streamingText, streaming: true, toolCalls: [] });
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
} & ChatExtras): ChatState {
  const { session } = args;
  const budget = session?.manager.measure(session.fixed);
  return {
    sessionId: session?.info.id,
    sessionTitle: session?.info.title,
    entries: buildChatEntries(args.transcript, args.compactions, args),
    busy: Boolean(session?.agent?.busy),
    meter: budget && {
      percent: budget.percent,
      used: budget.used,
      effectiveWindow: budget.effectiveWindow,
      compactAt: budget.compactAtTokens,
      // With no model there is no window to warn about: the banner asks for a model instead.
      warning: budget.windowIsFallback && session?.chat ? budget.warning : undefined,
    },
    model: session?.chat ? { id: session.chat.model.id, label: session.chat.label } : undefined,
    models: session?.chat ? [{ id: session.chat.model.id, label: session.chat.label }] : [],
    sessions: [...args.sessions].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, 50).map((s) => ({ id: s.id, title: s.title, updatedAt: s.updatedAt })),
    banner: args.banner ?? (args.pending !== undefined ? undefined : session?.unavailable),
  };
}
