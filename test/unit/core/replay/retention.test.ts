import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { removedItem } from '../../../../src/core/compaction/removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../../../../src/core/compaction/types';
import { toUnits } from '../../../../src/core/compaction/units';
import type { Message } from '../../../../src/core/model/message';
import { policyNamed, type ReplayPolicy } from '../../../../src/core/replay/baselines';
import { pathsOfPatch } from '../../../../src/core/replay/facts';
import { renderHtmlReport } from '../../../../src/core/report/htmlReport';
import { formatRuns } from '../../../../src/cli/retentionTable';
import { replayRun } from '../../../../src/core/replay/replay';
import { withSettings } from '../../../../src/core/settings';
import { call, msg } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const TASK = 'Fix the crash in src/app/parser.py when the input is empty; keep the public API unchanged.';
const FOLLOW_UP = 'Also add a regression test in tests/test_parser.py for issue #4521, please.';
const AGENTS = 'AGENTS.md: run the test suite with `make check` before finishing; never edit vendored files.';
const ERROR_LINE = 'E   ValueError: cannot parse an empty document (got 0 bytes)';
const ERROR_FRAME = '  File "/repo/src/app/parser.py", line 87, in parse';
const FAILING_CHECK = 'pytest tests/test_parser.py';
const LAST_CHECK = 'python -m pytest tests/test_parser.py -k "empty and not slow"';
const EDIT = "sed -i 's/return doc\\[0\\]/return doc[0] if doc else None/' src/app/parser.py";

/** A run with every kind of fact planted, long enough that a 6K window must compact. */
function plantedRun(): Message[] {
  const out: Message[] = [msg({ role: 'system', content: 'You are a careful coding agent.' }), msg({ role: 'user', content: TASK }), msg({ role: 'user', kind: 'instructions', content: AGENTS })];
  const filler = (n: number) => Array.from({ length: 60 }, (_, k) => `line ${k} of listing ${n}: def helper_${n}_${k}(value): return value * ${k}`).join('\n');
  for (let step = 0; step < 14; step++) {
    if (step === 7) out.push(msg({ role: 'user', content: FOLLOW_UP }));
    const failing = step === 3;
    const command = failing ? FAILING_CHECK : step === 9 ? LAST_CHECK : step === 1 ? EDIT : step === 2 ? 'ls -la && git status' : `cat src/app/module_${step}.py`;
    const c = call('bash', { command });
    out.push(msg({ role: 'assistant', content: `Step ${step}: looking further.`, toolCalls: [c] }));
    if (step === 2) {
      // The environment changed setup.py before the run: the agent sees it named, and never writes it.
      out.push(msg({ role: 'tool', toolCallId: c.id, toolName: 'bash', content: '<returncode>0</returncode>\n<output>\nsetup.py\nsrc\n\tmodified:   setup.py\n</output>' }));
      continue;
    }
    out.push(msg({ role: 'tool', toolCallId: c.id, toolName: 'bash', content: failing ? `<returncode>1</returncode>\n<output>\n${filler(step)}\n${ERROR_FRAME}\n${ERROR_LINE}\n</output>` : `<returncode>0</returncode>\n<output>\n${filler(step)}\n</output>`, meta: failing ? { isError: true } : undefined }));
  }
  out.push(msg({ role: 'assistant', content: 'Done.' }));
  return out;
}

/** Forgets on purpose: everything but the last unit goes, with no summary and no refs. */
class ForgetEverything implements CompactionStrategy {
  readonly name = 'forget-everything';
  shouldRun(messages: readonly Message[]): boolean {
    return toUnits(messages).length > 1;
  }
  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const last = toUnits(messages).pop()!;
    return { messages: messages.slice(last.start), removed: messages.slice(0, last.start).map((m) => removedItem(m, 'dropped', this.name, ctx.countTokens(m))) };
  }
}

const FORGETFUL: ReplayPolicy = { name: 'forgetful', description: 'drops everything', strategies: [new ForgetEverything()], settings: (base) => withSettings({ ...base, compactTrigger: 0.9 }) };

async function replay(policy: ReplayPolicy, finalChangePaths?: string[]) {
  const env = await tempStore();
  try {
    return await replayRun({ label: 'planted', messages: plantedRun(), policy, store: env.store, counter: getTokenCounter(), contextWindow: 6_000, maxOutputTokens: 750, finalChangePaths });
  } finally {
    await env.dispose();
  }
}

