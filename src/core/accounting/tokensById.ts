import type { Message } from '../model/message';
import { listWork, markOf, unchangedBefore, type ListMark } from '../model/listLineage';
import { nextTurn } from '../nextTurn';

/** Messages added to the map between two turns of the event loop while it is made ahead of its first use. */
const PREPARED_PER_SLICE = 4_000;

/** How an update went: changes reported one by one, the map rebuilt without them, or a map that cannot be trusted. */
export type TokensByIdUpdate = 'updated' | 'rebuilt' | 'unsure';

/**
 * The tokens of a list of messages by id (the messages `included` says count), kept up to date by
 * position: only positions whose message object changed are read (compared from the list's first
 * change when its lineage tells it, model/listLineage.ts), and each id whose tokens change
 * (undefined: absent) is reported. An id held by two messages at once makes the map unsure (which
 * one's tokens would win?) until a later update rebuilds it from the whole list.
 */
export class TokensById {
  readonly tokens = new Map<string, number>();
  private seen: Message[] = [];
  private readonly held = new Map<string, number>();
  /** Ids held by more than one message right now. */
  private repeated = 0;
  private unsure = false;
  private countUsed?: (m: Message) => number;
  private mark?: ListMark;

  constructor(private readonly included: (m: Message) => boolean) {}

  get trusted(): boolean {
    return !this.unsure;
  }

  /** The map made afresh from the list: for a repeated id, the last message's tokens. */
  wholeMap(): Map<string, number> {
    const map = new Map<string, number>();
    for (const m of this.seen) if (this.included(m)) map.set(m.id, this.countUsed!(m));
    return map;
  }

  /** Bumped by every update: a map being made ahead of its first use gives way to one. */
  private generation = 0;

  /**
   * Makes the map of `messages` ahead of its first update, a slice at a time with turns of the event
   * loop between (a reopened session of 50,000 messages made it in one block on its first turn).
   * Given up if an update comes first; that update then builds the map itself, as without this.
   */
  async prepare(messages: readonly Message[], count: (m: Message) => number): Promise<void> {
    if (this.countUsed) return;
    const generation = ++this.generation;
    const mark = markOf(messages);
    const steps = this.mapAll(messages, count);
    while (!steps.next().done) {
      await nextTurn();
      if (this.generation !== generation) return;
    }
    this.mark = mark;
  }

  update(messages: readonly Message[], count: (m: Message) => number, changed: (id: string, before: number | undefined, after: number | undefined) => void): TokensByIdUpdate {
    this.generation++;
    if (this.unsure || count !== this.countUsed) return this.rebuild(messages, count);
    const seen = this.seen;
    const shared = Math.min(seen.length, messages.length);
    const from = Math.min(shared, unchangedBefore(this.mark, messages));
    listWork.positionsRead += Math.max(seen.length, messages.length) - from;
    for (let i = from; i < shared; i++) {
      if (seen[i] === messages[i]) continue;
      this.remove(seen[i], changed);
      this.add(messages[i], changed);
      seen[i] = messages[i];
    }
    for (let i = shared; i < seen.length; i++) this.remove(seen[i], changed);
    for (let i = shared; i < messages.length; i++) {
      this.add(messages[i], changed);
      seen.push(messages[i]);
    }
    seen.length = messages.length;
    this.mark = markOf(messages);
    if (this.repeated > 0) this.unsure = true;
    return this.unsure ? 'unsure' : 'updated';
  }

  private rebuild(messages: readonly Message[], count: (m: Message) => number): TokensByIdUpdate {
    const steps = this.mapAll(messages, count);
    while (!steps.next().done);
    this.mark = markOf(messages);
    listWork.idsMapped += messages.length;
    return this.unsure ? 'unsure' : 'rebuilt';
  }

  /** Maps every message of `messages` afresh, pausing (a yield) after each slice; the map is in use (`countUsed`) once all are in. */
  private *mapAll(messages: readonly Message[], count: (m: Message) => number): Generator<void, void> {
    const list = messages.slice();
    this.tokens.clear();
    this.held.clear();
    this.repeated = 0;
    this.countUsed = undefined;
    const quiet = () => undefined;
    for (let i = 0; i < list.length; i++) {
      if (i > 0 && i % PREPARED_PER_SLICE === 0) yield;
      this.add(list[i], quiet, count);
    }
    listWork.positionsRead += list.length;
    this.seen = list;
    this.countUsed = count;
    this.unsure = this.repeated > 0;
  }

  private add(m: Message, changed: (id: string, before: number | undefined, after: number | undefined) => void, count = this.countUsed!): void {
    if (!this.included(m)) return;
    const n = (this.held.get(m.id) ?? 0) + 1;
    this.held.set(m.id, n);
    if (n === 2) this.repeated++;
    const before = this.tokens.get(m.id);
    const after = count(m);
    this.tokens.set(m.id, after);
    if (before !== after) changed(m.id, before, after);
  }

  private remove(m: Message, changed: (id: string, before: number | undefined, after: number | undefined) => void): void {
    if (!this.included(m)) return;
    const n = (this.held.get(m.id) ?? 0) - 1;
    if (n === 1) this.repeated--;
    if (n > 0) {
      this.held.set(m.id, n);
      return;
    }
    this.held.delete(m.id);
    const before = this.tokens.get(m.id);
    this.tokens.delete(m.id);
    changed(m.id, before, undefined);
  }
}
