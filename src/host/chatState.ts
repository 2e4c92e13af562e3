import type { Message } from '../core/model/message';
import type { CompactionEventRecord } from '../core/model/records';
import type { SessionInfo } from '../core/ports/sessionStore';
import type { ChatEntry, ChatState, ChatToolCallView } from '../protocol/chat';
import type { ActiveSession } from './sessionController';
import { bindToolResults } from './toolResultBinding';
import { turnNotice, type LiveTurn, type TurnNotice } from './turnTracker';

const PREVIEW_CHARS = 2_000;

function toolView(call: { id: string; name: string; arguments: string }, result: Message | undefined): ChatToolCallView {
  const status: ChatToolCallView['status'] = !result
    ? 'running'
    : result.kind === 'aborted'
      ? 'aborted'
      : /^The user denied/.test(result.content)
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
export function buildChatEntries(transcript: readonly Message[], compactions: readonly CompactionEventRecord[], live?: LiveTurn, ended: readonly TurnNotice[] = []): ChatEntry[] {
  const results = bindToolResults(transcript);
  const timeline: Array<{ at: number; entry: ChatEntry }> = [];
  for (const m of transcript) {
    if (!m.userVisible) continue;
    if (m.role === 'user' && m.kind === 'user') timeline.push({ at: m.createdAt, entry: { kind: 'user', id: m.id, text: m.content } });
    else if (m.role === 'assistant') {
      timeline.push({ at: m.createdAt, entry: { kind: 'assistant', id: m.id, text: m.content, toolCalls: (m.toolCalls ?? []).map((c, i) => toolView(c, results.get(m.id)?.[i])) } });
    }
  }
  for (const record of compactions) {
    if (record.status === 'skipped') continue;
    timeline.push({ at: record.startedAt, entry: { kind: 'compaction', id: record.id, record } });
  }
  timeline.sort((a, b) => a.at - b.at);
  const entries = timeline.map((t) => t.entry);
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
    ended.forEach((notice, i) => entries.push({ kind: 'notice', id: `turn-${notice.level}-${i}`, ...notice }));
  }
  return entries;
}

export function buildChatState(args: {
  session?: ActiveSession;
  transcript: readonly Message[];
  compactions: readonly CompactionEventRecord[];
  sessions: readonly SessionInfo[];
  live?: LiveTurn;
  /** What the last finished turn left for the user (SessionController.endedTurnNotices). */
  ended?: readonly TurnNotice[];
  banner?: string;
}): ChatState {
  const { session } = args;
  const budget = session?.manager.measure(session.fixed);
  return {
    sessionId: session?.info.id,
    sessionTitle: session?.info.title,
    entries: buildChatEntries(args.transcript, args.compactions, args.live, args.ended),
    busy: Boolean(session?.agent?.busy),
    meter: budget && {
      percent: budget.percent,
      used: budget.used,
      effectiveWindow: budget.effectiveWindow,
      compactAt: budget.compactAtTokens,
      warning: budget.windowIsFallback ? budget.warning : undefined,
    },
    model: session?.chat ? { id: session.chat.model.id, label: session.chat.label } : undefined,
    models: session?.chat ? [{ id: session.chat.model.id, label: session.chat.label }] : [],
    sessions: [...args.sessions].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, 50).map((s) => ({ id: s.id, title: s.title, updatedAt: s.updatedAt })),
    banner: args.banner ?? session?.unavailable,
  };
}
