import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { removedItem, transcriptIdsOf } from '../../../../src/core/compaction/removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../../../../src/core/compaction/types';
import { archivedToolResult } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { policyNamed, type ReplayPolicy } from '../../../../src/core/replay/baselines';
import { replayRun, type RunReport } from '../../../../src/core/replay/replay';
import { renderHtmlReport } from '../../../../src/core/report/htmlReport';
import { formatRuns } from '../../../../src/cli/retentionTable';
import { withSettings } from '../../../../src/core/settings';
import { call, msg } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

/** A run of short steps, long enough that a 6K window compacts several times. */
function run(): Message[] {
  const out: Message[] = [msg({ role: 'system', content: 'You are a careful coding agent.' }), msg({ role: 'user', content: 'Make the parser accept empty input.' })];
  for (let step = 0; step < 40; step++) {
    const c = call('bash', { command: `sed -n '${step * 10},${step * 10 + 12}p' src/app/module_${step}.py` });
    out.push(msg({ role: 'assistant', content: `THOUGHT: module ${step} looks fine; reading the next one.`, toolCalls: [c] }));
    const lines = Array.from({ length: 12 }, (_, k) => `${step * 10 + k}: def helper_${step}_${k}(value): return value * ${k}`).join('\n');
    out.push(msg({ role: 'tool', toolCallId: c.id, toolName: 'bash', content: `<returncode>0</returncode>\n<output>\n${lines}\n</output>` }));
  }
  out.push(msg({ role: 'assistant', content: 'Done.' }));
  return out;
}

/** Forgets on purpose what the agent is working from: the latest three tool results become pointers. */
class DropLatestResults implements CompactionStrategy {
  readonly name = 'drop-latest-results';
  private targets(messages: readonly Message[]): number[] {
    const results: number[] = [];
    messages.forEach((m, i) => m.role === 'tool' && m.kind === 'tool_result' && results.push(i));
    return results.slice(-3);
  }
  shouldRun(messages: readonly Message[]): boolean {
    return this.targets(messages).length > 0;
  }
  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const targets = new Set(this.targets(messages));
    const removed = messages.filter((_, i) => targets.has(i)).map((m) => removedItem(m, 'archived', this.name, ctx.countTokens(m)));
    const out = messages.map((m, i) => (targets.has(i) ? archivedToolResult(m, '[output dropped]', transcriptIdsOf(m), { id: ctx.newId() }) : m));
    return { messages: out, removed };
  }
}

const FORGETS_WORK: ReplayPolicy = { name: 'forgets-work', description: 'drops the latest results', strategies: [new DropLatestResults(), ...policyNamed('tally').strategies], settings: (base) => withSettings({ ...base, compactTrigger: 0.9 }) };

async function replay(policy: ReplayPolicy): Promise<RunReport> {
  const env = await tempStore();
  try {
    return await replayRun({ label: 'steps', messages: run(), policy, store: env.store, counter: getTokenCounter(), contextWindow: 6_000, maxOutputTokens: 750 });
  } finally {
    await env.dispose();
  }
}

describe('the working set: what the agent was working from at each compaction', function () {
  this.timeout(60_000);

  it('a compaction that drops the latest results is caught: the kind falls, and each removed result is counted to be read again', async () => {
    const report = await replay(FORGETS_WORK);
    const w = report.workingSet;
    assert.ok(w.compactions > 1, `compactions: ${report.compactions}`);
    const [last1, last3, last5] = w.results;
    assert.deepEqual([last1.depth, last3.depth, last5.depth], [1, 3, 5]);
    assert.equal(last1.due, w.compactions);
    assert.equal(last1.present, 0, 'the latest result never reached the next request whole');
    assert.equal(last3.present, 0);
    assert.equal(last3.compactionsAllKept, 0);
    assert.equal(last5.due, 5 * w.compactions);
    // The three dropped results of each compaction are what would be read again: their tokens, as they were sent.
    const counter = getTokenCounter();
    const resultTokens = run()
      .filter((m) => m.role === 'tool')
      .map((m) => countMessage(m, counter));
    assert.ok(w.reReadResults >= 3 * w.compactions, `${w.reReadResults} results`);
    assert.ok(w.reReadTokens >= Math.min(...resultTokens) * w.reReadResults && w.reReadTokens <= Math.max(...resultTokens) * w.reReadResults, `${w.reReadTokens} tokens`);
    assert.equal(report.effectiveCostWithReRead, report.effectiveCost + 1.25 * w.reReadTokens);
  });

  it("Tally keeps the working set whole: the latest three results reach the request after every compaction", async () => {
    const report = await replay(policyNamed('tally'));
    const w = report.workingSet;
    assert.ok(w.compactions > 1, `compactions: ${report.compactions}`);
    assert.equal(w.results[0].present, w.results[0].due);
    assert.equal(w.results[1].present, w.results[1].due);
    assert.equal(w.results[1].compactionsAllKept, w.compactions);
    assert.equal(w.assistant[1].present, w.assistant[1].due, 'and the assistant messages that asked for them');
    assert.ok(w.reReadTokens < (await replay(FORGETS_WORK)).workingSet.reReadTokens);
  });

  it('the table, the HTML report and each compaction record show it, with the summary each compaction wrote', async () => {
    const dropping = await replay(FORGETS_WORK);
    const tally = await replay(policyNamed('tally'));
    const table = formatRuns([dropping, tally]);
    assert.match(table.split('\n')[0], /re-read\s+cost \+ re-read.*working set: results 1\/3\/5\s+assistant 1\/3\/5/);
    assert.match(table, /steps\s+forgets-work\s.*0\.0 \/ 0\.0 \/ \d+\.\d%/);
    assert.match(table, /steps\s+tally\s.*100\.0 \/ 100\.0 \/ \d+\.\d%/);
    const html = renderHtmlReport(dropping);
    assert.match(html, /<section id="working-set"><h2>Working set at \d+ compactions<\/h2>/);
    assert.match(html, /<tr><td>last 1<\/td><td>0\.0% \(0 of \d+\)<\/td>/);
    assert.match(html, /Re-read estimate: [\d,]+ tokens in \d+ working-set results/);
    const summaries = tally.requestsDetail.flatMap((r) => (r.compaction?.summary ? [r.compaction.summary] : []));
    assert.ok(summaries.length > 0 && summaries.every((s) => s.startsWith('## Checkpoint')), 'each checkpoint carries its text');
    assert.ok(renderHtmlReport(tally).includes('<pre class="summary-text">## Checkpoint'), 'and the report shows it');
  });
});
