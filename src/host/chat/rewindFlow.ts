import { agentsChangesOnly, applyRestore, checkpointsSince, planRestore, type RestoreItem, type RestoreOutcome, type RestorePlan } from '../../core/checkpoints/restore';
import type { Message } from '../../core/model/message';
import type { CompactionEventRecord, HistoryStep } from '../../core/model/records';
import type { CheckpointStore, RestoreTarget, TurnCheckpoint } from '../../core/ports/checkpointStore';
import type { RewindPlan } from '../../core/context/rewind';
import type { ChatTurnFiles } from '../../protocol/chat';
import { countOf } from '../../protocol/wording';
import { quoteOf } from './historyStepHeadline';

/** The session a rewind or restore acts on. */
export interface RewindSession {
  sessionId: string;
  readonly messages: readonly Message[];
  /** What a rewind to before the message would set aside, changing nothing; refused (RewindRefused) as the rewind would be. */
  planRewind(messageId: string): Promise<Pick<RewindPlan, 'message' | 'setAside' | 'unsummarized'>>;
  rewind(messageId: string, files?: Pick<HistoryStep, 'checkpointId' | 'files'>): Promise<CompactionEventRecord>;
  recordStep(step: HistoryStep): Promise<CompactionEventRecord>;
}

/** What restoring and rewinding reach: no `vscode` here; the VS Code layer passes editors and modals, tests fakes. */
export interface RewindPorts {
  /** Why nothing may be rewound or restored now (a turn runs), or undefined. */
  blocked(): string | undefined;
  session(): Promise<RewindSession>;
  checkpoints(sessionId: string): Promise<TurnCheckpoint[]>;
  files: Pick<CheckpointStore, 'inspect' | 'read'>;
  target: RestoreTarget;
  /** An editor holds unsaved changes to this file. */
  unsaved(absolute: string): boolean;
  /** The file lies (links resolved) inside a workspace folder open now: only those are restored. */
  insideWorkspace(absolute: string): Promise<boolean>;
  /** Shows what a restore would change, a diff per file; `closeDiffs` closes them once the user answered. */
  showDiffs(items: readonly RestoreItem[]): Promise<void>;
  closeDiffs(): Promise<void>;
  askModal(message: string, detail: string, choices: string[]): PromiseLike<string | undefined>;
  inform(message: string): void;
  warn(message: string): void;
  /** Puts the text in the composer. */
  editText(text: string): void;
  /** The turns' files changed (a restore ran): the chat's actions are read again. */
  changed(): void;
  /** A rewind happened: the last turn's error and Retry no longer apply. */
  rewound(): void;
}

const RESTORE = 'Restore Files';
const REWIND = 'Rewind';
const REWIND_AND_RESTORE = 'Rewind and Restore Files';
/** The choice that also puts back files whose changes are not the agent's alone (the user's saves among them). */
const restoreAll = (count: number) => (count === 1 ? 'Restore It Anyway' : `Restore All ${count} Files`);
const rewindAndRestoreAll = (count: number) => (count === 1 ? 'Rewind and Restore It Anyway' : `Rewind and Restore All ${count} Files`);

/**
 * When the files of each turn were last put back, from the history's restore steps (a restore, or
 * a rewind that restored files): a restore to before a turn puts back that turn and every later
 * one, and holds until a turn changes files again.
 */
function restoredAtOf(checkpoints: readonly TurnCheckpoint[], history: readonly CompactionEventRecord[]): Map<string, number> {
  const restoredAt = new Map<string, number>();
  const firstAt = new Map<string, number>();
  for (const c of checkpoints) if (c.files.length && !firstAt.has(c.userMessageId)) firstAt.set(c.userMessageId, c.createdAt);
  const lastChange = Math.max(0, ...checkpoints.filter((c) => c.files.length).map((c) => c.createdAt));
  for (const entry of history) {
    const step = entry.step;
    if (!step || (step.kind !== 'restore' && step.kind !== 'rewind') || !step.files?.length || entry.startedAt < lastChange) continue;
    const from = checkpoints.find((c) => c.id === step.checkpointId)?.createdAt ?? (step.messageId ? firstAt.get(step.messageId) : undefined);
    if (from === undefined) continue;
    for (const [messageId, at] of firstAt) if (at >= from) restoredAt.set(messageId, Math.max(restoredAt.get(messageId) ?? 0, entry.startedAt));
  }
  return restoredAt;
}

