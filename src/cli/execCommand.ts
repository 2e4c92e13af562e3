/**
 * `tally exec "/name args"`: a task that starts with a command runs its text, expanded by the same
 * code as the chat's (the folder's `.tally/commands` and `.github/prompts`, then the user's
 * `~/.tally/commands`), with the files it names attached. A command that cannot run stops the
 * run before anything is sent.
 */
import { realpath } from 'fs/promises';
import { join } from 'path';
import { CommandCatalog } from '../core/commands/commandCatalog';
import type { Message } from '../core/model/message';
import type { BlobStore } from '../core/ports/blobStore';
import type { ContextSettings } from '../core/settings';
import { prepareAttachment } from '../core/toolOutput/attachmentContent';
import { isInside } from '../node/insideFolder';
import { readRegularFile } from '../node/regularFile';
import { NodeCommandFileReader } from '../node/slashCommands/commandFileReader';

const MAX_ATTACHED_BYTES = 8 * 1024 * 1024;

export interface ExecTask {
  text: string;
  attachments: Message[];
  /** The command the text came from, recorded on the message. */
  source?: string;
}

/** Thrown when the task's command cannot run; the message says why. */
export class ExecTaskError extends Error {}

/** The task as it is sent. `home`: the user's home folder (its `.tally/commands`). */
export async function execTask(task: string, folder: string, home: string, session: { store: BlobStore; sessionId: string; settings: ContextSettings }): Promise<ExecTask> {
  const catalog = new CommandCatalog(new NodeCommandFileReader(() => ({ workspace: folder, userFolder: join(home, '.tally', 'commands') })), () => true);
  let run;
  try {
    run = await catalog.expand(task);
  } catch (error) {
    throw new ExecTaskError(error instanceof Error ? error.message : String(error));
  }
  if (run.kind === 'none') return { text: task, attachments: [] };
  if (run.kind === 'built-in') throw new ExecTaskError(`/${run.name} works in the chat only: a new run has nothing to compact.`);
  if (run.refused.length) throw new ExecTaskError(`/${run.name} was not sent: ${run.refused.map((r) => r.reason).join('; ')}.`);
  const attachments: Message[] = [];
  const root = await realpath(folder);
  for (const file of run.attach) {
    const real = await realpath(join(root, file.path)).catch(() => undefined);
    if (!real) throw new ExecTaskError(`/${run.name} attaches ${file.path}, which does not exist in ${folder}.`);
    if (!isInside(root, real)) throw new ExecTaskError(`/${run.name} attaches ${file.path}, which leads outside ${folder}.`);
    const read = readRegularFile(real, { maxBytes: MAX_ATTACHED_BYTES });
    if (read.kind !== 'bytes') throw new ExecTaskError(`/${run.name} attaches ${file.path}: ${read.kind === 'not regular' ? `it is ${read.what}` : read.kind === 'too large' ? 'it is larger than 8 MB' : 'it does not exist'}.`);
    const prepared = await prepareAttachment({ ...session, info: { kind: 'file', label: file.path, path: file.path }, content: new Uint8Array(read.bytes) });
    attachments.push(prepared.message);
  }
  return { text: run.text, attachments, source: `/${run.name} from ${run.source}` };
}
