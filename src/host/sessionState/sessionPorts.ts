import type { AgentEvent } from '../../core/agent/events';
import type { AgentSession } from '../../core/agent/agentSession';
import type { Summarizer } from '../../core/compaction/types';
import type { SessionInfo, SessionStore } from '../../core/ports/sessionStore';
import type { ResolvedModel } from '../../core/providers/models/modelRegistry';
import type { ChatProvider, ReasoningRequest } from '../../core/providers/types';
import type { ContextSession } from '../../core/context/contextSession';
import type { SessionState } from './sessionState';
import type { SessionReads } from './sessionReads';

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
 * A session the chat shows: its state (what the views show of it, kept by its changes), read
 * while its working context may still be resuming (a long session that never compacted reads its
 * whole transcript for that).
 */
export interface ShownSession {
  info: SessionInfo;
  /** What the chat and the inspector show of it: the one state, folded from its records and events. */
  state: SessionState;
  /** The store reads its state asks for after it opened (Show earlier, result names, subagents' requests). */
  reads: SessionReads;
  chat?: ChatModel;
  /** Set for a replay of a recorded run. */
  replayLabel?: string;
  /** Why there is no agent, for the chat banner. */
  unavailable?: string;
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

/** How to stop hearing an event (a VS Code event's Disposable is one). */
export interface Subscription {
  dispose(): void;
}

/** An event the lifecycle tells (a VS Code event is one). */
export type EventSource<T> = (listener: (value: T) => void) => Subscription;

/**
 * Opening, resuming and reopening sessions (the VS Code layer's session controller): what the
 * views, the commands and the session's actions use of it.
 */
export interface SessionLifecycle {
  /** The session open, once its working context resumed. */
  readonly active: ActiveSession | undefined;
  /** The session the views show: the active one, or one still resuming. */
  readonly shown: ShownSession | undefined;
  /** True while the shown session's working context is being read. */
  readonly resuming: boolean;
  /** The active session, its working context resumed, opening the latest (or a new one) on first use. */
  current(): Promise<ActiveSession>;
  /** What the chat shows: the shown session, which may still be resuming, opening the latest on first use. */
  showing(): Promise<ShownSession>;
  /** The chat posted the shown session's first state: its resume may read the whole transcript now. */
  firstStateShown(session: ShownSession): void;
  create(title?: string): Promise<ActiveSession>;
  open(sessionId: string, replayLabel?: string): Promise<ActiveSession>;
  store(): Promise<SessionStore>;
  /** Whether `session` is still the one whose agent and changes are wired (no other opened meanwhile). */
  isAttached(session: ActiveSession): boolean;
  /** A session is shown (opened, or opened again): the views show its state. */
  readonly onDidShow: EventSource<ShownSession>;
  /** The shown session resumed: its agent (when it has a model) can take messages. */
  readonly onDidResume: EventSource<ActiveSession>;
  /** The active session's agent events, after its state folded them. */
  readonly onAgentEvent: EventSource<AgentEvent>;
}
