import { strict as assert } from 'assert';
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { policyNamed } from '../../../../src/core/replay/baselines';
import { replayRun, type RequestReport } from '../../../../src/core/replay/replay';
import { importTranscriptFile } from '../../../../src/node/transcripts/readTranscriptFile';
import { tempStore } from '../../../support/tempStore';

const ROOT = join(__dirname, '..', '..', '..', '..');
const DEMO = join(ROOT, 'media', 'demo', 'demo-run.traj.json');
const CLI = ['-r', join(ROOT, 'test', 'register.cjs'), join(ROOT, 'src', 'cli', 'main.ts')];

describe('replayed requests: the items add up to each request\'s total', function () {
  this.timeout(180_000);

  it('every stored request of a replayed run (with compactions) sums exactly, and carries the recorded system prompt as an item', async () => {
    const env = await tempStore();
    try {
      const report = await replayRun({ label: 'demo', messages: importTranscriptFile(DEMO).messages, policy: policyNamed('tally'), store: env.store, counter: getTokenCounter(), contextWindow: 16_000, maxOutputTokens: 2_000 });
      assert.ok(report.compactions > 0, 'summaries and archived results are among the items');
      const usage = await env.store.listRequestUsage(report.sessionId);
      assert.equal(usage.length, report.requests);
      for (const record of usage) {
        assert.equal(record.items.reduce((n, i) => n + i.tokens, 0), record.estimatedInputTokens, `request #${record.requestIndex}`);
        assert.ok(record.items.some((i) => i.messageId === 'framing:messages'));
      }
      assert.ok(usage.some((r) => r.items.some((i) => i.kind === 'summary' || i.kind === 'tool_result_archived')));
    } finally {
      await env.dispose();
    }
  });

  it('tally replay --json writes each request\'s items (kind, label, tokens) adding up to its total', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-cli-items-'));
    try {
      const json = join(dir, 'out.json');
      const run = spawnSync(process.execPath, [...CLI, 'replay', DEMO, '--window', '16000', '--json', json], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const written = JSON.parse(readFileSync(json, 'utf8'));
      const requests: RequestReport[] = written.runs[0].requestsDetail;
      assert.equal(requests.length, 92);
      for (const request of requests) {
        assert.ok(request.items && request.items.length > 0);
        assert.equal(request.items.reduce((n, i) => n + i.tokens, 0), request.totalTokens, `request ${request.index}`);
        for (const item of request.items) assert.ok(typeof item.kind === 'string' && typeof item.label === 'string' && Number.isInteger(item.tokens));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
