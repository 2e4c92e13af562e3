/**
 * One run of the capability bench, in its own process: the built extension (startExtension.ts) on
 * a copy of a seeded store, the chat and the inspector open, then a list of steps as the user and
 * the model take them: turns whose model calls a scripted tool (fetch_url, update_todos,
 * list_files), attachments through the chat's attach intent (an image file, a pasted image), the
 * chip's smaller copy (Shrink: the host's request to the webview, then the copy it gets back), and
 * /compact. Approval cards are answered "allow for this session" as they come. For each step: its
 * wall time, the process's CPU time (all threads), the longest event-loop block, for a turn the model
 * server's time and the bytes of each request; and which worker threads the extension started.
 * Run by capabilities.bench.ts, or alone: node -r ./test/register.cjs bench/realPath/capabilityRun.ts '<json options>'
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { basename, join } from 'path';
import { encodePng } from './mediaAssets';
import type { FakeWebview } from './fakeWebview';
import type { ScriptedAnswer } from './instantModel';
import { InstantModelServer } from './modelServer';
import { copyStorage, workspaceFolder } from './seedSession';
import { startExtension, type RunningExtension } from './startExtension';
import { TurnProfiler } from './turnProfiler';
import { runAsChild } from './runAsChild';

export type Step =
  /** A message sent; the model answers `script` in order (`{page}` in a tool's arguments becomes the page server's address). */
  | { kind: 'turn'; label: string; text: string; script: ScriptedAnswer[] }
  /** A workspace file (from `files`) attached as the chat's `#` does. */
  | { kind: 'attachFile'; label: string; path: string }
  /** A file's bytes pasted into the composer as an image. */
  | { kind: 'pasteImage'; label: string; file: string; mediaType: string }
  /** The last image chip's Shrink: the host posts its bytes to scale; the webview's PNG copy comes back. */
  | { kind: 'shrink'; label: string }
  /** Removes every chip (a refused one stays otherwise and blocks the send). */
  | { kind: 'clearChips'; label: string };

export interface CapabilityRunOptions {
  extensionRoot: string;
  seededStorage: string;
  /** Files copied into the workspace (attachments) and served under /pages/ (web pages): absolute paths. */
  files: string[];
  steps: Step[];
  contextWindow?: number;
  timeoutMs?: number;
  /** Writes a CPU profile of the steps (not the open) to this .cpuprofile file. */
  profileTo?: string;
}

export interface StepResult {
  label: string;
  wallMs: number;
  cpuMs: number;
  blockMs: number;
  serverMs?: number;
  shareMs?: number;
  requestBytes?: number[];
  /** What the chip or the composer said, when the step attached something. */
  chip?: string;
}

export interface CapabilityRunResult {
  steps: StepResult[];
  /** The worker scripts the extension started (file names). */
  workers: string[];
}

/** Records the worker threads the extension starts (the class is patched before the bundle binds it). */
function recordWorkers(): string[] {
  const started: string[] = [];
  // The module object itself (an `import *` would be a copy the bundle never reads).
  const threads = require('worker_threads') as typeof import('worker_threads');
  const Original = threads.Worker;
  class Recorded extends Original {
    constructor(filename: string | URL, options?: import('worker_threads').WorkerOptions) {
      super(filename, options);
      started.push(basename(String(filename)));
    }
  }
  threads.Worker = Recorded;
  return started;
}

function withPage(script: ScriptedAnswer[], pagesUrl: string): ScriptedAnswer[] {
  return script.map((a) => (typeof a === 'object' ? { tool: a.tool, args: JSON.parse(JSON.stringify(a.args).replaceAll('{page}', pagesUrl)) as Record<string, unknown> } : a));
}

/**
 * Runs `work` while a 1 ms timer re-arms itself and keeps the longest gap between two of its
 * runs: the longest the event loop went without a turn, within a millisecond or two. Unlike a
 * setImmediate probe it keeps no core busy, so the reader thread converting a page gets the core it
 * would have (on a loaded machine a gap also holds the time spent waiting for a core).
 */
