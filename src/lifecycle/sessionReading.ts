import * as vscode from 'vscode';
import { getTokenCounter } from '../core/accounting/tokenizer';
import type { SessionInfo, SessionStore } from '../core/ports/sessionStore';
import { parsePriceOverrides } from '../core/providers/models/modelRegistry';
import { ContextSession } from '../core/context/contextSession';
import { forkStartUsage } from '../core/context/forkSession';
import { readLastRequest } from '../core/context/lastRequestUsage';
import { readConfiguration, type TallyConfiguration } from '../config/readSettings';
import { userValue } from '../config/userScope';
import type { ShownSession } from '../host/sessionState/sessionPorts';
import { CHAT_PAGE_MESSAGES, readSessionState, SessionReads } from '../host/sessionState/sessionReads';
import type { ApiKeys } from '../secrets/apiKeys';
import { resolveChatModel } from '../agents/modelService';

/** What an open reads before the views can show a session, and its working context resuming. */
export interface SessionToOpen {
  shown: ShownSession;
  resuming: Promise<ContextSession>;
  /** The chat shows the session before its context resumed: the resume reads the whole transcript, held until `go`. */
  shownFirst: boolean;
  /** Lets a held whole-transcript read start. */
  go(): void;
  config: TallyConfiguration;
}

/**
 * Reads a session to open it: the chat model (from the settings and keys), the last request's
 * figures, the working context (resuming) and what the views show (`SessionView`).
 */
export async function readSessionToOpen(store: SessionStore, info: SessionInfo, keys: ApiKeys, replayLabel?: string): Promise<SessionToOpen> {
  const config = readConfiguration();
  // The model is resolved while the last request's figures are read (once: the resume takes them too).
  const lastRequest = readLastRequest(store, info.id);
  const [resolution, lastUsage] = await Promise.all([
    // A replay is not chatted with, but the toolbar still names the model the user chose.
    resolveChatModel(config, keys).catch((error: Error) => ({ ok: false as const, reason: error.message })),
    lastRequest.then((last) => last.record ?? forkStartUsage(store, info)),
  ]);
  const chosen = resolution.ok ? resolution.chat : undefined;
  const chat = replayLabel ? undefined : chosen;
  const counter = getTokenCounter(chat?.model.encoding ?? 'o200k_base');
  // Without a snapshot the resume reads the whole transcript: the chat shows the session's newest
  // page first, read from the store, and the read waits until the chat posted it (`go`).
  let wholeTranscript!: () => void;
  const readsWhole = new Promise<true>((resolve) => (wholeTranscript = () => resolve(true)));
  let go!: () => void;
  const mayReadWhole = new Promise<void>((resolve) => (go = resolve));
  const resuming = ContextSession.open({
    store,
    sessionId: info.id,
    settings: config.context,
    counter,
    summarizer: chat?.summarizer,
    // A window nobody reported (an unknown model) is left to the budget's fallback, which says it assumed one.
    contextWindow: chat ? (chat.window.source === 'assumed' ? undefined : chat.model.contextWindow) ?? config.context.contextWindow : lastUsage?.contextWindow ?? config.context.contextWindow,
    maxOutputTokens: chat?.maxOutputTokens ?? lastUsage?.maxOutputTokens ?? config.context.maxOutputTokens,
    fixed: lastUsage ? { system: lastUsage.components.system, skills: lastUsage.components.skills, tools: lastUsage.components.tools } : undefined,
    encoderAfterFirstState: true, // the chat starts the ranks once it shows the session
    lastRequest,
    beforeWholeTranscript: () => {
      wholeTranscript();
      return mayReadWhole;
    },
  });
  const showFirst = await Promise.race([readsWhole, resuming.then(() => false, () => false)]);
  // What the views show is read while the session resumes: the chat's page from the messages the
  // resume read when it reads only those after its snapshot (quick), else from the store. Prices
  // come from user settings only.
  const prices = parsePriceOverrides(userValue(vscode.workspace.getConfiguration('tally'), 'modelPrices'));
  const page = showFirst ? undefined : resuming.then((resumed) => resumed.takeResumedTranscript(), () => undefined);
  const unavailable = replayLabel ? `This is a replay of a recorded run (${replayLabel}); start a new session to chat.` : !resolution.ok ? resolution.reason : undefined;
  const identity = { info, model: chosen && { id: chosen.model.id, label: chosen.label }, unavailable, prices };
  const state = await readSessionState(store, identity, CHAT_PAGE_MESSAGES, page).catch((error: Error) => {
    go(); // the resume is not left waiting; the open fails with the state's error
    resuming.catch(() => undefined);
    throw error;
  });
  const shown: ShownSession = { info, state, reads: new SessionReads(store, state), chat, replayLabel, unavailable };
  // A session whose whole transcript is the page (a new or short one) resumes before it shows: no "counting…" to flash.
  const shownFirst = showFirst && state.records.heldFrom !== undefined;
  return { shown, resuming, shownFirst, go, config };
}
