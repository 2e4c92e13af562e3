import type { Message } from '../model/message';
import { findCallGroups } from '../history/callGroups';

/** A piece of history that compaction may only keep or remove whole: a call group or one message. */
export interface HistoryUnit {
  start: number;
  end: number; // exclusive
  isCallGroup: boolean;
}

export function toUnits(messages: readonly Message[]): HistoryUnit[] {
  const groups = findCallGroups(messages as Message[]);
  const units: HistoryUnit[] = [];
  let g = 0;
  for (let i = 0; i < messages.length; ) {
    while (g < groups.length && groups[g].start < i) g++;
    if (g < groups.length && groups[g].start === i) {
      units.push({ start: i, end: groups[g].end, isCallGroup: true });
      i = groups[g].end;
      g++;
    } else {
      units.push({ start: i, end: i + 1, isCallGroup: false });
      i++;
    }
  }
  return units;
}

export function unitTokens(messages: readonly Message[], unit: HistoryUnit, count: (m: Message) => number): number {
  let total = 0;
  for (let i = unit.start; i < unit.end; i++) total += count(messages[i]);
  return total;
}

export function unitIsPinned(messages: readonly Message[], unit: HistoryUnit): boolean {
  for (let i = unit.start; i < unit.end; i++) if (messages[i].pinned) return true;
  return false;
}

export function totalTokens(messages: readonly Message[], count: (m: Message) => number): number {
  let total = 0;
  for (const m of messages) if (m.agentVisible) total += count(m);
  return total;
}

/** Index of the last message the user wrote, or -1. */
export function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user' && messages[i].kind === 'user') return i;
  return -1;
}
