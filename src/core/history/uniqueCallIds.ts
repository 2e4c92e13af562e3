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
  /** The history read last and how far: the working context grows at its end, so only what was appended since is read. */
  private read?: readonly Message[];
  private readUpTo = 0;

  claim(call: ToolCall, history: readonly Message[]): ToolCall {
    const from = history === this.read && history.length >= this.readUpTo ? this.readUpTo : 0;
    for (let i = from; i < history.length; i++) for (const c of history[i].toolCalls ?? []) this.used.add(c.id);
    this.read = history;
    this.readUpTo = history.length;
    const taken = !call.id || this.used.has(call.id);
    const id = taken ? freshCallId() : call.id;
    this.used.add(id);
    return taken ? { ...call, id } : call;
  }
}
