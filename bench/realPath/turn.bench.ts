/**
 * Tally's share of a real turn (2 requests, one list_files call) with N messages already in the
 * session, through the built extension as VS Code drives it (startExtension.ts), the instant
 * model's own time subtracted; and the host's RSS. The first turn after the window opened the
 * session (cold: the first body built, the first counts) is reported on its own, with the longest
 * event-loop block in it. The session is seeded as one that ran that long (seedSession.ts: its
 * usage records, a flush every 250 messages). Each (build, size, round) runs in a fresh
 * process (turnRun.ts); with --old, the other build runs in every round too, the order alternating
 * round by round, so both see the same load. Writes bench/results/realPath-turn.json.
 * With --window N the model's window is N tokens (a real model's, e.g. 200000), so a long session
 * compacts in its first (warm-up) turn and the measured turns carry what a real window holds;
 * without it the window is 20,000,000 tokens and every stored message is sent in every request.
 * That run writes bench/results/realPath-turn-window-N.json.
 * With --delegation the measured turns alternate between a plain turn and a delegation (the model
 * calls `delegate`, the subagent makes one request, then the model replies): each row adds the
 * delegation's share and longest block, and what it adds to a plain turn's share. That run writes
 * bench/results/realPath-turn-delegation.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/turn.bench.ts [sizes…] [--old <extension root>] [--rounds 3] [--turns 5] [--window 200000] [--delegation]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { median } from '../median';
import { seedSession } from './seedSession';
import { REPOSITORY_ROOT } from './startExtension';
import type { TurnRunOptions, TurnRunResult } from './turnRun';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function sizes(): number[] {
  const values = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const counts = values.map(Number).filter((n) => n > 0);
  return counts.length ? counts : [1_000, 10_000, 50_000];
}

function runOnce(options: TurnRunOptions): TurnRunResult {
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), join(__dirname, 'turnRun.ts'), JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, timeout: 20 * 60_000 });
  const last = out.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as TurnRunResult;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** A delegation turn's figures against the plain turns of the same processes. */
function delegationFigures(runs: readonly TurnRunResult[]) {
  const plain = runs.flatMap((r) => r.turns);
  const delegated = runs.flatMap((r) => r.delegationTurns);
  const share = median(delegated.map((t) => t.shareMs));
  return {
    delegationTurns: delegated.length,
    delegationShareMs: round1(share),
    delegationAddsMs: round1(share - median(plain.map((t) => t.shareMs))),
    delegationCpuMs: round1(median(delegated.map((t) => t.turnCpuMs))),
    delegationBlockMs: round1(median(delegated.map((t) => t.blockMs))),
    delegationMaxBlockMs: round1(Math.max(...delegated.map((t) => t.blockMs))),
    plainMaxBlockMs: round1(Math.max(...plain.map((t) => t.blockMs))),
  };
}

