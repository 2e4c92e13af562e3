/**
 * One measured run, in its own process: the built extension (startExtension.ts) on a copy of a
 * seeded store, the chat resolved and the inspector open, then turns sent through the chat's send
 * intent against the instant model (2 requests a turn: a list_files call, then the reply). Prints
 * one JSON line: per turn the wall time from the intent to turn_end, the model server's time inside
 * its handlers, their difference (Tally's share), the host's CPU until the chat and the inspector
 * have shown the ended turn, and the bytes of the turn's last request; then the host's RSS. With
 * `delegation`, every second measured turn is a delegation instead (the model calls `delegate`,
 * the subagent makes one request and reports, then the model replies: 3 requests), reported apart.
 * Run by turn.bench.ts, or alone (e.g. with "profileTo"): node -r ./test/register.cjs bench/realPath/turnRun.ts '<json options>'
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { InstantModelServer } from './modelServer';
import { copyStorage, workspaceFolder } from './seedSession';
import { startExtension } from './startExtension';
import { TurnProfiler } from './turnProfiler';
import { withBlockProbe } from '../blockProbe';
import { runAsChild } from './runAsChild';

export interface TurnRunOptions {
  extensionRoot: string;
  /** A storage folder seeded by seedSession.ts; copied, never changed. */
  seededStorage: string;
  turns: number;
  warmup: number;
  /** Bound on each wait, ms. */
  timeoutMs?: number;
  /** Writes a CPU profile of the measured turns (not the open) to this .cpuprofile file. */
  profileTo?: string;
  /** The model's context window in tokens; by default 20,000,000, so every stored message is sent in every request. */
  contextWindow?: number;
  /** Measured turns alternate: a plain turn, then a delegation turn (reported in `delegationTurns`). */
  delegation?: boolean;
}

export interface MeasuredTurn {
  wallMs: number;
  /** Host CPU from the intent to turn_end: less swayed by a busy machine than wall time. */
  turnCpuMs: number;
  serverMs: number;
  shareMs: number;
  cpuMs: number;
  requestBytes: number;
  /** The longest the host's event loop went without a turn during the turn. */
  blockMs: number;
  /** That longest stretch in the process's CPU time (waiting for a CPU on a busy machine not counted). */
  blockCpuMs: number;
}

export interface TurnRunResult {
  turns: MeasuredTurn[];
  /** The first turn after the open (the warm-up, not among `turns`). */
  firstTurn: MeasuredTurn;
  /** With `delegation`: the measured delegation turns (`turns` then holds the plain ones between them). */
  delegationTurns: MeasuredTurn[];
  openMs: number;
  rssMiB: number;
  maxRssMiB: number;
}

/** Whether an inspector post carries request `index` (its lists are `requests`, or `turns` in builds before they were renamed). */
function showsRequest(message: { type: string; [key: string]: unknown }, index: number): boolean {
  type Listed = Array<{ requestIndex?: number }>;
  const lists = message as { state?: { requests?: Listed; turns?: Listed }; requests?: { upserts?: Listed }; turns?: { upserts?: Listed } };
  const listed = message.type === 'state' ? (lists.state?.requests ?? lists.state?.turns) : message.type === 'update' ? (lists.requests ?? lists.turns)?.upserts : undefined;
  return (listed ?? []).some((r) => r.requestIndex === index);
}

