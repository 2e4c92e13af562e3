import { subagentIndex } from '../../core/agent/subagents/sessionLink';
import type { TurnUsageRecord } from '../../core/model/records';
import type { SessionStore } from '../../core/ports/sessionStore';

/** The requests of a session's subagents and of theirs (figures only), for the chat's turn figures. */
export async function subagentUsage(store: SessionStore, sessionId: string): Promise<TurnUsageRecord[]> {
  const index = subagentIndex(await store.listSessions());
  const out: TurnUsageRecord[] = [];
  const seen = new Set([sessionId]);
  const queue = [sessionId];
  while (queue.length) {
    for (const { info } of index.get(queue.shift()!) ?? []) {
      if (seen.has(info.id)) continue;
      seen.add(info.id);
      queue.push(info.id);
      out.push(...(await store.listTurnUsage(info.id, { items: false })));
    }
  }
  return out;
}
