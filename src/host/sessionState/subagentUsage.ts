import { subagentIndex } from '../../core/agent/subagents/sessionLink';
import type { RequestUsageRecord } from '../../core/model/records';
import type { SessionStore } from '../../core/ports/sessionStore';

/** The requests of a session's subagents and of theirs (figures only), for the chat's turn figures. */
export async function subagentUsage(store: SessionStore, sessionId: string): Promise<RequestUsageRecord[]> {
  const index = subagentIndex(await store.listSessions());
  const out: RequestUsageRecord[] = [];
  const seen = new Set([sessionId]);
  const queue = [sessionId];
  while (queue.length) {
    for (const { info } of index.get(queue.shift()!) ?? []) {
      if (seen.has(info.id)) continue;
      seen.add(info.id);
      queue.push(info.id);
      out.push(...(await store.listRequestUsage(info.id, { items: false })));
    }
  }
  return out;
}
