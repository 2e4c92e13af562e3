import type { CheckpointStore, FileState, RestoreTarget, TurnCheckpoint } from '../ports/checkpointStore';

/** One file a restore changes: written back, deleted (the turns created it), or not restorable (its bytes were not kept). */
export interface RestoreItem {
  absolute: string;
  relative: string;
  action: 'write' | 'delete' | 'unrestorable';
  /** The state it goes back to. */
  target: FileState;
  /** Someone other than the agent changed it after the turns did (or it cannot be told): the confirmation warns. */
  changedSince: boolean;
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
  if (!a || !b || a.kind !== b.kind) return false;
  if (a.kind === 'absent') return true;
  if (a.kind === 'stored' && b.kind === 'stored') return a.hash === b.hash;
  return false;
}

/**
 * What putting the files back to before `checkpoints` (a turn and every later one, oldest first)
 * would change: each file goes to its state before the first of those turns touched it. A file
 * already in that state is left out; one whose state now differs from what the last turn left is
 * marked `changedSince`.
 */
export async function planRestore(checkpoints: readonly TurnCheckpoint[], store: Pick<CheckpointStore, 'capture'>): Promise<RestorePlan> {
  const first = new Map<string, { relative: string; before: FileState }>();
  const lastAfter = new Map<string, FileState | undefined>();
  for (const checkpoint of checkpoints) {
    for (const file of checkpoint.files) {
      if (!first.has(file.absolute)) first.set(file.absolute, { relative: file.relative, before: file.before });
      lastAfter.set(file.absolute, file.after);
    }
  }
  const items: RestoreItem[] = [];
  for (const [absolute, { relative, before }] of first) {
    const now = await store.capture(absolute).catch((error: Error): FileState => ({ kind: 'unstored', size: 0, reason: error.message }));
    if (sameState(now, before)) continue;
    const changedSince = !sameState(now, lastAfter.get(absolute));
    if (before.kind === 'unstored') items.push({ absolute, relative, action: 'unrestorable', target: before, changedSince, reason: before.reason });
    else items.push({ absolute, relative, action: before.kind === 'absent' ? 'delete' : 'write', target: before, changedSince });
  }
  items.sort((a, b) => a.relative.localeCompare(b.relative));
  return { checkpointIds: checkpoints.map((c) => c.id), items, problems: checkpoints.flatMap((c) => c.problems) };
}

/** Writes each file back (or deletes it); a file that fails is reported and the rest still restored. */
export async function applyRestore(plan: RestorePlan, store: Pick<CheckpointStore, 'read'>, target: RestoreTarget): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { restored: [], failed: [], unrestorable: [] };
  for (const item of plan.items) {
    if (item.action === 'unrestorable' || item.target.kind === 'unstored') {
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
