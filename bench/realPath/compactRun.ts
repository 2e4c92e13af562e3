/**
 * One measured compaction, in its own process: the built extension (startExtension.ts) on a copy of
 * a seeded store, the chat resolved and the inspector open (both with their first states), then the
 * inspector's "Compact now" (its `confirmCompaction` intent) against the instant model, which
 * answers the summary requests. Prints one JSON line: the wall time from the intent until its
 * handler finished (the compaction written and the user told), the host's CPU over it, the longest
 * event-loop block, the bytes posted to the chat and the inspector, the time to close the extension afterwards (the store's last writes), the messages and tokens
 * before and after, and the summary requests. With `profileFile`, a CPU profile of the compaction.
 * Run by compact.bench.ts, or alone: node -r ./test/register.cjs bench/realPath/compactRun.ts '<json options>'
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { withBlockProbe } from '../blockProbe';
import { InstantModelServer } from './modelServer';
import { copyStorage, workspaceFolder } from './seedSession';
import { startExtension } from './startExtension';
import { TurnProfiler } from './turnProfiler';
import { runAsChild } from './runAsChild';

export interface CompactRunOptions {
  extensionRoot: string;
  /** A storage folder seeded by seedSession.ts; copied, never changed. */
  seededStorage: string;
  /** The model's context window in tokens (a real model's: 200,000). */
  contextWindow: number;
  timeoutMs?: number;
  /** Writes a CPU profile of the compaction (intent → handler done) to this .cpuprofile file. */
  profileFile?: string;
}

export interface CompactRunResult {
  compactMs: number;
  cpuMs: number;
  blockMs: number;
  /** What the chat and the inspector were posted from the intent until the end of the run. */
  chatPostedKB: number;
  inspectorPostedKB: number;
  /** Closing the extension after the compaction: the store's pending writes. */
  closeMs: number;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  summaryRequests: number;
  /** What the user was told (the information message). */
  told: string;
  openMs: number;
  rssMiB: number;
}

const log = (line: string) => process.stderr.write(`compactRun: ${line}\n`);

async function run(options: CompactRunOptions): Promise<CompactRunResult> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  const storageDir = mkdtempSync(join(tmpdir(), 'tally-bench-storage-'));
  copyStorage(options.seededStorage, storageDir);
  const workspace = workspaceFolder();
  const server = await InstantModelServer.start();
  const ext = await startExtension({
    extensionRoot: options.extensionRoot,
    storageDir,
    workspace: [workspace],
    settings: { provider: 'openai-compatible', baseUrl: server.url, model: 'bench-model', contextWindow: options.contextWindow, maxOutputTokens: 8_192 },
  });
  let disposed = false;
  try {
    const openStarted = performance.now();
    const chat = ext.showChat();
    await chat.waitForPost('chat state', (p) => p.message.type === 'state', { timeoutMs });
    const inspector = await ext.openInspector();
    await inspector.waitForPost('inspector state', (p) => p.message.type === 'state', { timeoutMs });
    // The chat's meter has figures once the working context has resumed: compact that context.
    await chat.waitForPost('chat meter', (p) => (p.message.type === 'state' || p.message.type === 'update') && (p.message as { state?: { meter?: unknown } }).state?.meter !== undefined, { timeoutMs });
    const openMs = performance.now() - openStarted;
    log(`opened in ${Math.round(openMs)} ms`);
    const before = (await ext.api.sessions.current()).contextSession;
    const messagesBefore = before.messages.length;
    const tokensBefore = before.measure().used;
    server.takeHandled();

    const shownBefore = ext.world.shown.length;
    const profiler = options.profileFile ? await TurnProfiler.start() : undefined;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const { blockMs } = await withBlockProbe(() => inspector.send({ type: 'confirmCompaction' }));
    const compactMs = performance.now() - started;
    log(`compacted in ${Math.round(compactMs)} ms`);
    const cpu = process.cpuUsage(cpuBefore);
    if (profiler && options.profileFile) await profiler.stopInto(options.profileFile);
    const failed = inspector.posts.find((p) => p.at >= started && p.message.type === 'error');
    if (failed) throw new Error(`the compaction failed: ${JSON.stringify(failed.message)}`);
    const posted = (posts: ReadonlyArray<{ at: number; bytes: number }>) => posts.filter((p) => p.at >= started).reduce((sum, p) => sum + p.bytes, 0);
    const after = (await ext.api.sessions.current()).contextSession;
    const told = ext.world.shown.slice(shownBefore).map((s) => s.message).join(' | ');
    const summaryRequests = server.takeHandled().filter((h) => h.answer === 'summary').length;
    const result = {
      compactMs: Math.round(compactMs),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      blockMs,
      chatPostedKB: Math.round(posted(chat.posts) / 1024),
      inspectorPostedKB: Math.round(posted(inspector.posts) / 1024),
      closeMs: 0,
      messagesBefore,
      messagesAfter: after.messages.length,
      tokensBefore,
      tokensAfter: after.measure().used,
      summaryRequests,
      told,
      openMs: Math.round(openMs),
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
    const closing = performance.now();
    disposed = true;
    await ext.dispose();
    result.closeMs = Math.round(performance.now() - closing);
    return result;
  } finally {
    if (!disposed) await ext.dispose();
    server.close();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

runAsChild('compactRun', run);
