import { subagentSessions } from '../../core/agent/subagents/sessionLink';
import type { TurnUsageRecord } from '../../core/model/records';
import type { SessionStore } from '../../core/ports/sessionStore';

/** The requests of a session's subagents and of theirs (figures only), for the chat's turn figures. */
export async function subagentUsage(store: SessionStore, sessionId: string, seen = new Set<string>([sessionId])): Promise<TurnUsageRecord[]> {
  const out: TurnUsageRecord[] = [];
  for (const { info } of await subagentSessions(store, sessionId)) {
    if (seen.has(info.id)) continue;
    seen.add(info.id);
    out.push(...(await store.listTurnUsage(info.id, { items: false })), ...(await subagentUsage(store, info.id, seen)));
  }
  return out;
}