/** What each turn changed, by its user message, for the chat's "Restore files" actions; `history`: the session's, for when they were restored. */
export function turnFilesOf(checkpoints: readonly TurnCheckpoint[], history: readonly CompactionEventRecord[] = []): ChatTurnFiles[] {
  const byTurn = new Map<string, { paths: Set<string>; problems: string[] }>();
  for (const c of checkpoints) {
    const turn = byTurn.get(c.userMessageId) ?? { paths: new Set<string>(), problems: [] };
    for (const f of c.files) turn.paths.add(f.absolute);
    for (const p of c.problems) if (!turn.problems.includes(p)) turn.problems.push(p);
    byTurn.set(c.userMessageId, turn);
  }
  const restoredAt = restoredAtOf(checkpoints, history);
  const problemOf = (problems: readonly string[]) => (problems.length > 1 ? `${problems[0]} (and ${countOf(problems.length - 1, 'more note')} in Restore files)` : problems[0]);
  return [...byTurn]
    .filter(([, t]) => t.paths.size > 0 || t.problems.length)
    .map(([messageId, t]) => ({ messageId, files: t.paths.size, ...(t.problems.length ? { problem: problemOf(t.problems) } : {}), ...(restoredAt.has(messageId) ? { restoredAt: restoredAt.get(messageId) } : {}) }));
}

/**
 * What each turn of a session changed, read from its checkpoints; its history (for when files were
 * restored) is read only when a turn changed files: most sessions have none, and the chat's first
 * state waits for this.
 */
export async function readTurnFiles(checkpoints: Promise<readonly TurnCheckpoint[]>, history: () => Promise<readonly CompactionEventRecord[]>): Promise<ChatTurnFiles[]> {
  const recorded = await checkpoints;
  if (!recorded.some((c) => c.files.length > 0 || c.problems.length > 0)) return [];
  return turnFilesOf(recorded, await history());
}

/** The plan to put the files back to before a user message's turn (and undo every later turn's changes). */
async function planFor(ports: RewindPorts, session: RewindSession, messageId: string): Promise<RestorePlan> {
  const checkpoints = await ports.checkpoints(session.sessionId);
  const message = session.messages.find((m) => m.id === messageId) ?? checkpoints.find((c) => c.userMessageId === messageId);
  if (!message) return { checkpointIds: [], items: [], problems: [] };
  const plan = await planRestore(checkpointsSince(checkpoints, message), ports.files);
  const items: RestoreItem[] = [];
  for (const item of plan.items) {
    if (!(await ports.insideWorkspace(item.absolute))) items.push({ ...item, action: 'unrestorable', reason: 'it is outside the workspace folders open now' });
    else items.push(ports.unsaved(item.absolute) ? { ...item, changedSince: true, notTheAgents: 'it has unsaved changes in an editor' } : item);
  }
  return { ...plan, items };
}

/**
 * The confirmation's lines: what each file becomes, which files are left as they are unless the
 * user chooses to restore them too (their changes are not the agent's alone: the user's edits
 * would be lost), which cannot be restored, and what the turns could not record.
 */
export function restoreDetail(plan: RestorePlan): string {
  const names = (items: readonly RestoreItem[]) => items.map((i) => i.relative).join(', ');
  const agents = plan.items.filter((i) => i.action !== 'unrestorable' && !i.notTheAgents);
  const written = agents.filter((i) => i.action === 'write');
  const deleted = agents.filter((i) => i.action === 'delete');
  const others = plan.items.filter((i) => i.action !== 'unrestorable' && i.notTheAgents);
  const lost = plan.items.filter((i) => i.action === 'unrestorable');
  const what = (i: RestoreItem) => `${i.relative} (${i.notTheAgents}${i.action === 'delete' ? '; restoring deletes it' : ''})`;
  return [
    written.length ? `Written back: ${names(written)}` : '',
    deleted.length ? `Deleted (the agent created them): ${names(deleted)}` : '',
    others.length
      ? `⚠ Left as they are, because not only the agent changed them: ${others.map(what).join(', ')}. "${restoreAll(agents.length + others.length)}" puts them back too, and those changes are lost.`
      : '',
    lost.length ? `Cannot be restored: ${lost.map((i) => `${i.relative} (${i.reason ?? 'not recorded'})`).join(', ')}` : '',
    ...[...new Set(plan.problems)].map((p) => `⚠ ${p}`),
  ].filter(Boolean).join('\n');
}

/** How many files the plain choice restores (the agent's changes) and how many the choice that restores all does. */
function restoreCounts(plan: RestorePlan): { agents: number; all: number } {
  const restorable = plan.items.filter((i) => i.action !== 'unrestorable');
  return { agents: restorable.filter((i) => !i.notTheAgents).length, all: restorable.length };
}