async function withTimerProbe<T>(work: () => Promise<T>): Promise<{ result: T; blockMs: number }> {
  let longest = 0;
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  try {
    const result = await work();
    longest = Math.max(longest, performance.now() - last);
    return { result, blockMs: Math.round(longest * 10) / 10 };
  } finally {
    clearTimeout(timer);
  }
}

async function measured(label: string, work: () => Promise<string | undefined>): Promise<StepResult> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { result, blockMs } = await withTimerProbe(work);
  const used = process.cpuUsage(cpu);
  return { label, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, blockMs, ...(result ? { chip: result } : {}) };
}

function lastComposer(chat: FakeWebview, since: number): string {
  const post = [...chat.posts].reverse().find((p) => p.at >= since && p.message.type === 'composer');
  const chips = (post?.message.attachments ?? []) as Array<{ label: string; tokens?: number; error?: string; smaller?: unknown }>;
  return chips.map((c) => `${c.label}: ${c.error ?? `${c.tokens} tokens${c.smaller ? `, smaller ${JSON.stringify(c.smaller)}` : ''}`}`).join('; ');
}

async function turn(ext: RunningExtension, chat: FakeWebview, server: InstantModelServer, step: Extract<Step, { kind: 'turn' }>, pagesUrl: string, timeoutMs: number): Promise<StepResult> {
  const script = withPage(step.script, pagesUrl);
  server.script(...script);
  let stopReason: string | undefined;
  let toolResult: string | undefined;
  const ended = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${step.label}: no turn_end within ${timeoutMs} ms (shown: ${JSON.stringify(ext.world.shown.slice(-2))})`)), timeoutMs);
    const subscription = ext.api.sessions.onAgentEvent((event) => {
      // Answered after the event, as a user's click comes: the card is pending only once the event has been told.
      if (event.type === 'approval_needed') setImmediate(() => void chat.send({ type: 'approval', callId: event.request.callId, approved: true, forSession: true }));
      if (event.type === 'tool_result') toolResult = event.message.content.slice(0, 160).replace(/\s+/g, ' ');
      if (event.type !== 'turn_end') return;
      stopReason = event.stopReason;
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    });
  });
  const handled = chat.send({ type: 'send', text: step.text });
  const result = await measured(step.label, async () => {
    await ended;
    return undefined;
  });
  await handled;
  if (stopReason !== 'end_turn') throw new Error(`${step.label} ended with ${stopReason}: ${JSON.stringify(ext.world.shown.slice(-2))} ${ext.world.logLines.slice(-3).join(' | ')}`);
  const requests = await server.waitForHandled(script.length, timeoutMs);
  const serverMs = requests.reduce((sum, r) => sum + r.handlerMs, 0);
  return { ...result, serverMs, shareMs: result.wallMs - serverMs, requestBytes: requests.map((r) => r.bodyBytes), ...(toolResult ? { chip: toolResult } : {}) };
}

async function compactionTurn(ext: RunningExtension, chat: FakeWebview, server: InstantModelServer, label: string, timeoutMs: number): Promise<StepResult> {
  const result = await measured(label, async () => {
    await chat.send({ type: 'send', text: '/compact' });
    return undefined;
  });
  const requests = await server.waitForSummary(timeoutMs);
  const current = await ext.api.sessions.current();
  return { ...result, requestBytes: requests.map((r) => r.bodyBytes), chip: `${current.contextSession.messages.length} messages in the working context after it` };
}

async function run(options: CapabilityRunOptions): Promise<CapabilityRunResult> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  const workers = recordWorkers();
  const storageDir = mkdtempSync(join(tmpdir(), 'tally-bench-storage-'));
  copyStorage(options.seededStorage, storageDir);
  const workspace = workspaceFolder();
  for (const file of options.files) copyFileSync(file, join(workspace, basename(file)));
  const server = await InstantModelServer.start(30_000, workspace);
  const pagesUrl = new URL('/pages/', server.url).href;
  const ext = await startExtension({
    extensionRoot: options.extensionRoot,
    storageDir,
    workspace: [workspace],
    settings: { provider: 'openai-compatible', baseUrl: server.url, model: 'gpt-4.1-mini', contextWindow: options.contextWindow ?? 20_000_000, maxOutputTokens: 8_192 },
  });
  try {
    const chat = ext.showChat();
    await chat.waitForPost('chat state', (p) => p.message.type === 'state', { timeoutMs });
    const inspector = await ext.openInspector();
    await inspector.waitForPost('inspector state', (p) => p.message.type === 'state', { timeoutMs });
    const steps: StepResult[] = [];
    const profiler = options.profileTo ? await TurnProfiler.start() : undefined;
    let lastChip: string | undefined;
    for (const step of options.steps) {
      const since = performance.now();
      if (step.kind === 'turn') steps.push(step.text === '/compact' ? await compactionTurn(ext, chat, server, step.label, timeoutMs) : await turn(ext, chat, server, step, pagesUrl, timeoutMs));
      else if (step.kind === 'attachFile' || step.kind === 'pasteImage') {
        const target = step.kind === 'attachFile' ? { kind: 'file', path: step.path } : { kind: 'image', mediaType: step.mediaType, data: readFileSync(join(workspace, step.file)).toString('base64'), name: step.file };
        steps.push(await measured(step.label, async () => {
          await chat.send({ type: 'attach', target });
          return lastComposer(chat, since);
        }));
        const composer = [...chat.posts].reverse().find((p) => p.message.type === 'composer');
        lastChip = ((composer?.message.attachments ?? []) as Array<{ id: string }>).slice(-1)[0]?.id;
      } else if (step.kind === 'clearChips') {
        const composer = [...chat.posts].reverse().find((p) => p.message.type === 'composer');
        for (const chip of (composer?.message.attachments ?? []) as Array<{ id: string }>) await chat.send({ type: 'removeAttachment', id: chip.id });
      } else {
        if (!lastChip) throw new Error(`${step.label}: no chip to shrink`);
        const id = lastChip;
        const asked = await measured(`${step.label} (host posts the bytes)`, async () => {
          await chat.send({ type: 'downscaleImage', id });
          const post = await chat.waitForPost('imageToDownscale', (p) => p.message.type === 'imageToDownscale', { since, timeoutMs });
          return `${post.bytes} bytes posted`;
        });
        const request = [...chat.posts].reverse().find((p) => p.message.type === 'imageToDownscale')!.message as unknown as { width: number; height: number };
        // The webview's work (decode, scale, encode): not the host's, so outside the measured steps.
        const copy = encodePng(request.width, request.height, (x, y) => ((x ^ y) & 16 ? 0xd4d4d4 : 0x1e1e1e)).toString('base64');
        const accepted = await measured(`${step.label} (host takes the copy)`, async () => {
          await chat.send({ type: 'downscaledImage', id, mediaType: 'image/png', data: copy });
          return lastComposer(chat, since);
        });
        steps.push(asked, accepted);
      }
      const last = steps[steps.length - 1];
      console.error(`  ${last.label}: ${last.wallMs.toFixed(1)} ms, block ${last.blockMs} ms${last.requestBytes ? `, requests ${last.requestBytes.join(' / ')} bytes` : ''}${last.chip ? ` — ${last.chip.slice(0, 200)}` : ''}`);
    }
    if (profiler && options.profileTo) await profiler.stopInto(options.profileTo);
    const errors = ext.world.shown.filter((s) => s.level === 'error');
    if (errors.length) throw new Error(`the extension showed errors: ${JSON.stringify(errors)}`);
    return { steps, workers };
  } finally {
    await ext.dispose();
    server.close();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (require.main === module) runAsChild('capabilityRun', run);
