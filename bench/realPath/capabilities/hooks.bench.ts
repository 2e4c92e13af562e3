/**
 * Hooks where the user waits, through the built extension (../startExtension.ts) on a seeded
 * session: a turn's tool call with no hooks, with a PreToolUse and a PostToolUse command hook that
 * answer at once (against the floor: the same shell command started twice by a small process), and with a
 * PreToolUse hook that never ends under a 2 s limit (tally.hookTimeoutSeconds): the call goes on
 * when the limit hits, and the notice the chat shows says so; with --kinds command, a run_command
 * call instead (`true`, allowed without asking), in the sandbox where bubblewrap runs. Each (hooks, build, round) runs in
 * a fresh process (hooksRun.ts); with --old the other build runs in every round too, alternating.
 * Writes bench/results/realPath-hooks.json.
 * --ballast-mb N makes each host hold N MB more (resident), as a real extension host holds other
 * extensions' memory: the seeded session alone leaves the bench's host at ~150 MB, and a fork's cost grows with it.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/capabilities/hooks.bench.ts [--messages 1000] [--old <extension root>] [--rounds 3] [--turns 5] [--ballast-mb 0] [--kinds none,instant,hang,command]
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { seedSession } from '../seedSession';
import { flag, runBench } from './capabilityBench';
import { HANG_LIMIT_SECONDS, type HookKind } from './hooksRun';

async function main() {
  const messages = Number(flag('messages') ?? 1_000);
  const seeded = mkdtempSync(join(tmpdir(), `tally-bench-seed-${messages}-`));
  await seedSession(seeded, messages);
  try {
    const kinds = (flag('kinds')?.split(',') ?? ['none', 'instant', 'hang']) as HookKind[];
    await runBench({
      name: flag('kinds') ? `realPath-hooks-${kinds.join('-')}` : 'realPath-hooks',
      runFile: join(__dirname, 'hooksRun.ts'),
      scenarios: kinds.map((hooks) => ({ name: `${hooks}, ${messages} messages`, options: { seededStorage: seeded, hooks, turns: Number(flag('turns') ?? 5), ballastMb: Number(flag('ballast-mb') ?? 0) } })),
      rounds: Number(flag('rounds') ?? 3),
      measures: {
        toolCallMs: 'a list_files call, tool_call to tool_result, its hooks included',
        toolCallCpuMs: 'the host’s CPU over that call',
        blockMs: 'the host’s longest block over a turn (the call, then a reply): median over turns; blockMsMax the longest',
        blockCpuMs: 'the most CPU the host used between two turns of its event loop over a turn (a busy machine does not lengthen it): median; blockCpuMsMax the most',
        hostStartBlockMs: 'how long one process start from the host holds its thread (spawn() of /bin/true): what the old build pays per hook, the new one once, for its spawner',
        hostRssMb: 'the host’s resident memory after the first turn on the seeded session',
        turnShareMs: 'the turn (the call, then a reply): intent to turn_end minus the model server’s time',
        spawnFloorMs: 'instant: the hook’s shell command started by a small Node process as a hook is (own process group, input on stdin) until it closes; a call runs two',
        turnCpuMs: 'host CPU from the intent to turn_end',
        spawnFloorCpuMs: 'instant: that small process’s CPU for one such start',
        notice: 'what the turn said (hang: the limit hit)',
        noticeInChat: 'a chat post carries the notice',
      },
      targets: { instantHooksOverheadOverFloorMs: 10, blockMsMax: 50, hangToolCallMs: `≤ ${HANG_LIMIT_SECONDS * 1000} + 100`, hangNoticeSaysLimit: true },
    });
  } finally {
    rmSync(seeded, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
