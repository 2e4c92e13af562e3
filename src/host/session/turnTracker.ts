import type { AgentEvent } from '../../core/agent/events';
import type { ChatSubagentView, ChatToolCallView } from '../../protocol/chat';
import { DELEGATE_TOOL_NAME } from '../../core/agent/subagents/delegateTool';
import { foldSubagent, waitingSubagent } from './subagentFold';

/** The live state the chat panel shows while a turn runs (the store holds the rest). */
export interface LiveTurn {
  streamingText: string;
  /** Thinking streamed by the response in flight. */
  streamingThinking: string;
  events: AgentEvent[];
  /** Approvals asked for and not answered yet, by the id they are answered by; `card`: the call whose card shows it, when not that id (a subagent's). */
  approvals: Map<string, NonNullable<ChatToolCallView['approval']> & { card?: string }>;
  /** What the turn said so far (errors, retries, notices), each with an id of its own. */
  notices: Array<TurnNotice & { id: string }>;
  /** The subagents the turn's delegate calls started, by the parent's call id. */
  subagents?: Map<string, ChatSubagentView>;
}

/** A line the chat shows about a turn rather than from the conversation: an error, a retry, a stop. */
export interface TurnNotice {
  text: string;
  level: 'info' | 'warning' | 'error';
  action?: 'continue';
}

function formatWait(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** The notice an agent event shows in the chat, if any. `lasting` leaves out what only matters while the turn runs (retries). */
export function turnNotice(event: AgentEvent, lasting = false): TurnNotice | undefined {
  switch (event.type) {
    case 'error':
      return { text: event.message, level: 'error' };
    case 'notice':
      return event.action ? { text: event.message, level: 'info', action: event.action } : { text: event.message, level: 'info' };
    case 'retry':
      return lasting ? undefined : { text: `${event.reason} — trying again in ${formatWait(event.delayMs)} (attempt ${event.attempt + 1})…`, level: 'warning' };
    default:
      return undefined;
  }
}

/**
 * Follows the agent's events for the chat. While a turn runs, `live` holds its streaming text and
 * events. When it ends, what the user must still see (the provider's error, a "stopped after N
 * requests" notice) moves to `ended`, which stays until the next turn starts or the session
 * changes: the turn's `error` is followed by `turn_end` within a microtask, long before the chat's
 * coalesced refresh, so reading `live` alone would lose it. No `vscode` import.
 */
export class TurnTracker {
  live?: LiveTurn;
  ended: TurnNotice[] = [];
  /** The user message of the last turn, when that turn ended in an error (Retry sends it again). */
  failedUserId?: string;
  private turnUserId?: string;

  apply(event: AgentEvent): void {
    if (event.type === 'turn_start') {
      this.live = { streamingText: '', streamingThinking: '', events: [], approvals: new Map(), notices: [] };
      this.ended = [];
      this.turnUserId = event.userMessageId;
      this.failedUserId = undefined;
    }
    if (this.live) {
      if (event.type === 'text_delta') this.live.streamingText += event.text;
      else if (event.type === 'reasoning_delta') this.live.streamingThinking += event.text;
      else if (event.type === 'assistant_message' || event.type === 'retry') this.live.streamingText = this.live.streamingThinking = '';
      // Thinking deltas and subagent progress come many per second: the entry and the subagent's record show them, the event list needs neither.
      if (event.type !== 'reasoning_delta' && event.type !== 'subagent') this.live.events.push(event);
      if (event.type === 'approval_needed') {
        const { title, detail, kind, allowForSession, runs, noAllowance, subagent, sandbox, approveLabel } = event.request;
        // A subagent's approval is shown on the delegate card that started it (a nested one's on its running ancestor's card).
        const card = subagent && (this.live.subagents?.has(subagent.parentCallId) ? subagent.parentCallId : [...(this.live.subagents ?? [])].find(([, s]) => s.phase !== 'ended')?.[0]);
        this.live.approvals.set(event.request.callId, { title, detail, kind, allowForSession, runs, noAllowance, ...(sandbox ? { sandbox } : {}), ...(approveLabel ? { approveLabel } : {}), ...(subagent ? { subagent: subagent.name } : {}), ...(card ? { card } : {}) });
      }
      if (event.type === 'approval_resolved') this.live.approvals.delete(event.callId);
      if (event.type === 'tool_call' && event.call.name === DELEGATE_TOOL_NAME) (this.live.subagents ??= new Map()).set(event.call.id, waitingSubagent(event.call));
      if (event.type === 'subagent') {
        const view = this.live.subagents?.get(event.progress.callId);
        if (view) foldSubagent(view, event.progress);
      }
      const notice = turnNotice(event);
      if (notice) this.live.notices.push({ id: `live-${event.type === 'error' ? 'err' : event.type}-${this.live.notices.length}`, ...notice });
    } else {
      // An error outside a turn still reaches the user.
      const notice = turnNotice(event, true);
      if (notice) this.ended.push(notice);
    }
    if (event.type === 'turn_end') {
      this.ended = (this.live?.events ?? []).flatMap((e) => turnNotice(e, true) ?? []);
      this.live = undefined;
      if (event.stopReason === 'error') this.failedUserId = this.turnUserId;
    }
  }

  /** Forgets everything (the session was closed or switched). */
  reset(): void {
    this.live = undefined;
    this.ended = [];
    this.failedUserId = undefined;
  }
}