describe('retention of facts after compaction', function () {
  this.timeout(60_000);
  const patch = 'diff --git a/src/app/parser.py b/src/app/parser.py\n--- a/src/app/parser.py\n+++ b/src/app/parser.py\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/docs/never_mentioned.md b/docs/never_mentioned.md\ndiff --git a/setup.py b/setup.py\n';

  it('reads the final change paths of a patch', () => {
    assert.deepEqual(pathsOfPatch(patch), ['src/app/parser.py', 'docs/never_mentioned.md', 'setup.py']);
  });

  it("Tally keeps the user's words, instructions, final-change paths, latest error and working refs", async () => {
    const report = await replay(policyNamed('tally'), pathsOfPatch(patch));
    const k = report.retention.kinds;
    assert.ok(report.compactions > 0 && report.retention.requestsChecked > 0, 'the run compacted');
    assert.ok(k.userWords.due >= report.retention.requestsChecked, "the task is due in every checked request");
    assert.equal(k.userWords.present, k.userWords.due, JSON.stringify(report.retention.lost));
    assert.ok(k.instructions.due > 0);
    assert.equal(k.instructions.present, k.instructions.due);
    // Only the path the agent changed is due: not the never-mentioned one, nor the one the environment changed.
    assert.equal(k.finalChangePaths.due, report.retention.requestsChecked);
    assert.equal(k.finalChangePaths.present, k.finalChangePaths.due);
    assert.ok(k.latestError.due > 0);
    assert.equal(k.latestError.present, k.latestError.due);
    assert.ok(k.removedResultRefs.due > 0, 'tool results were removed');
    assert.equal(k.removedResultRefs.present, k.removedResultRefs.due, 'every removed result has a ref that read_result resolves');
    // The failing check is due in every checked request, the later passing one from when it ran.
    assert.ok(k.commands.due > report.retention.requestsChecked, JSON.stringify(k.commands));
    assert.equal(k.commands.present, k.commands.due, JSON.stringify(report.retention.lost));
    assert.ok(k.numbers.due > 0);
    assert.equal(k.numbers.present, k.numbers.due, JSON.stringify(report.retention.lost));
    assert.deepEqual(report.retention.lost, []);
  });

  it('a compaction that forgets is caught: which fact, in which request', async () => {
    const report = await replay(FORGETFUL, pathsOfPatch(patch));
    const { kinds, lost, firstCompactedRequest } = report.retention;
    assert.notEqual(firstCompactedRequest, undefined, `compactions: ${report.compactions}, peak ${report.peakRequestTokens}`);
    assert.ok(kinds.userWords.present < kinds.userWords.due, JSON.stringify(kinds));
    assert.ok(lost.some((l) => l.kind === 'userWords' && l.fact.startsWith('Fix the crash') && l.request === firstCompactedRequest), JSON.stringify(lost));
    assert.ok(lost.some((l) => l.kind === 'instructions' && l.fact.startsWith('AGENTS.md')), JSON.stringify(lost));
    assert.ok(lost.some((l) => l.kind === "finalChangePaths" && l.fact === "src/app/parser.py"), JSON.stringify(lost));
    assert.ok(!lost.some((l) => l.fact.includes('never_mentioned')), 'a path that never entered is not due');
    assert.ok(!lost.some((l) => l.fact === 'setup.py'), 'nor one the agent saw named but never changed');
    assert.ok(lost.some((l) => l.kind === 'latestError' && l.fact.endsWith('ValueError: cannot parse an empty document (got 0 bytes)')), JSON.stringify(lost));
    assert.ok(lost.some((l) => l.kind === 'commands' && l.fact === FAILING_CHECK), JSON.stringify(lost));
    assert.ok(lost.some((l) => l.kind === 'commands' && l.fact === LAST_CHECK), JSON.stringify(lost));
    // Numbers of the latest error (where it happened, what it got) and of the user's words.
    for (const n of ['line 87', 'got 0', '#4521']) assert.ok(lost.some((l) => l.kind === 'numbers' && l.fact === n), `${n}: ${JSON.stringify(lost)}`);
    assert.equal(kinds.removedResultRefs.present, 0);
    assert.ok(kinds.removedResultRefs.due > 0);
    // The system prompt travels with every request outside the conversation: never lost.
    assert.ok(!lost.some((l) => l.fact.startsWith('You are a careful')));
  });

  it('the table and the HTML report show how many commands and numbers were kept, and which were lost', async () => {
    const report = await replay(FORGETFUL, pathsOfPatch(patch));
    const table = formatRuns([report]);
    assert.match(table.split('\n')[0], /commands.*numbers/);
    const html = renderHtmlReport(report);
    assert.match(html, /<td>commands<\/td><td>\d+<\/td><td>\d+<\/td>/);
    const kept = /<td>numbers<\/td><td>(\d+)<\/td><td>(\d+)<\/td>/.exec(html);
    assert.ok(kept && Number(kept[1]) < Number(kept[2]), 'fewer numbers present than due');
    assert.ok(html.includes('<td>numbers</td><td>line 87</td>'), 'the lost number is listed with its kind');
  });

  it('final-change paths are n/a when the format does not record the change', async () => {
    const report = await replay(policyNamed('tally'));
    assert.equal(report.retention.kinds.finalChangePaths.applicable, false);
    assert.equal(report.retention.kinds.finalChangePaths.due, 0);
  });
});
