/**
 * Opening a long session: 1,500 turns (~115 MB of transcript, tool outputs of ~75 KB, a snapshot
 * every 100 turns) resumed by ContextSession.open in a fresh process, the first time (no file
 * checked yet) and later (files checked before are not checked again); the chat's recent
 * messages, and the whole transcript. Then 40 closed windows' 2 MB files merged on open. Each measure: wall time, longest event-loop block (1 ms timer
 * probe), peak RSS. Writes bench/results/sessionOpen.json.
 * Run: node -r ./test/register.cjs bench/sessionOpen.bench.ts [turns]   (default 1500)
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import type { Message } from '../src/core/model/message';
import { policyNamed } from '../src/core/replay/baselines';
import { answeredCall } from '../src/core/session/answeredCall';
import { ContextSession } from '../src/core/session/contextSession';
import type { BlobInfo, SessionStore } from '../src/core/ports/sessionStore';
import { resultTitles } from '../src/host/resultTitles';
import { withSessionReadCache } from '../src/host/sessionReadCache';
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
    if (t % 100 === 99) {
      await store.saveSnapshot({ sessionId: SESSION, compactionId: `c${t}`, tokenCount: 1000, createdAt: at - 1, messages: [msg({ role: 'user', content: `Summary up to turn ${t}.`, createdAt: at - 1 }), ...recent.slice(-9)] });
    }
    if (t % 20 === 19) await store.flush();
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

type OpenMeasure = 'resume' | 'transcript' | 'recent' | 'earlier' | 'message' | 'index' | 'titles';

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
  // The inspector with the chat's newest messages in memory, its results already named; then a step offloads a new result.
  const views = withSessionReadCache(store);
  const offloaded = what === 'titles' ? await stepThatOffloads(views) : [];
  const started = performance.now();
  const measured = await measureBlocking(async () => {
    if (what === 'index') return (await store.loadToolCallIndex(SESSION)).calls.size;
    if (what === 'titles') return Object.keys(await resultTitles(SESSION, offloaded, [], views)).length;
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
  await store.close();
  clearInterval(sampler);
  process.stdout.write(JSON.stringify({ ms: Math.round(ms), longestBlockMs: +measured.longestBlockMs.toFixed(1), peakRssMiB: Math.round(peakRss / 2 ** 20), messages: measured.result }) + '\n');
}

/** Names the session's last result (the index of calls read once), then adds a step whose result is offloaded: the results to name. */
async function stepThatOffloads(views: SessionStore): Promise<BlobInfo[]> {
  const recent = (await views.loadRecentTranscript(SESSION, CHAT_PAGE)).messages;
  const last = recent.filter((m) => m.toolCallId).pop()!;
  const content = new TextEncoder().encode(last.content);
  const first = await views.putBlob(SESSION, { toolName: 'run_command', toolCallId: last.toolCallId, content });
  await resultTitles(SESSION, [first], [], views);
  const c = call('run_command', { command: 'npm test -- --grep offloaded' });
  const at = recent[recent.length - 1].createdAt;
  await views.putMessages(SESSION, [msg({ role: 'assistant', content: 'One more step.', toolCalls: [c], createdAt: at + 1 }), msg({ role: 'tool', content: last.content, toolCallId: c.id, createdAt: at + 2 })]);
  return [first, await views.putBlob(SESSION, { toolName: 'run_command', toolCallId: c.id, content: new TextEncoder().encode(`${last.content}\n`) })];
}

function inChild(folder: string, what: string): Record<string, number> {
  const out = execFileSync(process.execPath, ['-r', './test/register.cjs', __filename, '--open', folder, what], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function main() {
  if (process.argv[2] === '--open') return openOnce(process.argv[3], process.argv[4] as OpenMeasure);
  const turns = Number(process.argv[2]) || 1_500;
  const rows: Array<Record<string, unknown>> = [];
  const long = mkdtempSync(join(tmpdir(), 'tally-open-'));
  try {
    const built = performance.now();
    await buildLongSession(long, turns);
    const storedMiB = +(bytesUnder(long) / 2 ** 20).toFixed(1);
    console.log(`built ${turns} turns, ${storedMiB} MiB, in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    rows.push({ measure: `resume ${turns} turns, first open`, storedMiB, ...inChild(long, 'resume') });
    rows.push({ measure: `resume ${turns} turns, later open`, storedMiB, ...inChild(long, 'resume') });
    rows.push({ measure: `the chat's ${CHAT_PAGE} newest messages of ${turns} turns, later open`, storedMiB, ...inChild(long, 'recent') });
    rows.push({ measure: `the ${CHAT_PAGE} messages before them (Show earlier)`, storedMiB, ...inChild(long, 'earlier') });
    rows.push({ measure: `an old tool result and its call (Open item in an editor), later open`, storedMiB, ...inChild(long, 'message') });
    rows.push({ measure: `whole transcript of ${turns} turns, later open`, storedMiB, ...inChild(long, 'transcript') });
    rows.push({ measure: `the session's index of tool calls (how every result was named after each step)`, storedMiB, ...inChild(long, 'index') });
    rows.push({ measure: `a result offloaded by a new step, named for the inspector`, storedMiB, ...inChild(long, 'titles') });
  } finally {
    rmSync(long, { recursive: true, force: true });
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
