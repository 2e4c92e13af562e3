import type { Message } from '../model/message';

export interface CallIdRename {
  /** The assistant message whose call was renamed. */
  messageId: string;
  from: string;
  to: string;
}

export interface CallIdRepair {
  messages: Message[];
  renamed: CallIdRename[];
}

/**
 * Repairs a history stored with repeated (or empty) tool-call ids, which no provider accepts and
 * which normalization would otherwise answer with the wrong outputs: every call after the first
 * use of an id gets a new id, and the outputs that followed that call's assistant message are
 * renamed with it, so each call pairs with the output that followed it. New ids are derived from
 * the old one (`call_0` → `call_0_2`) so repairing the same history again gives the same ids.
 * Pure: the input is untouched; messages without changes are returned as they were.
 */
export function repairDuplicateCallIds(messages: readonly Message[]): CallIdRepair {
  const allIds = new Set<string>();
  for (const m of messages) for (const c of m.toolCalls ?? []) allIds.add(c.id);
  const seen = new Set<string>();
  const renamed: CallIdRename[] = [];
  // Old id → the ids the latest assistant message's calls now have, in call order.
  let pending = new Map<string, string[]>();
  const out = messages.map((m) => {
    if (m.role === 'assistant' && m.toolCalls?.length) {
      pending = new Map();
      let changed = false;
      const toolCalls = m.toolCalls.map((call) => {
        const keep = call.id && !seen.has(call.id);
        const to = keep ? call.id : unusedId(call.id || 'call', allIds);
        allIds.add(to);
        seen.add(to);
        pending.set(call.id, [...(pending.get(call.id) ?? []), to]);
        if (keep) return call;
        renamed.push({ messageId: m.id, from: call.id, to });
        changed = true;
        return { ...call, id: to };
      });
      return changed ? { ...m, toolCalls } : m;
    }
    if (m.role === 'tool') {
      const queue = pending.get(m.toolCallId ?? '');
      const to = queue?.shift();
      if (to !== undefined && to !== m.toolCallId) return { ...m, toolCallId: to };
    }
    return m;
  });
  return { messages: renamed.length ? out : [...messages], renamed };
}

function unusedId(base: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const id = `${base}_${n}`;
    if (!taken.has(id)) return id;
  }
}

type RepairListener = (sessionId: string, renamed: readonly CallIdRename[]) => void;
const listeners = new Set<RepairListener>();

/** Hears about every session whose history was repaired on load (the host logs it). */
export function onCallIdRepair(listener: RepairListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The repair as run where a session's history is loaded: reports what it renamed, if anything. */
export function repairCallIdsOnLoad(messages: readonly Message[], sessionId: string): Message[] {
  const repair = repairDuplicateCallIds(messages);
  if (repair.renamed.length) {
    for (const listener of listeners) {
      try {
        listener(sessionId, repair.renamed);
      } catch {
        // Reporting never blocks loading.
      }
    }
  }
  return repair.messages;
}
