/**
 * One measured run of the host's side of large payloads, in its own process: the built extension
 * (startExtension.ts) with the chat shown, against the payload model (payloadModel.ts). For each
 * payload (a turn whose answer carries it): the longest event-loop block from the send intent until
 * the chat has posted the ended turn, and what the chat was posted (count, bytes, largest); then the
 * chat webview reloads (its `ready`) and the same for the whole state it is sent. The chat's posts
 * are written to `postsTo` (one JSON file per payload) for the webview's half of the bench.
 * With `previewMessages`, a session of that many messages is seeded instead and the inspector's
 * Preview compaction intent is measured (its block, until the preview is posted).
 * Run by largePayloads.bench.ts, or alone: node -r ./test/register.cjs bench/largePayloads/hostRun.ts '<json options>'
 */
import { fork } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { withBlockProbe } from '../blockProbe';
import type { RecordedPost } from '../realPath/fakeWebview';
import { copyStorage, seedSession, workspaceFolder } from '../realPath/seedSession';
import { REPOSITORY_ROOT, startExtension } from '../realPath/startExtension';
import type { PayloadAnswer, ToChild, ToParent } from './payloadModel';
import { runAsChild } from '../realPath/runAsChild';
import { TurnProfiler } from '../realPath/turnProfiler';

export interface HostRunOptions {
  extensionRoot: string;
  payloads: PayloadAnswer[];
  /** A folder the chat's posts are written to, `<payload>.json` each. */
  postsTo?: string;
  previewMessages?: number;
  /** A storage folder seeded with `previewMessages` messages (copied, never changed). */
  seededStorage?: string;
  timeoutMs?: number;
  /** Writes a CPU profile of the payload turns to this .cpuprofile file, and beside it the longest block of each turn and each reload, in that order (profileSummary.ts --blocks). */
  profileTo?: string;
}

export interface PostFigures {
  posts: number;
  bytes: number;
  largestBytes: number;
}

export interface PayloadFigures {
  payload: PayloadAnswer;
  /** Longest host block from the send intent until the chat has posted the ended turn. */
  turnBlockMs: number;
  /** The same block in the process's CPU time (waiting for a CPU does not lengthen it). */
  turnBlockCpuMs: number;
  turnMs: number;
  turnPosts: PostFigures;
  /** Longest host block from the webview's `ready` until its whole state is posted. */
  reloadBlockMs: number;
  reloadPosts: PostFigures;
}

export interface HostRunResult {
  payloads: PayloadFigures[];
  preview?: { messages: number; blockMs: number; blockCpuMs: number; ms: number; bytes: number };
}

function figures(posts: readonly RecordedPost[]): PostFigures {
  return { posts: posts.length, bytes: posts.reduce((sum, p) => sum + p.bytes, 0), largestBytes: Math.max(0, ...posts.map((p) => p.bytes)) };
}

export function startModel(): Promise<{ url: string; script(answers: PayloadAnswer[]): void; close(): void }> {
  const child = fork(join(__dirname, 'payloadModel.ts'), [], { execArgv: ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs')], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the payload model exited (code ${code}) before listening`)));
    child.on('message', (message: ToParent) => {
      if (message.type === 'unexpected') console.error(`payload model: unexpected ${message.url}`);
      if (message.type !== 'listening') return;
      child.removeAllListeners('exit');
      resolve({
        url: `http://127.0.0.1:${message.port}/v1`,
        script: (answers) => child.send({ type: 'script', answers } satisfies ToChild),
        close: () => child.send({ type: 'close' } satisfies ToChild),
      });
    });
  });
}

