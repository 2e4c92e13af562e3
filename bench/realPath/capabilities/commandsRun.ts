/**
 * One run of the prompt-file commands bench (commands.bench.ts) in its own process: a workspace
 * with `files` prompt files (`.github/prompts/*.prompt.md`, front matter and a body of about
 * 1.5 KB that uses its arguments and attaches README.md), the chat on a seeded session. Times the
 * `/` list (the webview's commandQuery to the host's commandList post: all of them, then a prefix),
 * the cost line of a draft that runs one (draft to the composer post), and turns sent as
 * `/name args` against plain turns (Tally's share, the model's time subtracted).
 */
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { median } from '../../median';
import { TurnProfiler } from '../turnProfiler';
import { openSession, type CapabilitySession } from './capabilitySession';
import { runAsChild } from '../runAsChild';

export interface CommandsRunOptions {
  extensionRoot: string;
  seededStorage: string;
  files: number;
  /** Measurements of each kind. */
  repeats: number;
  /** Writes a CPU profile of `repeats` more command turns to this .cpuprofile file. */
  profileTo?: string;
}

const name = (i: number) => `review-${String(i).padStart(3, '0')}`;

function writePromptFiles(workspace: string, count: number): void {
  const folder = join(workspace, '.github', 'prompts');
  mkdirSync(folder, { recursive: true });
  const checklist = Array.from({ length: 24 }, (_, i) => `- Check ${i + 1}: the code handles case ${i + 1} of the input and says what went wrong.`).join('\n');
  for (let i = 0; i < count; i++) {
    writeFileSync(
      join(folder, `${name(i)}.prompt.md`),
      `---\ndescription: Review a file against checklist ${i}\nargument-hint: file [focus]\nmode: agent\n---\nReview $1 against @README.md, focusing on $ARGUMENTS.\n\n${checklist}\n`,
    );
  }
}

let queryId = 0;

/** The `/` list for `query`: commandQuery to the commandList that answers it, ms; and how many it listed. */
async function listOnce(session: CapabilitySession, query: string): Promise<{ ms: number; items: number }> {
  const id = ++queryId;
  const started = performance.now();
  const answered = session.chat.waitForPost(`commandList ${id}`, (p) => p.message.type === 'commandList' && p.message.queryId === id, { since: started });
  await session.chat.send({ type: 'commandQuery', queryId: id, query });
  const post = await answered;
  return { ms: post.at - started, items: (post.message.items as unknown[]).length };
}

/** The cost line of a draft that runs a command: draft to the composer post with its cost, ms. */
async function draftOnce(session: CapabilitySession, text: string): Promise<number> {
  const started = performance.now();
  const answered = session.chat.waitForPost('composer after the draft', (p) => p.message.type === 'composer', { since: started });
  await session.chat.send({ type: 'draft', text });
  return (await answered).at - started;
}

async function measure(options: CommandsRunOptions) {
  const session = await openSession({ extensionRoot: options.extensionRoot, seededStorage: options.seededStorage, prepareWorkspace: (folder) => writePromptFiles(folder, options.files) });
  try {
    const first = await listOnce(session, '');
    if (first.items !== options.files + 1) throw new Error(`the / list had ${first.items} commands, not ${options.files} and /compact`);
    const lists: number[] = [];
    const prefixed: number[] = [];
    const drafts: number[] = [];
    for (let i = 0; i < options.repeats; i++) {
      lists.push((await listOnce(session, '')).ms);
      prefixed.push((await listOnce(session, 'review-1')).ms);
      drafts.push(await draftOnce(session, `/${name(i)} src/index.ts error handling`));
    }
    // A plain turn first (the session's first after the open is cold), then command and plain turns alternating.
    await session.turn('Which files are in the workspace?', ['tool', 'text']);
    const commandTurns: number[] = [];
    const plainTurns: number[] = [];
    const commandCpu: number[] = [];
    const plainCpu: number[] = [];
    for (let t = 0; t < options.repeats; t++) {
      const command = await session.turn(`/${name(t + 7)} src/index.ts error handling`, ['tool', 'text']);
      const plain = await session.turn(`Turn ${t}: review src/index.ts for error handling.`, ['tool', 'text']);
      commandTurns.push(command.shareMs);
      commandCpu.push(command.cpuMs);
      plainTurns.push(plain.shareMs);
      plainCpu.push(plain.cpuMs);
    }
    if (options.profileTo) {
      const profiler = await TurnProfiler.start();
      for (let t = 0; t < options.repeats; t++) await session.turn(`/${name(t + 50)} src/index.ts error handling`, ['tool', 'text']);
      await profiler.stopInto(options.profileTo);
    }
    const errors = session.ext.world.shown.filter((s) => s.level === 'error');
    if (errors.length) throw new Error(`the extension showed errors: ${JSON.stringify(errors)}`);
    return {
      firstListMs: first.ms,
      listMs: median(lists),
      prefixListMs: median(prefixed),
      draftMs: median(drafts),
      commandTurnShareMs: median(commandTurns),
      plainTurnShareMs: median(plainTurns),
      commandTurnCpuMs: median(commandCpu),
      plainTurnCpuMs: median(plainCpu),
    };
  } finally {
    await session.close();
  }
}

if (require.main === module) runAsChild('commandsRun', measure);
