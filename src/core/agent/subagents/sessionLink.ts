import type { SessionInfo, SessionStore } from '../../ports/sessionStore';
import { spendOf } from './sparedFigures';

/** How a subagent's session names its parent: the parent's session, the parent's delegate call, the agent. */
export interface SubagentLink {
  parentSessionId: string;
  parentCallId: string;
  agent: string;
}

const PREFIX = 'subagent:';

/** The session's `origin` for a subagent (each part escaped, so ids with separators stay whole). */
export function subagentOrigin(link: SubagentLink): string {
  return PREFIX + [link.parentSessionId, link.parentCallId, link.agent].map(encodeURIComponent).join('/');
}

/** The link a session's origin states, or undefined for a session that is not a subagent's. */
export function subagentLinkOf(info: Pick<SessionInfo, 'origin'>): SubagentLink | undefined {
  if (!info.origin?.startsWith(PREFIX)) return undefined;
  const parts = info.origin.slice(PREFIX.length).split('/');
  if (parts.length !== 3) return undefined;
  try {
    const [parentSessionId, parentCallId, agent] = parts.map(decodeURIComponent);
    return { parentSessionId, parentCallId, agent };
  } catch {
    return undefined;
  }
}

/** The subagent sessions a session started (directly), oldest first, with their links. */
export async function subagentSessions(store: SessionStore, parentSessionId: string): Promise<Array<{ info: SessionInfo; link: SubagentLink }>> {
  return subagentIndex(await store.listSessions()).get(parentSessionId) ?? [];
}

/** Every listed subagent session by its parent's id, oldest first: one listing serves a whole tree. */
export function subagentIndex(sessions: readonly SessionInfo[]): Map<string, Array<{ info: SessionInfo; link: SubagentLink }>> {
  const byParent = new Map<string, Array<{ info: SessionInfo; link: SubagentLink }>>();
  for (const info of sessions) {
    const link = subagentLinkOf(info);
    if (!link) continue;
    const list = byParent.get(link.parentSessionId) ?? [];
    list.push({ info, link });
    byParent.set(link.parentSessionId, list);
  }
  for (const list of byParent.values()) list.sort((a, b) => a.info.createdAt - b.info.createdAt);
  return byParent;
}

export interface SessionTokenTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

/** A session's requests and tokens (reported where the provider said, else estimated), with every subagent under it. */
export async function totalsWithSubagents(
  store: SessionStore,
  sessionId: string,
  seen = new Set<string>(),
  index?: Map<string, Array<{ info: SessionInfo; link: SubagentLink }>>,
): Promise<SessionTokenTotals & { subagents: SessionTokenTotals }> {
  seen.add(sessionId);
  const byParent = index ?? subagentIndex(await store.listSessions());
  const own = await sessionTotals(store, sessionId);
  const subagents: SessionTokenTotals = { requests: 0, inputTokens: 0, outputTokens: 0 };
  for (const { info } of byParent.get(sessionId) ?? []) {
    if (seen.has(info.id)) continue;
    const child = await totalsWithSubagents(store, info.id, seen, byParent);
    subagents.requests += child.requests;
    subagents.inputTokens += child.inputTokens;
    subagents.outputTokens += child.outputTokens;
  }
  return { requests: own.requests + subagents.requests, inputTokens: own.inputTokens + subagents.inputTokens, outputTokens: own.outputTokens + subagents.outputTokens, subagents };
}

async function sessionTotals(store: SessionStore, sessionId: string): Promise<SessionTokenTotals> {
  const spend = spendOf(await store.listRequestUsage(sessionId, { items: false }));
  return { requests: spend.requests, inputTokens: spend.read, outputTokens: spend.output };
}
