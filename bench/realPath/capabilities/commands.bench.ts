/**
 * Prompt-file commands where the user waits, through the built extension (../startExtension.ts):
 * a workspace with 200 prompt files, the chat on a seeded session of 1,000 and of 10,000 messages.
 * The `/` list (all, then a prefix), the cost line of a draft that runs one, and a turn sent as
 * `/name args` against a plain turn: none may grow with the session's size. Each (size, build,
 * round) runs in a fresh process (commandsRun.ts) with HOME set to an empty folder (no user
 * commands); with --old the other build runs in every round too, alternating.
 * Writes bench/results/realPath-commands.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/capabilities/commands.bench.ts [sizes…] [--files 200] [--old <extension root>] [--rounds 3] [--repeats 5]
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { seedSession } from '../seedSession';
import { flag, runBench } from './capabilityBench';

function sizes(): number[] {
  const values = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const counts = values.map(Number).filter((n) => n > 0);
  return counts.length ? counts : [1_000, 10_000];
}

async function main() {
  const files = Number(flag('files') ?? 200);
  const home = mkdtempSync(join(tmpdir(), 'tally-bench-home-'));
  const seeded = sizes().map((messages) => ({ messages, folder: mkdtempSync(join(tmpdir(), `tally-bench-seed-${messages}-`)) }));
  try {
    for (const s of seeded) await seedSession(s.folder, s.messages);
    await runBench({
      name: 'realPath-commands',
      runFile: join(__dirname, 'commandsRun.ts'),
      scenarios: seeded.map((s) => ({ name: `${files} prompt files, ${s.messages} messages`, options: { seededStorage: s.folder, files, repeats: Number(flag('repeats') ?? 5) } })),
      rounds: Number(flag('rounds') ?? 3),
      env: { HOME: home },
      measures: {
        firstListMs: 'the first / list after the chat opened: commandQuery to commandList',
        listMs: 'the / list of every command, later',
        prefixListMs: 'the / list after “/review-1”',
        draftMs: 'the cost line of a draft “/review-NNN src/index.ts error handling”: draft to the composer post',
        commandTurnShareMs: 'a turn sent as /review-NNN … (a list_files call, then a reply): intent to turn_end minus the model server’s time',
        plainTurnShareMs: 'the same turn with plain text',
        commandTurnCpuMs: 'host CPU from the intent to turn_end of the command turn (plainTurnCpuMs: the plain one)',
      },
      targets: { listMs: 50, draftMs: 50, commandTurnExtraShareMs: 20, growthFrom1KTo10K: 'none beyond noise' },
    });
  } finally {
    for (const s of seeded) rmSync(s.folder, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