function reportOutcome(ports: RewindPorts, outcome: RestoreOutcome): void {
  if (outcome.failed.length) ports.warn(`Tally could not restore ${outcome.failed.map((f) => `${f.relative} (${f.error})`).join(', ')}; the other files were restored.`);
}

/** "Restore files to before this turn": a diff per file, a modal confirmation, then the files written back. */
export async function restoreTurnFiles(ports: RewindPorts, messageId: string): Promise<RestoreOutcome | undefined> {
  const blocked = ports.blocked();
  if (blocked) throw new Error(blocked);
  const session = await ports.session();
  const plan = await planFor(ports, session, messageId);
  const quote = quoteOf(session.messages.find((m) => m.id === messageId)?.content);
  if (!plan.items.length) {
    ports.inform(plan.checkpointIds.length ? `The files are already as they were before ${quote}.` : 'Tally has no record of files this turn changed.');
    return undefined;
  }
  if (plan.items.every((i) => i.action === 'unrestorable')) {
    ports.inform(`None of the files can be restored: ${plan.items.map((i) => `${i.relative} (${i.reason ?? 'not recorded'})`).join(', ')}.`);
    return undefined;
  }
  await ports.showDiffs(plan.items.filter((i) => i.action !== 'unrestorable'));
  const counts = restoreCounts(plan);
  const choices = [...(counts.agents ? [RESTORE] : []), ...(counts.all > counts.agents ? [restoreAll(counts.all)] : [])];
  const question = counts.agents
    ? `Restore ${countOf(counts.agents, 'file')} to before ${quote}?`
    : `Restore files to before ${quote}? Not only the agent changed ${counts.all === 1 ? 'the file' : 'them'}.`;
  const choice = await ports.askModal(question, restoreDetail(plan), choices).then(
    (answer) => ports.closeDiffs().then(() => answer, () => answer),
  );
  if (choice !== RESTORE && choice !== restoreAll(counts.all)) return undefined;
  const outcome = await applyRestore(choice === RESTORE ? agentsChangesOnly(plan) : plan, ports.files, ports.target);
  await session.recordStep({ kind: 'restore', messageId, checkpointId: plan.checkpointIds[0], files: outcome.restored });
  ports.changed();
  reportOutcome(ports, outcome);
  return outcome;
}

/**
 * "Rewind to here": the conversation goes back to before the user message (after a modal that
 * offers to restore the files too), and its text goes back in the composer to edit.
 */
export async function rewindToMessage(ports: RewindPorts, messageId: string): Promise<CompactionEventRecord | undefined> {
  const blocked = ports.blocked();
  if (blocked) throw new Error(blocked);
  const session = await ports.session();
  const { message, setAside, unsummarized } = await session.planRewind(messageId);
  const wholeAgain = unsummarized ? ` ${countOf(unsummarized, 'earlier item')} ${unsummarized === 1 ? 'comes' : 'come'} back in place of a summary that also covered what is set aside.` : '';
  const plan = await planFor(ports, session, messageId);
  const counts = restoreCounts(plan);
  const files = plan.items.length
    ? `\n\nThe turns since changed ${countOf(plan.items.length, 'file')}. "${REWIND_AND_RESTORE}" also puts back the agent's changes:\n${restoreDetail(plan)}`
    : '';
  const detail = `The conversation goes back to before this message: ${countOf(setAside, 'message')} ${setAside === 1 ? 'is' : 'are'} set aside (the transcript and the inspector keep them).${wholeAgain} Its text goes back into the message box to edit.${files}`;
  const all = rewindAndRestoreAll(counts.all);
  const choices = [REWIND, ...(counts.agents ? [REWIND_AND_RESTORE] : []), ...(counts.all > counts.agents ? [all] : [])];
  const choice = await ports.askModal(`Rewind to before ${quoteOf(message.content)}?`, detail, plan.items.length ? choices : [REWIND]);
  if (choice !== REWIND && choice !== REWIND_AND_RESTORE && choice !== all) return undefined;
  let restored: Pick<HistoryStep, 'checkpointId' | 'files'> | undefined;
  if (choice === REWIND_AND_RESTORE || choice === all) {
    const outcome = await applyRestore(choice === all ? plan : agentsChangesOnly(plan), ports.files, ports.target);
    restored = { checkpointId: plan.checkpointIds[0], files: outcome.restored };
    reportOutcome(ports, outcome);
  }
  const record = await session.rewind(messageId, restored);
  // After the step is stored: the turns' actions read it to say the files were restored.
  if (restored) ports.changed();
  ports.rewound();
  ports.editText(message.content);
  return record;
}
