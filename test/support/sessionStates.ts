/** Session states built from plain records, and the chat webview's side of their patches, for the host's tests. */
import { strict as assert } from 'assert';
import type { AgentEvent } from '../../src/core/agent/events';
import type { Message } from '../../src/core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../src/core/model/records';
import type { BlobInfo } from '../../src/core/ports/blobStore';
import type { ModelPrices } from '../../src/core/providers/models/modelRegistry';
import type { SessionChange } from '../../src/core/context/sessionChanges';
import type { SessionInfo, SessionStore } from '../../src/core/ports/sessionStore';
import type { ContextSession } from '../../src/core/context/contextSession';
import { DEFAULT_SETTINGS, type ContextSettings } from '../../src/core/settings';
import { InspectorFeed } from '../../src/host/inspector/inspectorFeed';
import { InspectorSubject } from '../../src/host/inspector/subagentSubject';
import type { ActiveSession } from '../../src/host/sessionState/sessionPorts';
import type { HostToInspector } from '../../src/protocol/inspector';
import type { SessionInput } from '../../src/host/sessionState/sessionInputs';
import { readSessionState, SessionReads, type ResumedTranscript } from '../../src/host/sessionState/sessionReads';
import type { SessionPatch } from '../../src/host/sessionState/sessionPatch';
import { SessionState, type SessionIdentity } from '../../src/host/sessionState/sessionState';
import type { ChatEntry, ChatHeader } from '../../src/protocol/chat';
import { applyChatEntriesPatch, streamedEntry, type HeldChatEntries } from '../../src/protocol/chatPatch';
import { chatEntryKey } from '../../src/protocol/chat';
import { heldListOf } from '../../src/protocol/listPatch';

export interface StoredRecords {
  compactions?: readonly CompactionEventRecord[];
  usage?: readonly RequestUsageRecord[];
  blobs?: readonly BlobInfo[];
  /** The messages are the newest part of the transcript, those created after this time. */
  createdAfter?: number;
}

/** A session's state opened on these records (the whole transcript unless `createdAfter`). */
export function stateOf(messages: readonly Message[], records: StoredRecords = {}, identity: Partial<SessionIdentity> & { prices?: Record<string, ModelPrices> } = {}): SessionState {
  const state = new SessionState({ info: { id: 's', title: 'a session' }, ...identity });
  const complete = records.createdAfter === undefined;
  state.apply({ kind: 'stored', stored: { page: { messages: [...messages], complete, ...(complete ? {} : { createdAfter: records.createdAfter }) }, compactions: records.compactions ?? [], usage: records.usage ?? [], blobs: records.blobs ?? [] } });
  return state;
}

/** An agent event as the state's input. */
export const agent = (event: AgentEvent): SessionInput => ({ kind: 'agent', event });

/** Applies inputs in order; returns their patches. */
export function applyAll(state: SessionState, inputs: readonly SessionInput[]): SessionPatch[] {
  return inputs.map((input) => state.apply(input));
}

/**
 * The chat webview's side: the whole state when it starts, then every patch as the webview
 * applies it (entries patched, header replaced, text streamed). `entries()` is what it shows.
 */
export class HeldChat {
  private held: HeldChatEntries;
  private list: ChatEntry[];
  header: ChatHeader;
  readonly patches: SessionPatch[] = [];
  private readonly stop: () => void;

  constructor(state: SessionState) {
    const whole = state.chatState();
    this.list = whole.entries;
    this.held = heldListOf(whole.entries, chatEntryKey);
    const { entries: _entries, ...header } = whole;
    this.header = header;
    this.stop = state.onPatch((patch) => this.take(patch));
  }

  private take(patch: SessionPatch): void {
    this.patches.push(patch);
    const { streamed, entries, header } = patch.chat;
    if (streamed) {
      const key = `assistant:${streamed.entryId}`;
      const entry = streamedEntry(this.held.byKey.get(key), streamed.entryId, streamed.text, streamed.thinking);
      if (!this.held.byKey.has(key)) this.held.order.push(key);
      this.held.byKey.set(key, entry);
      this.list = this.held.order.map((k) => this.held.byKey.get(k)!);
    }
    if (entries) {
      const { entries: list, missing } = applyChatEntriesPatch(this.held, entries);
      assert.deepEqual(missing, [], 'every key of a patch names an entry the webview holds or is sent');
      this.list = list;
    }
    if (header) this.header = header;
  }

  entries(): ChatEntry[] {
    return this.list;
  }

  dispose(): void {
    this.stop();
  }
}

/** A stored session's state as the views open it (its newest `page` messages and its lists), and its reads. */
export async function openState(store: SessionStore, sessionId: string, page = 200, resumed?: Promise<ResumedTranscript | undefined>): Promise<SessionState & { reads: SessionReads }> {
  const state = await readSessionState(store, { info: { id: sessionId, title: 'a session' } }, page, resumed);
  return Object.assign(state, { reads: new SessionReads(store, state) });
}

/** Feeds a session's writes into a state, as the session controller does once it resumed. */
export function following(state: SessionState, session: { onChange(listener: (change: SessionChange) => void): () => void }): () => void {
  return session.onChange((change) => state.apply({ kind: 'change', change }));
}

/** A resumed session as the controller makes one: its state read from the store, then fed by its writes. */
export async function resumedSession(store: SessionStore, info: SessionInfo, contextSession: ContextSession, page = 200): Promise<ActiveSession> {
  const state = await openState(store, info.id, page);
  following(state, contextSession);
  contextSession.onCompaction((event) => state.apply({ kind: 'compaction', event }));
  state.apply({ kind: 'resumed', context: contextSession });
  return { info, contextSession, state, reads: state.reads };
}

/** The inspector's feed of `session`, and what it posted. */
export function inspectorOf(session: ActiveSession, store: SessionStore, settings: ContextSettings = DEFAULT_SETTINGS): { feed: InspectorFeed; posted: HostToInspector[] } {
  const posted: HostToInspector[] = [];
  const feed = new InspectorFeed({ post: (m) => void posted.push(m), current: async () => session, store: async () => store }, new InspectorSubject({ store: async () => store, settings: () => settings }));
  return { feed, posted };
}
