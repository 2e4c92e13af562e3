/**
 * Opening a long session: 1,500 turns (~115 MB of transcript, tool outputs of ~75 KB, a snapshot
 * every 100 turns) resumed by ContextSession.open in a fresh process, the first time (no file
 * checked yet) and later (files checked before are not checked again); the chat's recent
 * messages, and the whole transcript. Then 40 closed windows' 2 MB files merged on open. Each measure: wall time, longest event-loop block (1 ms timer
 * probe), peak RSS. Writes bench/results/sessionOpen.json.
 * "Window open" is what a new window does before the chat and the inspector show the session: its
 * last request's figures, then the session resumed while its view (the chat's newest messages,
 * the compaction events, the usage figures, the offloaded results) is read, from which both views
 * build their first state (older code: the chat's and the inspector's first reads through the
 * views' read cache); it counts the segment files loaded. "Never compacted": the same for a session of 10,000 short
 * messages and no snapshot, with the messages and bytes of the chat's first page.
 * `--old DIR`: each measure also runs with the code of another checkout (a clone at an older
 * commit), on the same data, alternating.
 * Run: node -r ./test/register.cjs bench/sessionOpen.bench.ts [turns] [--old DIR]   (default 1500)
 */
import { execFileSync } from 'child_process';
import { copyFileSync, mkdirSync, mkdtempSync, promises as fsp, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { basename, join, resolve } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import type { Message } from '../src/core/model/message';
import { policyNamed } from '../src/core/replay/baselines';
import { answeredCall } from '../src/core/context/answeredCall';
import { ContextSession } from '../src/core/context/contextSession';
import type { SessionStore } from '../src/core/ports/sessionStore';
import type { CompactionEventRecord, RequestUsageRecord } from '../src/core/model/records';
import { DEFAULT_SETTINGS } from '../src/core/settings';
import { openStore } from '../src/node/store';
import { bytesUnder } from '../test/support/folderBytes';
import { measureBlocking } from '../test/support/eventLoopBlocks';
import { call, logOutput, msg, prng } from '../test/support/syntheticSession';

const SESSION = 'slong';

async function buildLongSession(folder: string, turns: number): Promise<void> {
  const random = prng(turns);
  const store = await openStore(folder, { debounceMs: 1e9, sync: false });
  await store.createSession({ id: SESSION, title: 'long' });
  let at = 1;
  const recent: Message[] = [];
  let items: RequestUsageRecord['items'] = [];
  for (let t = 0; t < turns; t++) {
    const c = call('run_command', { command: `npm test -- --grep case${t}` });
    const batch = [
      msg({ role: 'user', content: `Turn ${t}: keep going.`, createdAt: at++ }),
      msg({ role: 'assistant', content: `Step ${t}.`, toolCalls: [c], createdAt: at++ }),
      msg({ role: 'tool', content: logOutput(random, 900, random() < 0.2), toolCallId: c.id, createdAt: at++, ...(t === 0 ? { id: OLDEST_MESSAGE_ID } : {}) }),
    ];
    await store.putMessages(SESSION, batch);
    recent.push(...batch);
    if (recent.length > 30) recent.splice(0, recent.length - 30);
    // Two requests a turn (the call, then the answer after its result), as a session records them.
    for (const [i, m] of batch.entries()) {
      if (i === 0) continue;
      items = [...items.slice(-60), { messageId: m.id, role: m.role, kind: m.kind, tokens: 200, badges: [], preview: m.content.slice(0, 80) }];
      await store.addRequestUsage(usageRecord(2 * t + i - 1, m.createdAt, items));
    }
    if (t % 100 === 99) {
      await store.addCompactionEvent({ id: `e${t}`, sessionId: SESSION, trigger: 'auto', status: 'complete', strategies: ['threshold-summarization'], startedAt: at - 1, tokensBefore: 100_000, tokensAfter: 1000, messagesBefore: 300, messagesAfter: 2, durationMs: 5, removed: [] } as unknown as CompactionEventRecord);
      await store.saveSnapshot({ sessionId: SESSION, compactionId: `c${t}`, tokenCount: 1000, createdAt: at - 1, messages: [msg({ role: 'user', content: `Summary up to turn ${t}.`, createdAt: at - 1 }), ...recent.slice(-9)] });
    }
    if (t % 20 === 19) await store.flush();
  }
  await store.close();
}

function usageRecord(requestIndex: number, createdAt: number, items: RequestUsageRecord['items']): RequestUsageRecord {
  return {
    id: `u${requestIndex}`, sessionId: SESSION, requestIndex, createdAt, model: 'gpt-test', contextWindow: 128_000, maxOutputTokens: 8_192,
    components: { system: 900, skills: 0, tools: 1_200, messages: items.length * 200, toolResults: 0, summaries: 0 }, estimatedInputTokens: 2_100 + items.length * 200, items,
  };
}

/** A session of `count` short messages that never compacted (no snapshot): resumed whole. */
async function buildUncompacted(folder: string, count: number): Promise<void> {
  const store = await openStore(folder, { debounceMs: 1e9, sync: false });
  await store.createSession({ id: SESSION, title: 'never compacted' });
  for (let at = 0; at < count; at += 500) {
    await store.putMessages(SESSION, Array.from({ length: Math.min(500, count - at) }, (_, i) => msg({ role: i % 2 ? 'assistant' : 'user', content: `Message ${at + i}: ${'some words of a short chat message '.repeat(5)}`, createdAt: at + i + 1 })));
    await store.flush();
  }
  await store.close();
}

/** 40 closed windows, each leaving a ~2 MB segment of the same session. */
async function buildClosedWindows(folder: string, windows: number): Promise<void> {
  const random = prng(windows);
  for (let w = 0; w < windows; w++) {
    const store = await openStore(folder, { debounceMs: 1e9, sync: false, segmentMaxBytes: 64 * 1024 * 1024 });
    if (w === 0) await store.createSession({ id: SESSION, title: 'windows' });
    const batch = Array.from({ length: 40 }, (_, i) => msg({ role: 'tool', content: logOutput(random, 600, false), toolCallId: `w${w}c${i}`, createdAt: w * 100 + i + 1 }));
    await store.putMessages(SESSION, batch);
    await store.close();
  }
}

/** What the chat reads when a session opens, and again each time earlier messages are asked for. */
const CHAT_PAGE = 200;

/** The first turn's tool output: an old item the views do not hold, opened in an editor. */
const OLDEST_MESSAGE_ID = 'first-output';

type OpenMeasure = 'resume' | 'transcript' | 'recent' | 'earlier' | 'message' | 'index' | 'window';

/** Child: opens the session once and reports what it cost. */
async function openOnce(folder: string, what: OpenMeasure): Promise<void> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
  const counter = getTokenCounter();
  await counter.load();
  const policy = policyNamed('tally');
  const settings = policy.settings({ ...DEFAULT_SETTINGS, contextWindow: 128_000, maxOutputTokens: 8_192 });
  // Warm-up in another folder: the code is loaded (and, under the bench's TypeScript loader,
  // compiled) before the measure, as it is in the running extension.
  const warm = mkdtempSync(join(tmpdir(), 'tally-warm-'));
  const warmStore = await openStore(warm, { debounceMs: 1e9 });
  await warmStore.createSession({ id: SESSION, title: 'warm' });
  await warmStore.putMessages(SESSION, [msg({ role: 'user', content: 'hi', createdAt: 1 })]);
  await warmStore.saveSnapshot({ sessionId: SESSION, compactionId: 'c', tokenCount: 1, createdAt: 1, messages: [msg({ role: 'user', content: 'hi', createdAt: 1 })] });
  await warmStore.flush();
  await warmStore.close();
  const warmAgain = await openStore(warm, { debounceMs: 1e9 });
  await ContextSession.open({ store: warmAgain, sessionId: SESSION, settings, counter, strategies: policy.strategies, contextWindow: 128_000, maxOutputTokens: 8_192 });
  await warmAgain.loadTranscript(SESSION);
  await warmAgain.close();
  rmSync(warm, { recursive: true, force: true });
  const store = await openStore(folder, { debounceMs: 1e9 });
  const shown = what === 'earlier' ? await store.loadRecentTranscript(SESSION, CHAT_PAGE) : undefined;
  const segmentLoads: string[] = [];
  const readFile = fsp.readFile;
  if (what === 'window') {
    (fsp as { readFile: unknown }).readFile = (path: unknown, ...rest: unknown[]) => {
      if (/\.seg\d+\.sqlite$/.test(String(path))) segmentLoads.push(String(path));
      return (readFile as (...a: unknown[]) => unknown)(path, ...rest);
    };
  }
  let firstPage = { messages: 0, bytes: 0 };
  const started = performance.now();
  const measured = await measureBlocking(async () => {
    if (what === 'window') {
      const open = () => ContextSession.open({ store, sessionId: SESSION, settings, counter, strategies: policy.strategies, contextWindow: 128_000, maxOutputTokens: 8_192 });
      type Resumed = { messages: readonly Message[]; complete: boolean } | undefined;
      const stateModule = codeModule<{ readSessionState(store: SessionStore, identity: { info: { id: string; title: string } }, page: number, resumed: Promise<Resumed>): Promise<{ chatEntries(): unknown[] }> }>('../src/host/sessionState/sessionReads');
      if (stateModule) {
        // As the session controller does: the state takes its page from what the session read to resume.
        await lastRequestFigures(store);
        const resuming = open();
        const handOver = resuming.then((s) => (s as unknown as { takeResumedTranscript(): Resumed }).takeResumedTranscript());
        const [session, state] = await Promise.all([resuming, stateModule.readSessionState(store, { info: { id: SESSION, title: 'long' } }, CHAT_PAGE, handOver)]);
        const entries = state.chatEntries();
        firstPage = { messages: entries.length, bytes: JSON.stringify(entries).length };
        return session.messages.length;
      }
      // Earlier code: the session view.
      const viewModule = codeModule<{ SessionView: { open(store: SessionStore, id: string, page: number, prices: object, resumed: Promise<Resumed>): Promise<{ chat: { entries(): unknown[] } }> } }>('../src/host/session/sessionView');
      if (viewModule) {
        // As the session controller does: the view takes its page from what the session read to resume.
        await lastRequestFigures(store);
        const resuming = open();
        const handOver = resuming.then((s) => (s as unknown as { takeResumedTranscript(): Resumed }).takeResumedTranscript());
        const [session, view] = await Promise.all([resuming, viewModule.SessionView.open(store, SESSION, CHAT_PAGE, {}, handOver)]);
        const entries = view.chat.entries();
        firstPage = { messages: entries.length, bytes: JSON.stringify(entries).length };
        return session.messages.length;
      }
      // Older code: the views read through their cache of the store.
      const views = codeModule<{ withSessionReadCache(store: SessionStore): SessionStore }>('../src/host/session/sessionReadCache')!.withSessionReadCache(store);
      const session = await ContextSession.open({ store: views, sessionId: SESSION, settings, counter, strategies: policy.strategies, contextWindow: 128_000, maxOutputTokens: 8_192 });
      await lastRequestFigures(views);
      const chat = () => Promise.all([views.loadRecentTranscript(SESSION, CHAT_PAGE), views.listCompactionEvents(SESSION), views.listSessions(), views.listRequestUsage(SESSION, { items: false })]);
      const inspector = () => Promise.all([views.listRequestUsage(SESSION, { items: false }), views.listCompactionEvents(SESSION), views.listBlobs(SESSION)]);
      const [[page]] = await Promise.all([chat(), chat(), inspector()]);
      firstPage = { messages: page.messages.length, bytes: JSON.stringify(page.messages).length };
      return session.messages.length;
    }
    if (what === 'index') return (await store.loadToolCallIndex(SESSION)).calls.size;
    if (what === 'resume') {
      const session = await ContextSession.open({ store, sessionId: SESSION, settings, counter, strategies: policy.strategies, contextWindow: 128_000, maxOutputTokens: 8_192 });
      return session.messages.length;
    }
    if (what === 'recent') return (await store.loadRecentTranscript(SESSION, CHAT_PAGE)).messages.length;
    if (what === 'message') {
      // What Open item in an editor reads: the item's message, and the call it answers for its title.
      const [result] = await store.loadMessages(SESSION, [OLDEST_MESSAGE_ID]);
      return result && (await answeredCall(store, SESSION, result)) ? 1 : 0;
    }
    if (what === 'earlier') return (await store.loadRecentTranscript(SESSION, CHAT_PAGE, { createdUpTo: shown!.createdAfter })).messages.length;
    return (await store.loadTranscript(SESSION)).length;
  });
  const ms = performance.now() - started;
  (fsp as { readFile: unknown }).readFile = readFile;
  await store.close();
  clearInterval(sampler);
  const window = what === 'window' ? { segmentLoads: segmentLoads.length, segmentFiles: new Set(segmentLoads).size, firstPageMessages: firstPage.messages, firstPageKB: Math.round(firstPage.bytes / 1024) } : {};
  process.stdout.write(JSON.stringify({ ms: Math.round(ms), longestBlockMs: +measured.longestBlockMs.toFixed(1), peakRssMiB: Math.round(peakRss / 2 ** 20), messages: measured.result, ...window }) + '\n');
}

