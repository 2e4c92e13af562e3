import { strict as assert } from 'assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../src/core/accounting/tokenizer';
import { policyNamed } from '../../../src/core/replay/baselines';
import { replayRun, type RequestReport } from '../../../src/core/replay/replay';
import { totalsByPolicy } from '../../../src/core/replay/policyTotals';
import { ReplayJsonFile, writePrettyJson } from '../../../src/cli/replayJsonFile';
import { importTranscriptFile } from '../../../src/node/transcripts/readTranscriptFile';
import { tempStore } from '../../support/tempStore';

const DEMO = join(__dirname, '..', '..', '..', 'media', 'demo', 'demo-run.traj.json');

function streamed(value: unknown, level: number, streamLevels: number): string {
  const parts: string[] = [];
  writePrettyJson((text) => parts.push(text), value, level, streamLevels);
  return parts.join('');
}

describe('tally replay --json: the file written run by run', function () {
  this.timeout(180_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-replay-json-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the same JSON the whole report stringified at once gave, laid out the same down to each request, for replayed runs with their items', async () => {
    const env = await tempStore();
    try {
      const messages = importTranscriptFile(DEMO).messages;
      const runs = [];
      for (const policy of ['tally', 'none']) {
        runs.push(await replayRun({ label: 'demo', messages, policy: policyNamed(policy), store: env.store, counter: getTokenCounter(), contextWindow: 16_000, maxOutputTokens: 2_000, withItems: true }));
      }
      assert.ok(runs[0].requestsDetail.some((r) => (r.items?.length ?? 0) > 0));
      const path = join(dir, 'out.json');
      const file = new ReplayJsonFile(path, '2026-11-26T02:00:00.000Z');
      for (const run of runs) file.addRun(run);
      file.finish(totalsByPolicy(runs));
      const whole = JSON.stringify({ generatedAt: '2026-11-26T02:00:00.000Z', runs, totals: totalsByPolicy(runs) }, null, 2);
      const written = readFileSync(path, 'utf8');
      assert.deepEqual(JSON.parse(written), JSON.parse(whole));
      // Each request on one line; everything around them as before.
      for (const run of runs) for (const request of run.requestsDetail) assert.ok(written.includes(`\n        ${JSON.stringify(request)}`), `request ${request.index} on its line`);
      assert.ok(written.startsWith('{\n  "generatedAt": "2026-11-26T02:00:00.000Z",\n  "runs": [\n    {\n      "label": "demo",'));
      assert.deepEqual(readdirSync(dir), ['out.json'], 'nothing else is left beside it');
    } finally {
      await env.dispose();
    }
  });

  it('writes each request as it is replayed, so its items can be let go, and the run holds them all when it ends', async () => {
    const env = await tempStore();
    try {
      const path = join(dir, 'out.json');
      const file = new ReplayJsonFile(path, 'now');
      const runs = [];
      const kept: RequestReport[][] = [];
      for (const policy of ['tally', 'none']) {
        const requests: RequestReport[] = [];
        file.startRun({ label: 'demo', policy });
        const run = await replayRun({
          label: 'demo', messages: importTranscriptFile(DEMO).messages, policy: policyNamed(policy), store: env.store, counter: getTokenCounter(), contextWindow: 16_000, maxOutputTokens: 2_000, withItems: true,
          onRequest: (request) => {
            requests.push(structuredClone(request));
            file.addRequest(request);
            delete request.items;
          },
        });
        assert.ok(run.requestsDetail.every((r) => r.items === undefined), 'let go');
        file.addRun(run);
        runs.push(run);
        kept.push(requests);
      }
      file.finish(totalsByPolicy(runs));
      const expected = { generatedAt: 'now', runs: runs.map((run, i) => ({ ...run, requestsDetail: kept[i] })), totals: totalsByPolicy(runs) };
      assert.ok(kept[0].every((r) => (r.items?.length ?? 0) > 0));
      assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), JSON.parse(JSON.stringify(expected)));
      assert.deepEqual(readdirSync(dir), ['out.json']);
    } finally {
      await env.dispose();
    }
  });

  it('writes what JSON.stringify writes for empty lists, left-out fields, dates and text with newlines', () => {
    const value = { a: [], b: {}, c: undefined, d: [undefined, () => 1, null, { e: [1, [2, []]] }], f: new Date(0), g: 'two\nlines "quoted"', h: [{}] };
    assert.equal(streamed(value, 0, Infinity), JSON.stringify(value, null, 2));
    assert.equal(streamed(value, 2, Infinity), JSON.stringify(value, null, 2).replace(/\n/g, '\n    '));
    for (const levels of [0, 1, 2, 3]) assert.deepEqual(JSON.parse(streamed(value, 0, levels)), JSON.parse(JSON.stringify(value)), `laid out ${levels} levels deep`);
    assert.equal(streamed(value, 0, 0), JSON.stringify(value));
  });

  it('leaves no file when the replay fails before it is finished', () => {
    const path = join(dir, 'out.json');
    const file = new ReplayJsonFile(path, 'now');
    file.addRun({ label: 'whole', requestsDetail: [] });
    file.startRun({ label: 'cut' });
    file.addRequest({ items: [] });
    file.abandon();
    assert.equal(existsSync(path), false);
    assert.deepEqual(readdirSync(dir), []);
  });
});