async function run(options: HostRunOptions): Promise<HostRunResult> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const storageDir = mkdtempSync(join(tmpdir(), 'tally-bench-payloads-'));
  if (options.seededStorage) copyStorage(options.seededStorage, storageDir);
  const workspace = workspaceFolder();
  const model = await startModel();
  const ext = await startExtension({ extensionRoot: options.extensionRoot, storageDir, workspace: [workspace], settings: { provider: 'openai-compatible', baseUrl: model.url, model: 'bench-model', contextWindow: 20_000_000, maxOutputTokens: 8_192 } });
  const result: HostRunResult = { payloads: [] };
  try {
    const chat = ext.showChat();
    let first = await chat.waitForPost('chat state', (p) => p.message.type === 'state', { timeoutMs });
    if (options.previewMessages) {
      const inspector = await ext.openInspector();
      await inspector.waitForPost('inspector state', (p) => p.message.type === 'state', { timeoutMs });
      const started = performance.now();
      const { result: post, blockMs, blockCpuMs } = await withBlockProbe(async () => {
        const previewed = inspector.waitForPost('preview', (p) => p.message.type === 'preview' || p.message.type === 'error', { since: started, timeoutMs });
        await inspector.send({ type: 'previewCompaction' });
        return previewed;
      });
      if (post.message.type !== 'preview') throw new Error(`the preview failed: ${JSON.stringify(post.message)}`);
      result.preview = { messages: options.previewMessages, blockMs, blockCpuMs, ms: performance.now() - started, bytes: post.bytes };
      return result;
    }
    const profiler = options.profileTo ? await TurnProfiler.start() : undefined;
    const longestBlocks: Array<[number, number]> = [];
    for (const payload of options.payloads) {
      if (payload !== options.payloads[0]) {
        // Each payload in a session of its own: a reloaded chat is sent that payload alone.
        const asked = performance.now();
        const shown = chat.waitForPost('the new session\'s state', (p) => p.message.type === 'state', { since: asked, timeoutMs });
        await chat.send({ type: 'newSession' });
        first = await shown;
      }
      model.script([payload]);
      const started = performance.now();
      const { result: turnMs, blockMs: turnBlockMs, blockCpuMs: turnBlockCpuMs, blockCpuAt } = await withBlockProbe(async () => {
        const ended = new Promise<number>((resolve) => {
          const subscription = ext.api.sessions.onAgentEvent((event) => {
            if (event.type !== 'turn_end') return;
            subscription.dispose();
            resolve(performance.now());
          });
        });
        await chat.send({ type: 'send', text: `Answer with the ${payload} payload.` });
        const endedAt = await ended;
        await chat.waitForPost('chat update after the turn', (p) => p.message.type === 'update' && p.message.state !== undefined && (p.message.state as { busy?: boolean }).busy === false, { since: endedAt, timeoutMs });
        return performance.now() - started;
      });
      longestBlocks.push(blockCpuAt);
      const turnPosts = chat.posts.filter((p) => p.at >= started);
      const reloadStarted = performance.now();
      const { blockMs: reloadBlockMs, blockCpuAt: reloadBlockAt } = await withBlockProbe(async () => {
        const whole = chat.waitForPost('whole state after reload', (p) => p.message.type === 'state', { since: reloadStarted, timeoutMs });
        await chat.send({ type: 'ready' });
        await whole;
      });
      longestBlocks.push(reloadBlockAt);
      const reloadPosts = chat.posts.filter((p) => p.at >= reloadStarted);
      if (options.postsTo) writeFileSync(join(options.postsTo, `${payload}.json`), JSON.stringify({ first: first.message, turn: turnPosts.map((p) => p.message), reload: reloadPosts.map((p) => p.message) }));
      result.payloads.push({ payload, turnBlockMs, turnBlockCpuMs, turnMs, turnPosts: figures(turnPosts), reloadBlockMs, reloadPosts: figures(reloadPosts) });
    }
    if (profiler && options.profileTo) {
      await profiler.stopInto(options.profileTo);
      writeFileSync(`${options.profileTo}.blocks.json`, JSON.stringify(longestBlocks));
    }
    const errors = ext.world.shown.filter((s) => s.level === 'error');
    if (errors.length) throw new Error(`the extension showed errors: ${JSON.stringify(errors)}`);
    return result;
  } finally {
    await ext.dispose();
    model.close();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** Seeds a storage folder with one session of `messages` messages, for the preview run. */
export async function seedPreviewSession(messages: number): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'tally-bench-preview-seed-'));
  await seedSession(folder, messages, 250);
  return folder;
}

if (require.main === module) runAsChild('hostRun', run);
