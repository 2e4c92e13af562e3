import type { Message } from '../model/message';
import { listWork, markOf, noteEdit, trackEdits, unchangedBefore, type ListMark } from '../model/listLineage';
import { abortedFor } from './normalize';

/** What a request sends of a history: normalizeHistory's visible messages, and how many outputs it added or removed. */
export interface VisibleHistoryView {
  /** Read-only: the tracker keeps extending it (telling its lineage what changed). Copy it to keep it. */
  messages: readonly Message[];
  repaired: number;
}

/**
 * normalizeHistory(history).messages filtered to the visible ones, kept up to date as the history
 * grows: when the history it is given starts with the same message objects as last time, only the
 * messages after them are walked (and when the history's lineage tells where it changed, the check
 * that it starts with them reads from there: model/listLineage.ts). Anything else (a message replaced, removed or reordered) starts
 * over from the whole history. Gives exactly what the full normalization gives: appended messages
 * can only answer a call that had a synthetic output (it is swapped in at the same place), answer
 * calls made after them, or be dropped as duplicates and orphans.
 */
export class VisibleHistory {
  private seen: Message[] = [];
  /** Call id → index in the history of the visible assistant message that made it first. */
  private callOwner = new Map<string, number>();
  /** Call id → its output: the first visible tool message with that id, once the call is made. */
  private outputs = new Map<string, Message>();
  /** Visible tool messages whose call nobody made (yet), by call id, in history order. */
  private orphans = new Map<string, Message[]>();
  private orphanCount = 0;
  private duplicates = 0;
  /** Call id → where its synthetic "aborted" outputs stand in `out` (a call repeated within one message is answered twice). */
  private placeholders = new Map<string, number[]>();
  private placeholderCount = 0;
  private out: Message[] = trackEdits([]);
  private mark?: ListMark;

  view(history: readonly Message[]): VisibleHistoryView {
    if (!this.extends(history)) this.reset();
    if (history.length > this.seen.length) this.add(history, this.seen.length);
    this.mark = markOf(history);
    return { messages: this.out, repaired: this.placeholderCount + this.duplicates + this.orphanCount };
  }

  /** True when `history` starts with every message seen so far (the same objects). */
  private extends(history: readonly Message[]): boolean {
    const seen = this.seen;
    if (history.length < seen.length) return false;
    const from = Math.min(seen.length, unchangedBefore(this.mark, history));
    listWork.positionsRead += seen.length - from;
    for (let i = from; i < seen.length; i++) if (seen[i] !== history[i]) return false;
    return true;
  }

  private reset(): void {
    this.seen = [];
    this.callOwner = new Map();
    this.outputs = new Map();
    this.orphans = new Map();
    this.orphanCount = 0;
    this.duplicates = 0;
    this.placeholders = new Map();
    this.placeholderCount = 0;
    this.out = trackEdits([]);
    this.mark = undefined;
  }

  private add(history: readonly Message[], from: number): void {
    listWork.positionsRead += history.length - from;
    /** The first position of `out` this changes. */
    let changed = this.out.length;
    for (let i = from; i < history.length; i++) {
      const m = history[i];
      this.seen.push(m);
      if (m.role !== 'assistant' || !m.agentVisible || !m.toolCalls) continue;
      for (const call of m.toolCalls) {
        if (this.callOwner.has(call.id)) continue;
        this.callOwner.set(call.id, i);
        // Outputs recorded before their call was made: the first is its output, the rest duplicates.
        const waiting = this.orphans.get(call.id);
        if (!waiting) continue;
        this.orphans.delete(call.id);
        this.orphanCount -= waiting.length;
        this.duplicates += waiting.length - 1;
        this.outputs.set(call.id, waiting[0]);
      }
    }
    for (let i = from; i < history.length; i++) {
      const m = history[i];
      if (m.role !== 'tool' || !m.agentVisible) continue;
      const id = m.toolCallId ?? '';
      if (!this.callOwner.has(id)) {
        const waiting = this.orphans.get(id);
        if (waiting) waiting.push(m);
        else this.orphans.set(id, [m]);
        this.orphanCount++;
      } else if (this.outputs.has(id)) {
        this.duplicates++;
      } else {
        this.outputs.set(id, m);
        const stand = this.placeholders.get(id);
        if (stand) {
          for (const at of stand) {
            this.out[at] = m;
            changed = Math.min(changed, at);
          }
          this.placeholderCount -= stand.length;
          this.placeholders.delete(id);
        }
      }
    }
    for (let i = from; i < history.length; i++) {
      const m = history[i];
      if (!m.agentVisible || m.role === 'tool') continue;
      this.out.push(m);
      if (m.role !== 'assistant' || !m.toolCalls) continue;
      for (const call of m.toolCalls) {
        if (this.callOwner.get(call.id) !== i) continue; // a repeated call id: answered after its first use
        const output = this.outputs.get(call.id);
        if (output) {
          this.out.push(output);
        } else {
          const stand = this.placeholders.get(call.id);
          if (stand) stand.push(this.out.length);
          else this.placeholders.set(call.id, [this.out.length]);
          this.placeholderCount++;
          this.out.push(abortedFor(call, m));
        }
      }
    }
    noteEdit(this.out, changed);
  }
}
