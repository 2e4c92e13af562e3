import { strict as assert } from 'assert';
import { buildSync } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { openStore } from '../../../../src/node/store';
import { replayInWorker } from '../../../../src/node/transcripts/replayInWorker';
import { countTurns } from '../../../support/eventLoopTurns';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { DEFAULT_SETTINGS, type ContextSettings } from '../../../../src/core/settings';

const ROOT = join(__dirname, '..', '..', '..', '..');
const WASM = require.resolve('sql.js/dist/sql-wasm.wasm');

/** The demo run repeated until it is about 5 MB, with fresh ids for each copy. */
function fiveMegabyteRun(dir: string): string {
  const demo = JSON.parse(readFileSync(join(ROOT, 'media', 'demo', 'demo-run.traj.json'), 'utf8')) as { messages: unknown[] };
  const messages = [...demo.messages];
  while (JSON.stringify(messages).length < 5_000_000) messages.push(...demo.messages.slice(1));
  const file = join(dir, 'big.traj.json');
  writeFileSync(file, JSON.stringify({ ...demo, messages }));
  return file;
}

describe('transcript replay in a worker thread', function () {
  this.timeout(240_000);
  let dir: string;
  let workerPath: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tally-replay-worker-'));
    // Bundled inside the repository (out/ is ignored), so the worker finds js-tiktoken's ranks as the extension finds its own.
    mkdirSync(join(ROOT, 'out'), { recursive: true });
    workerPath = join(mkdtempSync(join(ROOT, 'out', 'replay-worker-')), 'storeWorker.js');
    buildSync({ entryPoints: [join(ROOT, 'src', 'node', 'storeWorker.ts')], outfile: workerPath, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(workerPath, '..'), { recursive: true, force: true });
  });

  it('replays a 5 MB transcript off this thread (its event loop keeps turning), into a store this thread has open', async () => {
    const storeFolder = join(dir, 'store');
    const store = await openStore(storeFolder, { wasmPath: WASM });
    try {
      const file = fiveMegabyteRun(dir);
      const { result, turns } = await countTurns(() => replayInWorker(workerPath, { file, label: 'big', window: 32_000, storeFolder, wasmPath: WASM }));
      assert.ok(result.requests > 100, `${result.requests} requests replayed`);
      assert.ok(turns > 10, 'the event loop kept turning');
      const session = await store.getSession(result.sessionId);
      assert.ok(session, 'the open store sees the replayed session');
      assert.ok((await store.loadTranscript(result.sessionId)).length > 100);
      // How long this thread was held is measured by bench/, not asserted here: shared machines are noisy.
    } finally {
      await store.close();
    }
  });

  /** The demo as Open Demo Replay runs it, then the session as the chat and the inspector open it. */
  async function demoAsOpened(storeFolder: string, settings: ContextSettings): Promise<{ requests: number[]; now: number; compactAt: number; blockAt: number }> {
    const result = await replayInWorker(workerPath, { file: join(ROOT, 'media', 'demo', 'demo-run.traj.json'), label: 'demo', window: 32_000, storeFolder, wasmPath: WASM, settings });
    const store = await openStore(storeFolder, { wasmPath: WASM });
    try {
      const usage = await store.listRequestUsage(result.sessionId, { items: false });
      const last = usage[usage.length - 1];
      const session = await ContextSession.open({ store, sessionId: result.sessionId, settings, counter: getTokenCounter('o200k_base'), contextWindow: last.contextWindow, maxOutputTokens: last.maxOutputTokens });
      const budget = session.measure({ system: last.components.system, skills: last.components.skills, tools: last.components.tools });
      return { requests: usage.map((u) => u.estimatedInputTokens), now: budget.used, compactAt: budget.compactAtTokens, blockAt: budget.blockAtTokens };
    } finally {
      await store.close();
    }
  }

  it('the demo gives the same figures on every run and ends within the thresholds the live session measures it by', async () => {
    const first = await demoAsOpened(join(dir, 'demo-1'), DEFAULT_SETTINGS);
    const second = await demoAsOpened(join(dir, 'demo-2'), DEFAULT_SETTINGS);
    assert.deepEqual(second, first, 'the same figures on every run (no random id changes what is counted)');
    assert.ok(first.now <= first.compactAt, `the context now (${first.now}) is within the compaction threshold (${first.compactAt})`);
    for (const [i, tokens] of first.requests.entries()) assert.ok(tokens <= first.blockAt, `request #${i} (${tokens}) is within the block threshold (${first.blockAt})`);
  });

  it("replays by the user's own thresholds", async () => {
    const early = { ...DEFAULT_SETTINGS, compactTrigger: 0.6, hardBlock: 0.7 };
    const run = await demoAsOpened(join(dir, 'demo-early'), early);
    assert.ok(run.compactAt < 17_000, `the compaction threshold is the user's (${run.compactAt})`);
    assert.ok(run.now <= run.compactAt, `the context now (${run.now}) is within it`);
    for (const [i, tokens] of run.requests.entries()) assert.ok(tokens <= run.blockAt, `request #${i} (${tokens}) is within the user's block threshold (${run.blockAt})`);
  });

  it('rejects with the import error, naming the file', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"messages": 3}');
    await assert.rejects(replayInWorker(workerPath, { file: bad, label: 'bad', window: 32_000, storeFolder: join(dir, 'store2'), wasmPath: WASM }), /bad\.json: messages: messages must be a list/);
  });
});