/** `promise`, or a rejection saying `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}


async function run(options: TurnRunOptions): Promise<TurnRunResult> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const storageDir = mkdtempSync(join(tmpdir(), 'tally-bench-storage-'));
  copyStorage(options.seededStorage, storageDir);
  const workspace = workspaceFolder();
  const server = await InstantModelServer.start();
  const ext = await startExtension({
    extensionRoot: options.extensionRoot,
    storageDir,
    workspace: [workspace],
    settings: { provider: 'openai-compatible', baseUrl: server.url, model: 'bench-model', contextWindow: options.contextWindow ?? 20_000_000, maxOutputTokens: 8_192 },
  });
  try {
    const openStarted = performance.now();
    const chat = ext.showChat();
    await chat.waitForPost('chat state', (p) => p.message.type === 'state', { timeoutMs });
    const inspector = await ext.openInspector();
    await inspector.waitForPost('inspector state', (p) => p.message.type === 'state', { timeoutMs });
    const openMs = performance.now() - openStarted;

    const turns: MeasuredTurn[] = [];
    const delegationTurns: MeasuredTurn[] = [];
    // The session's first turn after the window opened it: the one a user waits on first.
    let firstTurn: MeasuredTurn | undefined;
    let profiler: TurnProfiler | undefined;
    /** Each measured turn's start and end on the profile's clock (µs), for profileSummary.ts --turns. */
    const turnWindows: Array<[number, number]> = [];
    /** Each measured turn's longest block in CPU time, on the same clock (profileSummary.ts --window). */
    const longestBlocks: Array<[number, number]> = [];
    for (let t = 0; t < options.warmup + options.turns; t++) {
      if (t === options.warmup && options.profileTo) profiler = await TurnProfiler.start();
      const delegates = options.delegation === true && t >= options.warmup && (t - options.warmup) % 2 === 1;
      const answers = delegates ? (['delegate', 'text', 'text'] as const) : (['tool', 'text'] as const);
      server.script(...answers);
      const cpuBefore = process.cpuUsage();
      let stopReason: string | undefined;
      let turnCpu: NodeJS.CpuUsage | undefined;
      const ended = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`turn ${t}: no turn_end within ${timeoutMs} ms (shown: ${JSON.stringify(ext.world.shown.slice(-2))})`)), timeoutMs);
        const subscription = ext.api.sessions.onAgentEvent((event) => {
          if (event.type !== 'turn_end') return;
          stopReason = event.stopReason;
          turnCpu = process.cpuUsage(cpuBefore);
          clearTimeout(timer);
          subscription.dispose();
          resolve(performance.now());
        });
      });
      const startedUs = Number(process.hrtime.bigint() / 1000n);
      const started = performance.now();
      const handled = chat.send({ type: 'send', text: `Turn ${t}: which files are in the workspace?` });
      // The longest the host went without a turn of its event loop while this turn ran.
      const { result: endedAt, blockMs, blockCpuMs, blockCpuAt } = await withBlockProbe(() => ended);
      if (profiler) turnWindows.push([startedUs, startedUs + Math.round((endedAt - started) * 1000)]);
      if (profiler) longestBlocks.push(blockCpuAt);
      await within(handled, timeoutMs, `turn ${t}: the chat's send intent still running ${timeoutMs} ms after turn_end`);
      if (stopReason !== 'end_turn') throw new Error(`turn ${t} ended with ${stopReason}: ${JSON.stringify(ext.world.shown.slice(-2))} ${ext.world.logLines.slice(-3).join(' | ')}`);
      const requests = await server.waitForHandled(answers.length, timeoutMs);
      // The views show the ended turn: the chat its end (busy no more), the inspector the turn's last request
      // (posted as the session writes it, or on a timer after the turn by builds that coalesced on timers).
      await chat.waitForPost('chat update after the turn', (p) => p.message.type === 'update', { since: endedAt, timeoutMs });
      const lastRequest = (await ext.api.sessions.current()).contextSession.nextRequestIndex - 1;
      await inspector.waitForPost(`inspector post with request #${lastRequest}`, (p) => showsRequest(p.message, lastRequest), { since: started, timeoutMs });
      const cpu = process.cpuUsage(cpuBefore);
      const wallMs = endedAt - started;
      const serverMs = requests.reduce((sum, r) => sum + r.handlerMs, 0);
      const turnCpuMs = turnCpu ? (turnCpu.user + turnCpu.system) / 1000 : NaN;
      const measured = { wallMs, turnCpuMs, serverMs, shareMs: wallMs - serverMs, cpuMs: (cpu.user + cpu.system) / 1000, requestBytes: requests[requests.length - 1].bodyBytes, blockMs, blockCpuMs };
      if (t === 0) firstTurn = measured;
      if (t >= options.warmup) (delegates ? delegationTurns : turns).push(measured);
    }
    if (profiler && options.profileTo) {
      await profiler.stopInto(options.profileTo);
      writeFileSync(`${options.profileTo}.turns.json`, JSON.stringify(turnWindows));
      writeFileSync(`${options.profileTo}.blocks.json`, JSON.stringify(longestBlocks));
    }
    const errors = ext.world.shown.filter((s) => s.level === 'error');
    if (errors.length) throw new Error(`the extension showed errors: ${JSON.stringify(errors)}`);
    return { turns, firstTurn: firstTurn!, delegationTurns, openMs, rssMiB: process.memoryUsage().rss / 2 ** 20, maxRssMiB: process.resourceUsage().maxRSS / 1024 };
  } finally {
    await ext.dispose();
    server.close();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (require.main === module) runAsChild('turnRun', run);