async function main() {
  const oldRoot = flag('old');
  const rounds = Number(flag('rounds') ?? 3);
  const turns = Number(flag('turns') ?? 5);
  const contextWindow = flag('window') === undefined ? undefined : Number(flag('window'));
  const delegation = process.argv.includes('--delegation');
  const builds = [{ name: 'new', root: REPOSITORY_ROOT }, ...(oldRoot ? [{ name: 'old', root: oldRoot }] : [])];
  const loadBefore = loadavg();
  const rows = [];
  for (const count of sizes()) {
    const seeded = mkdtempSync(join(tmpdir(), `tally-bench-seed-${count}-`));
    // Flushed every 250 messages as it ran, with its usage records: as a chat session leaves it.
    await seedSession(seeded, count, 250);
    const results = new Map<string, TurnRunResult[]>(builds.map((b) => [b.name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const result = runOnce({ extensionRoot: build.root, seededStorage: seeded, turns, warmup: 1, contextWindow, delegation });
        results.get(build.name)!.push(result);
        const delegated = delegation ? `; delegation ${result.delegationTurns.map((t) => `${t.shareMs.toFixed(1)} (block ${t.blockMs})`).join(' / ')} ms` : '';
        console.error(`${count} messages, ${build.name}, round ${round + 1}: share ${result.turns.map((t) => t.shareMs.toFixed(1)).join(' / ')} ms${delegated}`);
      }
    }
    rmSync(seeded, { recursive: true, force: true });
    for (const build of builds) {
      const runs = results.get(build.name)!;
      const all = runs.flatMap((r) => r.turns);
      const row = {
        build: build.name,
        messages: count,
        turns: all.length,
        shareMs: round1(median(all.map((t) => t.shareMs))),
        shareMsPerRound: runs.map((r) => round1(median(r.turns.map((t) => t.shareMs)))),
        wallMs: round1(median(all.map((t) => t.wallMs))),
        serverMs: round1(median(all.map((t) => t.serverMs))),
        turnCpuMs: round1(median(all.map((t) => t.turnCpuMs))),
        cpuMs: round1(median(all.map((t) => t.cpuMs))),
        requestKB: Math.round(median(all.map((t) => t.requestBytes)) / 1024),
        firstTurnShareMs: round1(median(runs.map((r) => r.firstTurn.shareMs))),
        firstTurnCpuMs: round1(median(runs.map((r) => r.firstTurn.turnCpuMs))),
        firstTurnBlockMs: round1(median(runs.map((r) => r.firstTurn.blockMs))),
        firstTurnBlockCpuMs: round1(median(runs.map((r) => r.firstTurn.blockCpuMs ?? NaN))),
        blockMs: round1(median(all.map((t) => t.blockMs))),
        blockCpuMs: round1(median(all.map((t) => t.blockCpuMs ?? NaN))),
        openMs: Math.round(median(runs.map((r) => r.openMs))),
        rssMiB: Math.round(median(runs.map((r) => r.rssMiB))),
        maxRssMiB: Math.round(median(runs.map((r) => r.maxRssMiB))),
        ...(delegation ? delegationFigures(runs) : {}),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  const result = {
    date: new Date().toISOString(),
    load: { before: loadBefore.map(round1), after: loadavg().map(round1) },
    builds: Object.fromEntries(builds.map((b) => [b.name, b.root])),
    contextWindow: contextWindow ?? 20_000_000,
    measures: {
      shareMs: 'turn wall time (send intent → turn_end) minus the model server’s time inside its handlers (from the request body’s last byte to the answer’s last byte), median over turns',
      turnCpuMs: 'host CPU from the send intent to turn_end (the model runs in another process)',
      cpuMs: 'host CPU from the send intent until the chat and the inspector have posted the ended turn',
      rssMiB: 'host RSS after the turns; maxRssMiB its peak',
      delegationShareMs: 'with --delegation: the share of a turn whose model calls delegate (the subagent makes one request, then the model replies), median; delegationAddsMs that minus the plain turns’ median share in the same processes; delegationBlockMs the median of those turns’ longest event-loop blocks, delegationMaxBlockMs the longest',
      firstTurnShareMs: 'the same share for the first turn after the window opened the session (cold), median over rounds; firstTurnBlockMs the longest event-loop block in it, firstTurnBlockCpuMs that block in the process CPU time (waiting for a CPU not counted)',
    },
    rows,
    targets: { shareMsAt10000: 20, ...(delegation ? { delegationAddsMsAt10000: 20, delegationBlockMs: 50 } : {}) },
  };
  mkdirSync(join(REPOSITORY_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPOSITORY_ROOT, 'bench', 'results', delegation ? 'realPath-turn-delegation.json' : contextWindow ? `realPath-turn-window-${contextWindow}.json` : 'realPath-turn.json'), JSON.stringify(result, null, 2) + '\n');
  console.table(rows.map(({ shareMsPerRound: _s, ...row }) => row));
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
