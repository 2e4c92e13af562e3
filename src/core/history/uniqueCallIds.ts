import { newId } from '../model/ids';
import type { Message, ToolCall } from '../model/message';

/** A call id no provider will send: Tally's own, used when the provider's is missing or taken. */
export function freshCallId(prefix = 'call_tally_'): string {
  return newId(prefix);
}

/**
 * Keeps tool-call ids unique for a whole session. Providers only promise unique ids within one
 * response (local servers often send `call_0` every turn, some send none); a repeated id makes two
 * calls indistinguishable, so their outputs cannot be paired. `claim` keeps the provider's id when
 * no call in the session used it yet and gives the call a fresh one otherwise. The stored call
 * carries the id that goes on the wire, so call and result still pair.
 */
export class SessionCallIds {
  private readonly used = new Set<string>();

  claim(call: ToolCall, history: readonly Message[]): ToolCall {
    for (const m of history) for (const c of m.toolCalls ?? []) this.used.add(c.id);
    const taken = !call.id || this.used.has(call.id);
    const id = taken ? freshCallId() : call.id;
    this.used.add(id);
    return taken ? { ...call, id } : call;
  }
}