/** A module of the code measured, or undefined when that code has no such module. */
function codeModule<T>(path: string): T | undefined {
  try {
    return require(path) as T;
  } catch {
    return undefined;
  }
}

/** The last request's figures, as the session controller reads them when it opens a session (read alone where the code has that). */
async function lastRequestFigures(store: SessionStore): Promise<unknown> {
  let alone: ((store: SessionStore, sessionId: string) => Promise<unknown>) | undefined;
  try {
    alone = (require('../src/core/context/lastRequestUsage') as { lastRequestUsage: typeof alone }).lastRequestUsage;
  } catch {
    // older code: the whole list, its last record
  }
  return alone ? alone(store, SESSION) : (await store.listRequestUsage(SESSION, { items: false })).pop();
}

/** Another checkout to measure too (`--old DIR`), with this bench copied into it. */
const OLD_ROOT = process.argv.includes('--old') ? resolve(process.argv[process.argv.indexOf('--old') + 1]) : undefined;

function inChild(folder: string, what: string, root = resolve(__dirname, '..')): Record<string, number> {
  const script = join(root, 'bench', basename(__filename));
  const out = execFileSync(process.execPath, ['-r', './test/register.cjs', script, '--open', folder, what], { encoding: 'utf8', maxBuffer: 1 << 24, cwd: root });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/**
 * The measure with this code, and with the older checkout's when one is given, alternating, each
 * in a fresh process on the same data, after one unreported run (files checked, facts recorded).
 */
function bothCodes(rows: Array<Record<string, unknown>>, measure: string, storedMiB: number, folder: string, what: string, rounds = 2): void {
  inChild(folder, what);
  for (let round = 0; round < rounds; round++) {
    if (OLD_ROOT) rows.push({ measure, code: 'old', storedMiB, ...inChild(folder, what, OLD_ROOT) });
    rows.push({ measure, code: 'this', storedMiB, ...inChild(folder, what) });
  }
}

async function main() {
  if (process.argv[2] === '--open') return openOnce(process.argv[3], process.argv[4] as OpenMeasure);
  const turns = Number(process.argv[2]) || 1_500;
  if (OLD_ROOT) copyFileSync(__filename, join(OLD_ROOT, 'bench', basename(__filename)));
  const rows: Array<Record<string, unknown>> = [];
  const long = mkdtempSync(join(tmpdir(), 'tally-open-'));
  try {
    const built = performance.now();
    await buildLongSession(long, turns);
    const storedMiB = +(bytesUnder(long) / 2 ** 20).toFixed(1);
    console.log(`built ${turns} turns, ${storedMiB} MiB, in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    rows.push({ measure: `resume ${turns} turns, first open`, storedMiB, ...inChild(long, 'resume') });
    bothCodes(rows, `window open: ${turns} turns resumed, then the chat's and the inspector's first reads`, storedMiB, long, 'window');
    rows.push({ measure: `resume ${turns} turns, later open`, storedMiB, ...inChild(long, 'resume') });
    rows.push({ measure: `the chat's ${CHAT_PAGE} newest messages of ${turns} turns, later open`, storedMiB, ...inChild(long, 'recent') });
    rows.push({ measure: `the ${CHAT_PAGE} messages before them (Show earlier)`, storedMiB, ...inChild(long, 'earlier') });
    rows.push({ measure: `an old tool result and its call (Open item in an editor), later open`, storedMiB, ...inChild(long, 'message') });
    rows.push({ measure: `whole transcript of ${turns} turns, later open`, storedMiB, ...inChild(long, 'transcript') });
    rows.push({ measure: `the session's index of tool calls (how every result was named after each step)`, storedMiB, ...inChild(long, 'index') });
  } finally {
    rmSync(long, { recursive: true, force: true });
  }
  const uncompacted = mkdtempSync(join(tmpdir(), 'tally-uncompacted-'));
  try {
    await buildUncompacted(uncompacted, 10_000);
    const storedMiB = +(bytesUnder(uncompacted) / 2 ** 20).toFixed(1);
    bothCodes(rows, 'window open: 10,000 messages never compacted', storedMiB, uncompacted, 'window');
  } finally {
    rmSync(uncompacted, { recursive: true, force: true });
  }
  const windows = mkdtempSync(join(tmpdir(), 'tally-windows-'));
  try {
    await buildClosedWindows(windows, 40);
    const storedMiB = +(bytesUnder(windows) / 2 ** 20).toFixed(1);
    rows.push({ measure: '40 closed windows of 2 MB merged on open', storedMiB, ...inChild(windows, 'transcript') });
  } finally {
    rmSync(windows, { recursive: true, force: true });
  }
  for (const row of rows) console.log(JSON.stringify(row));
  const result = { date: new Date().toISOString(), rows, targets: { openMs: 150, peakRssMiB: 300, longestBlockMs: 50 } };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'sessionOpen.json'), JSON.stringify(result, null, 2) + '\n');
  console.table(rows);
}

void main();
