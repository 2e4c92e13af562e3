/**
 * One measured open, in its own process: the built extension (startExtension.ts) on a copy of a
 * seeded store; the chat view resolved (its `ready` sent) until its first state that shows the
 * session's entries is posted (and, not in the CPU figure, until its meter has figures: a session
 * shown while its context resumes gets them in a later update), then the inspector opened until
 * its first state is posted. Prints one JSON line: the wait for each
 * (and the CPU time of the chat's),
 * the bytes posted, the chat's entries, the segment files the host loaded before the chat's first
 * state, and the host's RSS. With `profileFile`, a CPU profile of the wait for the chat's first
 * state is written there. Run by open.bench.ts, or alone:
 *   node -r ./test/register.cjs bench/realPath/openRun.ts '<json options>'
 */
import { copyStorage, workspaceFolder } from './seedSession';
import { mkdtempSync, promises as fsp, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { InstantModelServer } from './modelServer';
import { startExtension } from './startExtension';
import { TurnProfiler } from './turnProfiler';
import { runAsChild } from './runAsChild';

export interface OpenRunOptions {
  extensionRoot: string;
  seededStorage: string;
  timeoutMs?: number;
  /** Where to write a CPU profile of the wait for the chat's first state (profileSummary.ts reads it). */
  profileFile?: string;
  /**
   * How long after activation the chat view is resolved (default 0: at once). In a VS Code window
   * the chat's `ready` comes once its webview has loaded, a few hundred ms after activation.
   */
  readyAfterMs?: number;
  /** Open the seeded storage itself, not a copy: a build's first open records its facts of the session there, as the window before it would have. */
  inPlace?: boolean;
}

export interface OpenRunResult {
  chatStateMs: number;
  /** The host process's CPU time (user + system) over the same wait: what survives a loaded machine's noise. */
  chatStateCpuMs: number;
  chatStateKB: number;
  /** The longest stretch without a turn of the event loop over the same wait (a 1 ms timer probe; on a loaded machine it includes time the process waited for a CPU). */
  chatLongestBlockMs: number;
  chatEntries: number;
  /** From the chat's resolve until it was posted the meter with figures (the working context resumed): the first state's time when that state had them. */
  chatMeterMs: number;
  segmentLoads: number;
  segmentFiles: number;
  inspectorStateMs: number;
  inspectorStateKB: number;
  rssMiB: number;
}

async function run(options: OpenRunOptions): Promise<OpenRunResult> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const storageDir = options.inPlace ? options.seededStorage : mkdtempSync(join(tmpdir(), 'tally-bench-storage-'));
  if (!options.inPlace) copyStorage(options.seededStorage, storageDir);
  const workspace = workspaceFolder();
  const server = await InstantModelServer.start();
  const loads: string[] = [];
  const readFile = fsp.readFile;
  (fsp as { readFile: unknown }).readFile = (path: unknown, ...rest: unknown[]) => {
    if (/\.seg\d+\.sqlite$/.test(String(path))) loads.push(String(path));
    return (readFile as (...a: unknown[]) => unknown)(path, ...rest);
  };
  const ext = await startExtension({
    extensionRoot: options.extensionRoot,
    storageDir,
    workspace: [workspace],
    settings: { provider: 'openai-compatible', baseUrl: server.url, model: 'bench-model', contextWindow: 200_000, maxOutputTokens: 8_192 },
  });
  try {
    if (options.readyAfterMs) await new Promise((resolve) => setTimeout(resolve, options.readyAfterMs));
    let longestBlock = 0;
    let lastTick = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      longestBlock = Math.max(longestBlock, now - lastTick - 1);
      lastTick = now;
    }, 1);
    const profiler = options.profileFile ? await TurnProfiler.start() : undefined;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const chat = ext.showChat();
    // The first state that shows the session: its entries (a state without them would be a placeholder).
    const chatState = await chat.waitForPost('chat state', (p) => p.message.type === 'state' && ((p.message as { state?: { entries?: unknown[] } }).state?.entries?.length ?? 0) > 0, { timeoutMs });
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(probe);
    if (profiler && options.profileFile) await profiler.stopInto(options.profileFile);
    longestBlock = Math.max(longestBlock, chatState.at - lastTick - 1);
    const segmentLoads = loads.length;
    const segmentFiles = new Set(loads).size;
    const chatMeter = await chat.waitForPost('chat meter with figures', (p) => (p.message.type === 'state' || p.message.type === 'update') && (p.message as { state?: { meter?: unknown } }).state?.meter !== undefined, { timeoutMs });
    const inspectorStarted = performance.now();
    const inspector = await ext.openInspector();
    const inspectorState = await inspector.waitForPost('inspector state', (p) => p.message.type === 'state', { timeoutMs });
    const entries = (chatState.message as { state?: { entries?: unknown[] } }).state?.entries?.length ?? 0;
    return {
      chatStateMs: Math.round(chatState.at - started),
      chatStateCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      chatStateKB: Math.round(chatState.bytes / 1024),
      chatLongestBlockMs: Math.round(Math.max(0, longestBlock)),
      chatEntries: entries,
      chatMeterMs: Math.round(chatMeter.at - started),
      segmentLoads,
      segmentFiles,
      inspectorStateMs: Math.round(inspectorState.at - inspectorStarted),
      inspectorStateKB: Math.round(inspectorState.bytes / 1024),
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
  } finally {
    (fsp as { readFile: unknown }).readFile = readFile;
    await ext.dispose();
    server.close();
    if (!options.inPlace) rmSync(storageDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

runAsChild('openRun', run);
