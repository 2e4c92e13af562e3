/**
 * What the inspector shows of a session's subagents, and of a subagent's own window when it shows
 * one. No `vscode` import: the webview bundle uses it too.
 */
import type { SparedFigures } from '../core/agent/subagents/sparedFigures';

export { SPARED_DEFINITION, sparedWords, type SparedFigures } from '../core/agent/subagents/sparedFigures';
export { formatTokens } from '../core/accounting/windowFigures';

/** One subagent the session started (directly), with its work and the messages of the call that started it. */
export interface InspectorSubagentView {
  sessionId: string;
  agent: string;
  /** The task's first line, as its session's title holds it. */
  task: string;
  callId: string;
  /** Its requests and tokens, those of its own subagents included. */
  requests: number;
  read: number;
  output: number;
  /** Tokens of its report as the parent's tool result carries them (absent while that result is not in the part loaded). */
  cameBack?: number;
  /** The parent's assistant message that made the call, and the tool result that answered it, where loaded. */
  callMessageId?: string;
  resultMessageId?: string;
}

export interface SessionTotalsView {
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

export interface InspectorSubagents {
  list: InspectorSubagentView[];
  /** The sums behind "3 subagents read 41,020 tokens; 2,104 came back" (sparedFigures). */
  spared: SparedFigures;
  /** The session's requests and tokens with its subagents' included, and the subagents' share of them. */
  total: SessionTotalsView;
  share: SessionTotalsView;
}

/** When the inspector shows a subagent's window: who it is and whose session it belongs to (the back link). */
export interface InspectorSubagentSubject {
  agent: string;
  task: string;
  parentSessionId: string;
  parentTitle: string;
  /** How many subagent windows deep (1: a subagent of the user's session). */
  depth: number;
}
