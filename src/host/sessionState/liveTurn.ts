import type { AgentEvent } from '../../core/agent/events';
import { DELEGATE_TOOL_NAME } from '../../core/agent/subagents/delegateTool';
import type { ChatSubagentView, ChatToolCallView } from '../../protocol/chat';
import { foldSubagent, waitingSubagent } from './subagentFold';

/** An approval asked for and not answered yet; `card`: the call whose card shows it, when not the call it answers (a subagent's). */
export type PendingApproval = NonNullable<ChatToolCallView['approval']> & { card?: string };

/** A line the chat shows about a turn rather than from the conversation: an error, a retry, a stop. */
export interface TurnNotice {
  text: string;
  level: 'info' | 'warning' | 'error';
  action?: 'continue' | 'compact';
}

/** The turn running now, as the chat shows it (the store holds the rest). */
export interface LiveTurn {
  /** Text and thinking streamed by the response in flight. */
  streamingText: string;
  streamingThinking: string;
  /** Approvals not answered yet, by the id they are answered by, in the order they were asked. */
  approvals: Map<string, PendingApproval>;
  /** What the turn said so far (errors, retries, notices), each with an id of its own. */
  notices: Array<TurnNotice & { id: string }>;
  /** What of those outlives the turn (not the retries). */
  lasting: TurnNotice[];
  /** The subagents the turn's delegate calls started, by the parent's call id. */
  subagents: Map<string, ChatSubagentView>;
}

/** What one agent event changed of the live turn: what the chat's patch carries. */
export interface LiveChange {
  /** Text or thinking streamed onto the response in flight. */
  streamed?: { text: string; thinking: boolean };
  /** The response in flight is over (recorded, or tried again): its streaming entry goes. */
  streamEnded?: boolean;
  /** Calls whose card shows something new (an approval asked or answered, a subagent's progress). */
  cards?: string[];
  /** The id of a notice added. */
  notice?: string;
  /** The turn started or ended: the tail (the last turn's figures, what it left) changes. */
  boundary?: 'start' | 'end';
  /** What the last turn left changed outside a turn (an error with no turn running). */
  ended?: boolean;
}

function formatWait(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** The notice an agent event shows in the chat, if any. `lasting` leaves out what only matters while the turn runs (retries). */
function turnNotice(event: AgentEvent, lasting: boolean): TurnNotice | undefined {
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
 * The agent's events folded for the chat. While a turn runs, `live` holds its streaming text and
 * thinking, approvals, subagents and notices. When it ends, what the user must still see (the
 * provider's error, a "stopped after N requests" notice) moves to `ended`, which stays until the
 * next turn starts or the conversation goes back; `failedUserId` is the user message Retry sends again.
 */
export class LiveTurnFold {
  live?: LiveTurn;
  ended: TurnNotice[] = [];
  /** The user message of the last turn, when that turn ended in an error. */
  failedUserId?: string;
  private turnUserId?: string;

  apply(event: AgentEvent): LiveChange {
    if (event.type === 'turn_start') {
      this.live = { streamingText: '', streamingThinking: '', approvals: new Map(), notices: [], lasting: [], subagents: new Map() };
      this.ended = [];
      this.turnUserId = event.userMessageId;
      this.failedUserId = undefined;
      return { boundary: 'start' };
    }
    const live = this.live;
    if (!live) {
      // An error outside a turn still reaches the user.
      const notice = turnNotice(event, true);
      if (!notice) return {};
      this.ended.push(notice);
      return { ended: true };
    }
    const change: LiveChange = {};
    switch (event.type) {
      case 'text_delta':
        live.streamingText += event.text;
        change.streamed = { text: event.text, thinking: false };
        break;
      case 'reasoning_delta':
        live.streamingThinking += event.text;
        change.streamed = { text: event.text, thinking: true };
        break;
      case 'assistant_message':
      case 'retry':
        change.streamEnded = this.endStream();
        break;
      case 'approval_needed': {
        const { title, detail, kind, allowForSession, runs, noAllowance, subagent, sandbox, approveLabel } = event.request;
        // A subagent's approval shows on the delegate card that started it (a nested one's on its running ancestor's card).
        const card = subagent && (live.subagents.has(subagent.parentCallId) ? subagent.parentCallId : [...live.subagents].find(([, s]) => s.phase !== 'ended')?.[0]);
        live.approvals.set(event.request.callId, { title, detail, kind, allowForSession, runs, noAllowance, ...(sandbox ? { sandbox } : {}), ...(approveLabel ? { approveLabel } : {}), ...(subagent ? { subagent: subagent.name } : {}), ...(card ? { card } : {}) });
        change.cards = [card ?? event.request.callId];
        break;
      }
      case 'approval_resolved': {
        const approval = live.approvals.get(event.callId);
        live.approvals.delete(event.callId);
        if (approval) change.cards = [approval.card ?? event.callId];
        break;
      }
      case 'tool_call':
        if (event.call.name === DELEGATE_TOOL_NAME) {
          live.subagents.set(event.call.id, waitingSubagent(event.call));
          change.cards = [event.call.id];
        }
        break;
      case 'subagent': {
        const view = live.subagents.get(event.progress.callId);
        if (view) {
          foldSubagent(view, event.progress);
          change.cards = [event.progress.callId];
        }
        break;
      }
      case 'turn_end':
        this.ended = live.lasting;
        this.live = undefined;
        if (event.stopReason === 'error') this.failedUserId = this.turnUserId;
        return { boundary: 'end' };
    }
    const notice = turnNotice(event, false);
    if (notice) {
      const id = `live-${event.type === 'error' ? 'err' : event.type}-${live.notices.length}`;
      live.notices.push({ id, ...notice });
      const lasting = turnNotice(event, true);
      if (lasting) live.lasting.push(lasting);
      change.notice = id;
    }
    return change;
  }

  /** The response in flight was recorded (its message is stored): its streamed text and thinking go. True when there were some. */
  endStream(): boolean {
    const live = this.live;
    if (!live || (!live.streamingText && !live.streamingThinking)) return false;
    live.streamingText = live.streamingThinking = '';
    return true;
  }

  /** The conversation went back: what the last turn left no longer applies. */
  forgetEnded(): void {
    this.ended = [];
    this.failedUserId = undefined;
  }
}
