import type { Message } from '../../core/model/message';
import type { AgentSession } from '../../core/agent/agentSession';
import type { CompactionResult } from '../../core/compaction/compactor';
import type { Summarizer } from '../../core/compaction/types';
import type { UserSummary } from '../../core/compaction/userSummary';
import type { SessionInfo, SessionStore } from '../../core/ports/sessionStore';
import type { ResolvedModel } from '../../core/providers/models/modelRegistry';
import type { ChatProvider, ReasoningRequest } from '../../core/providers/types';
import type { ContextSession } from '../../core/context/contextSession';
import type { ForkPoint } from '../../core/context/forkSession';
import type { SessionChange } from '../../core/context/sessionChanges';
import type { SessionView } from './sessionView';

/** Where the planned context window comes from, for the confirmation and the meter. */
export type WindowSource = 'setting' | 'server' | 'registry' | 'assumed';

/** The chat model a session runs with, resolved from the settings and keys. */
export interface ChatModel {
  provider: ChatProvider;
  model: ResolvedModel;
  window: { source: WindowSource; note?: string };
  /** Output tokens reserved per request (a thinking budget included). */
  maxOutputTokens: number;
  /** The thinking the requests ask for; absent when the setting is off or the model cannot think. */
  reasoning?: ReasoningRequest;
  summarizer?: Summarizer;
  label: string;
}

/**
 * A session the chat shows: its newest messages and lists, read while its working context may
 * still be resuming (a long session that never compacted reads its whole transcript for that).
 */
export interface ShownSession {
  info: SessionInfo;
  /** What the chat and the inspector show of it, kept current by its changes. */
  view: SessionView;
  chat?: ChatModel;
  /** Set for a replay of a recorded run. */
  replayLabel?: string;
  /** Why there is no agent, for the chat banner. */
  unavailable?: string;
  /** Why its working context could not be read (it shows, but cannot continue). */
  readError?: string;
}

/** The session open in this window, its working context resumed, as the chat and the inspector read it. */
export interface ActiveSession extends ShownSession {
  contextSession: ContextSession;
  /** Absent for replays, or while no model is configured. */
  agent?: AgentSession;
}

/** A message that was not sent because the session it waited for could not be resumed: `text` goes back to the composer. */
export class MessageNotSent extends Error {
  constructor(message: string, readonly text: string) {
    super(message);
  }
}

/** The shown session has resumed: its figures can be counted. */
export function isResumed(session: ShownSession): session is ActiveSession {
  return 'contextSession' in session;
}

/**
 * What changed for the views: a write of the session (already folded into its view), another
 * session opened, or the state around the records (the running turn, a waiting message, a
 * compaction running, the session's title).
 */
export type ViewChange = SessionChange | { type: 'opened' } | { type: 'status' };

/** What the chat's and the inspector's intents ask of the session controller. */
export interface SessionActions {
  store(): Promise<SessionStore>;
  current(): Promise<ActiveSession>;
  create(title?: string): Promise<ActiveSession>;
  open(sessionId: string, replayLabel?: string): Promise<ActiveSession>;
  discardPendingMessage(): void;
  /** `attachments`: attachment messages recorded right before the user's message. */
  send(text: string, attachments?: readonly Message[]): Promise<void>;
  retry(): Promise<void>;
  cancel(): void;
  /** `summary`: the preview's summary the user confirmed, used instead of writing a new one. */
  compact(focus?: string, summary?: UserSummary): Promise<CompactionResult>;
  preview(focus?: string): Promise<CompactionResult>;
  setPinned(messageId: string, pinned: boolean): Promise<boolean>;
  /** A new session from what a stored request carried, opened. */
  fork(point: ForkPoint): Promise<ActiveSession>;
  resolveApproval(callId: string, approved: boolean, forSession?: boolean): void;
}
