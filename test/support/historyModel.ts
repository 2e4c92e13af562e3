import { transcriptIdsOf } from '../../src/core/compaction/removedItems';
import type { Message } from '../../src/core/model/message';
import { blocksOf } from '../../src/core/providers/anthropic/anthropicRequest';

/**
 * What a generated session's test remembers of everything it saw happen, to judge the history
 * operations by: each message's time, every item any working context held, what each request
 * sent, the context right before each user message, and the bytes of each thinking block the
 * first time a request sent it back.
 */
export class HistoryModel {
  /** Creation time of every transcript message seen (across the sessions of a case: forks keep the ids and times). */
  readonly times = new Map<string, number>();
  /** Every item seen in each session's working context, by session and id (the latest copy, and when it was first seen). */
  private readonly observed = new Map<string, Map<string, { message: Message; seen: number }>>();
  /** Where each fork started: the session, and when the request it started from was sent. */
  private readonly forkedFrom = new Map<string, { sessionId: string; seen: number }>();
  /** Counts what was seen, to order items and requests. */
  private seen = 0;
  /** The working context right before each user message was recorded (its attachments and itself), by the message's id. */
  readonly before = new Map<string, Message[]>();
  /** The user messages each session's transcript holds (its own, and those a fork carried), by session id. */
  readonly users = new Map<string, Message[]>();
  /** The attachments recorded with each user message, by its id. */
  readonly attachmentsOf = new Map<string, string[]>();
  /** What each request of each session sent, in order. */
  readonly requests = new Map<string, Array<{ index: number; messages: Message[]; seen: number }>>();
  /** The JSON of each assistant message's thinking blocks the first time a request carried it. */
  readonly thinking = new Map<string, string>();

  userSent(sessionId: string, message: Message): void {
    this.users.set(sessionId, [...(this.users.get(sessionId) ?? []), message]);
  }

  /** Takes note of a session's working context: every item in it, and the time of every transcript message in it. */
  see(sessionId: string, working: readonly Message[]): void {
    const seen = ++this.seen;
    const observed = this.observed.get(sessionId) ?? new Map<string, { message: Message; seen: number }>();
    this.observed.set(sessionId, observed);
    for (const m of working) {
      observed.set(m.id, { message: m, seen: observed.get(m.id)?.seen ?? seen });
      if (!m.meta?.replaces && !m.meta?.synthetic) this.times.set(m.id, m.createdAt);
      else if (m.kind === 'aborted') this.times.set(m.id, m.createdAt);
    }
  }

  /** A request sent: its messages, and the bytes of the thinking blocks it sent back for the first time. */
  sent(sessionId: string, index: number, messages: readonly Message[]): void {
    const list = this.requests.get(sessionId) ?? [];
    list.push({ index, messages: [...messages], seen: ++this.seen });
    this.requests.set(sessionId, list);
    for (const m of messages) if (!this.thinking.has(m.id) && hasSignedThinking(m)) this.thinking.set(m.id, thinkingBytes(m));
  }

  /** A fork of `from` started from its request `index`. */
  forked(forkId: string, from: string, index: number): void {
    const request = this.requests.get(from)?.find((r) => r.index === index);
    this.forkedFrom.set(forkId, { sessionId: from, seen: request?.seen ?? this.seen });
  }

  /**
   * Every item a session's history can hold: those seen in its working context, and for a fork,
   * those of the session it came from seen before the request it started from.
   */
  lineage(sessionId: string, upTo = Infinity): Map<string, Message> {
    const origin = this.forkedFrom.get(sessionId);
    const items = origin ? this.lineage(origin.sessionId, Math.min(upTo, origin.seen)) : new Map<string, Message>();
    for (const [id, { message, seen }] of this.observed.get(sessionId) ?? []) if (seen <= upTo) items.set(id, message);
    return items;
  }

  /** The creation times of the first and last transcript message an item stands for (its own time when none is known). */
  span(m: Message): { from: number; to: number } {
    let from = Infinity;
    let to = -Infinity;
    for (const id of transcriptIdsOf(m)) {
      const at = this.times.get(id);
      if (at === undefined) continue;
      from = Math.min(from, at);
      to = Math.max(to, at);
    }
    return from <= to ? { from, to } : { from: m.createdAt, to: m.createdAt };
  }
}

/** The transcript ids the visible items of a context stand for. */
export function covered(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.agentVisible) for (const id of transcriptIdsOf(m)) ids.add(id);
  return ids;
}

/** A message as a request sends it (its id, what it says, its pin and visibility), for comparing contexts. */
export function sentForm(m: Message): string {
  return JSON.stringify([m.id, m.role, m.kind, m.content, m.toolCalls ?? null, m.toolCallId ?? null, m.reasoning ?? null, Boolean(m.pinned), m.agentVisible]);
}

/** The same without the pin, which a message may have had taken off or put on since. */
export function contentForm(m: Message): string {
  return sentForm({ ...m, pinned: undefined });
}

export function hasSignedThinking(m: Message): boolean {
  return (m.reasoning ?? []).some((r) => r.format === 'anthropic' && (r.signature !== undefined || r.redactedData !== undefined));
}

/** The JSON of a message's thinking blocks as the Anthropic request body carries them. */
export function thinkingBytes(m: Message): string {
  return blocksOf(m)
    .blocks.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
    .map((b) => JSON.stringify(b))
    .join(',');
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

export function describeSet(a: ReadonlySet<string>, b: ReadonlySet<string>): string {
  return `only in the first: ${[...a].filter((x) => !b.has(x)).join(', ') || '–'}; only in the second: ${[...b].filter((x) => !a.has(x)).join(', ') || '–'}`;
}
