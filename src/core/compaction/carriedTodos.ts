import { planMessage } from '../model/factories';
import { placeOf, type Message } from '../model/message';
import { currentTodoItem } from '../plan/todoList';

/** The todo lists earlier compactions carried: set aside before the strategies run, so none of them summarizes one away. */
export function setAsideCarriedTodos(history: readonly Message[]): { rest: Message[]; carried: Message[] } {
  const rest: Message[] = [];
  const carried: Message[] = [];
  for (const m of history) (m.kind === 'plan' && m.meta?.plan === 'todos' ? carried : rest).push(m);
  return { rest, carried };
}

/**
 * Puts the todo list that was current before a compaction back into what it produced, verbatim:
 * unless its item is still there whole, a plan item carrying the list goes right after whatever
 * stands in for it (its pointer or its summary, after that call group), or after the last summary, or first.
 */
export function carryTodos(before: readonly Message[], after: readonly Message[], made: { newId(): string; now(): number }): Message[] {
  const source = currentTodoItem(before);
  if (!source) return [...after];
  if (after.some((m) => m.id === source.id && m.kind === source.kind)) return [...after];
  const standIn = after.findIndex((m) => m.id === source.id || m.meta?.replaces?.includes(source.id));
  const lastSummary = findLastIndex(after, (m) => m.kind === 'summary' || m.kind === 'episode' || m.kind === 'tool_summary' || m.kind === 'instructions' || m.role === 'system');
  let at = standIn >= 0 ? standIn + 1 : lastSummary + 1;
  while (at < after.length && after[at].role === 'tool') at++; // never inside a call group
  const placedAt = at > 0 ? placeOf(after[at - 1]) : placeOf(source);
  const item = planMessage(source.content, 'todos', { id: made.newId(), createdAt: Math.max(made.now(), source.createdAt), placedAt });
  return [...after.slice(0, at), item, ...after.slice(at)];
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}
