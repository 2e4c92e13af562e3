import { strict as assert } from 'assert';
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { policyNamed } from '../../../../src/core/replay/baselines';
import { replayRun } from '../../../../src/core/replay/replay';
import { importTranscriptFile } from '../../../../src/node/transcripts/readTranscriptFile';
import { tempStore } from '../../../support/tempStore';

const ROOT = join(__dirname, '..', '..', '..', '..');
const DEMO = join(ROOT, 'media', 'demo', 'demo-run.traj.json');
const CLI = ['-r', join(ROOT, 'test', 'register.cjs'), join(ROOT, 'src', 'cli', 'main.ts')];

describe('replay of recorded runs', function () {
  this.timeout(120_000);
  const transcript = importTranscriptFile(DEMO);

  for (const window of [16_000, 32_000]) {
    it(`Tally's chain keeps a long real run inside a ${window / 1000}K window with valid pairs`, async () => {
      const env = await tempStore();
      try {
        const report = await replayRun({ label: 'demo', messages: transcript.messages, policy: policyNamed('tally'), store: env.store, counter: getTokenCounter(), contextWindow: window, maxOutputTokens: window / 8 });
        assert.equal(report.requests, 92);
        assert.deepEqual(report.violations, { overWindow: 0, brokenPairs: 0 });
        assert.ok(report.compactions > 0, 'compaction had to run');
        assert.ok(report.peakRequestTokens <= report.effectiveWindow);
        assert.ok(report.prefixReuse > 0.85, `prefix reuse ${report.prefixReuse}`);
        const events = await env.store.listCompactionEvents(report.sessionId);
        assert.equal(events.length, report.compactions);
        assert.ok((await env.store.listBlobs(report.sessionId)).length > 0, 'large outputs were offloaded');
      } finally {
        await env.dispose();
      }
    });
  }

  it('no management overflows the same window (the comparison is real)', async () => {
    const env = await tempStore();
    try {
      const report = await replayRun({ label: 'demo', messages: transcript.messages, policy: policyNamed('none'), store: env.store, counter: getTokenCounter(), contextWindow: 16_000, maxOutputTokens: 2_000 });
      assert.ok(report.violations.overWindow > 0);
      assert.equal(report.compactions, 0);
    } finally {
      await env.dispose();
    }
  });

  it('tally replay prints a table, writes JSON, and exits non-zero on violations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-cli-'));
    try {
      const json = join(dir, 'out.json');
      const ok = spawnSync(process.execPath, [...CLI, 'replay', DEMO, '--window', '32000', '--json', json], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /demo-run\.traj\.json\s+tally\s+92\s/);
      const written = JSON.parse(readFileSync(json, 'utf8'));
      assert.equal(written.runs[0].requests, 92);
      assert.ok(written.runs[0].requestsDetail[0].components.messages > 0);
      const bad = spawnSync(process.execPath, [...CLI, 'replay', DEMO, '--window', '16000', '--strategy', 'none'], { encoding: 'utf8' });
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /invariant violation/);
      const unknown = spawnSync(process.execPath, [...CLI, 'replay', DEMO, '--strategy', 'magic'], { encoding: 'utf8' });
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /unknown strategy "magic"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tally inspect writes a self-contained HTML report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-cli-'));
    try {
      const out = join(dir, 'report.html');
      const result = spawnSync(process.execPath, [...CLI, 'inspect', DEMO, '--window', '32000', '--out', out], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      const html = readFileSync(out, 'utf8');
      assert.match(html, /Tally context report — demo-run\.traj\.json/);
      assert.match(html, /class="seg" data-tokens="\d+"/);
      assert.match(html, /<svg class="timeline"/);
      assert.match(html, /<section id="retention"><h2>Retention after the first compaction \(request \d+ on/);
      assert.doesNotMatch(html, /<script|src="http|href="http/, 'no external resources, no script');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
