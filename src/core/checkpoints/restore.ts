import type { CheckpointStore, FileState, RestoreTarget, TurnCheckpoint } from '../ports/checkpointStore';

/** One file a restore changes: written back, deleted (the turns created it), or not restorable (its bytes were not kept). */
export interface RestoreItem {
  absolute: string;
  relative: string;
  action: 'write' | 'delete' | 'unrestorable';
  /** The state it goes back to. */
  target: FileState;
  /** It is not as the last turn left it: someone changed it since (or it cannot be told). */
  changedSince: boolean;
  /**
   * Why a change to it cannot be told to be the agent's alone, when it cannot (changed since the
   * turns, saved by the user while they ran, changed between them): a restore leaves it as it is
   * unless the user asks for it too.
   */
  notTheAgents?: string;
  /** Why it cannot be restored. */
  reason?: string;
}

export interface RestorePlan {
  /** The checkpoints undone, oldest first. */
  checkpointIds: string[];
  items: RestoreItem[];
  /** What the turns could not record: their files may not all come back. */
  problems: string[];
}

export interface RestoreOutcome {
  restored: string[];
  failed: Array<{ relative: string; error: string }>;
  unrestorable: string[];
}

function sameState(a: FileState | undefined, b: FileState | undefined): boolean {
  if (!a || !b) return false;
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  return a.kind !== 'unstored' && b.kind !== 'unstored' && a.hash === b.hash;
}

/**
 * What putting the files back to before `checkpoints` (a turn and every later one, oldest first)
 * would change: each file goes to its state before the first of those turns touched it. A file
 * already in that state is left out. A file whose state now differs from what the last turn left
 * is `changedSince`; one someone else changed during a turn, or between two of them (a turn began
 * from other bytes than the one before left), is not the agent's alone: `notTheAgents` says why.
 */
export async function planRestore(checkpoints: readonly TurnCheckpoint[], store: Pick<CheckpointStore, 'inspect'>): Promise<RestorePlan> {
  const files = new Map<string, { relative: string; before: FileState; after?: FileState; others?: string }>();
  for (const checkpoint of checkpoints) {
    for (const file of checkpoint.files) {
      const known = files.get(file.absolute);
      if (!known) {
        files.set(file.absolute, { relative: file.relative, before: file.before, after: file.after, others: file.othersChanged });
        continue;
      }
      if (!known.others && known.after && !sameState(known.after, file.before) && file.before.kind !== 'unstored') known.others = 'changed between the turns';
      known.after = file.after;
      known.others ??= file.othersChanged;
    }
  }
  const items: RestoreItem[] = [];
  for (const [absolute, { relative, before, after, others }] of files) {
    const now = await store.inspect(absolute).catch((error: Error): FileState => ({ kind: 'unstored', size: 0, reason: error.message }));
    if (sameState(now, before)) continue;
    const changedSince = !sameState(now, after);
    const notTheAgents = changedSince ? 'changed since the agent changed it' : others;
    const restorable = before.kind === 'absent' || before.kind === 'stored';
    const item: RestoreItem = { absolute, relative, action: !restorable ? 'unrestorable' : before.kind === 'absent' ? 'delete' : 'write', target: before, changedSince };
    if (!restorable) item.reason = before.kind === 'unstored' ? before.reason : 'its bytes were not kept';
    if (notTheAgents) item.notTheAgents = notTheAgents;
    items.push(item);
  }
  items.sort((a, b) => a.relative.localeCompare(b.relative));
  return { checkpointIds: checkpoints.map((c) => c.id), items, problems: checkpoints.flatMap((c) => c.problems) };
}

/** The plan without the files whose changes are not the agent's alone: what a restore does unless the user asks for those too. */
export function agentsChangesOnly(plan: RestorePlan): RestorePlan {
  return { ...plan, items: plan.items.filter((i) => i.action === 'unrestorable' || !i.notTheAgents) };
}

/** Writes each file back (or deletes it); a file that fails is reported and the rest still restored. */
export async function applyRestore(plan: RestorePlan, store: Pick<CheckpointStore, 'read'>, target: RestoreTarget): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { restored: [], failed: [], unrestorable: [] };
  for (const item of plan.items) {
    if (item.action === 'unrestorable' || item.target.kind === 'unstored' || item.target.kind === 'seen') {
      outcome.unrestorable.push(item.relative);
      continue;
    }
    try {
      if (item.target.kind === 'absent') await target.deleteFile(item.absolute);
      else await target.writeFile(item.absolute, await store.read(item.target.hash));
      outcome.restored.push(item.relative);
    } catch (error) {
      outcome.failed.push({ relative: item.relative, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}

/**
 * The checkpoints to undo to get back to before a user message's turn: that turn's and every one
 * recorded after it (turns rewound away included: they changed the files too).
 */
export function checkpointsSince(checkpoints: readonly TurnCheckpoint[], message: { id: string; createdAt: number }): TurnCheckpoint[] {
  const at = checkpoints.findIndex((c) => c.userMessageId === message.id || c.createdAt >= message.createdAt);
  return at < 0 ? [] : checkpoints.slice(at);
}
