import { strict as assert } from 'assert';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import { EmergencyDrop } from '../../../../src/core/compaction/strategies/emergencyDrop';
import { checkModelSummary } from '../../../../src/core/compaction/summaryCheck';
import { ThresholdSummarization } from '../../../../src/core/compaction/strategies/thresholdSummarization';
import type { StrategyContext } from '../../../../src/core/compaction/types';
import { validateHistory } from '../../../../src/core/history/normalize';
import { attachmentMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { call, msg } from '../../../support/syntheticSession';

const count = (m: Message) => Math.ceil((m.content.length + (m.toolCalls ?? []).reduce((n, c) => n + c.arguments.length + c.name.length, 0)) / 4) + 4;

function ctx(overrides: Partial<StrategyContext> = {}): StrategyContext {
  let n = 0;
  return {
    settings: withSettings({ masking: { keepLast: 2, minBatchTokens: 100 } }),
    effectiveWindow: 20_000,
    fixedTokens: 0,
    targetTokens: 2_000,
    trigger: 'auto',
    dryRun: false,
    countTokens: count,
    summarizer: new LocalSummarizer(),
    offload: async () => `ref${++n}`,
    newId: () => `new${++n}`,
    now: () => 1,
    progress: () => undefined,
    ...overrides,
  };
}

let at = 0;
function attached(path: string, pinned = false): Message {
  return { ...attachmentMessage({ kind: 'file', label: path, path }, `[Attached file ${path}]\n${`const line = ${path};\n`.repeat(150)}`), id: `att-${path}`, createdAt: ++at, pinned };
}

/** Turns of tool work; the first user message comes with two attachments (one pinned), the last with one. */
function session(): Message[] {
  const out: Message[] = [attached('docs/old.md'), attached('docs/spec.md', true), msg({ role: 'user', content: 'Implement the spec.' })];
  for (let t = 0; t < 8; t++) {
    const c = call('run_command', { command: `make step${t}` });
    out.push(msg({ role: 'assistant', content: `Step ${t}.`, toolCalls: [c] }), msg({ role: 'tool', content: `output ${t}\n`.repeat(150), toolCallId: c.id, toolName: c.name }));
  }
  out.push(attached('src/latest.ts'), msg({ role: 'user', content: 'Now fix this file.' }));
  return out;
}

describe('compaction treats attachments as user content', () => {
  it('an emergency drop keeps what was attached to the latest message and every pinned attachment', async () => {
    const messages = session();
    const out = await new EmergencyDrop().apply(messages, ctx({ targetTokens: 500, effectiveWindow: 2_500 }));
    const ids = new Set(out.messages.map((m) => m.id));
    assert.ok(ids.has('att-src/latest.ts'), 'the latest message keeps its attachment');
    assert.ok(ids.has('att-docs/spec.md'), 'a pinned attachment is never dropped');
    assert.ok(!ids.has('att-docs/old.md'), 'an old unpinned attachment can go');
    const latest = out.messages.findIndex((m) => m.id === 'att-src/latest.ts');
    assert.equal(out.messages[latest + 1].content, 'Now fix this file.', 'it stays right before its message');
    assert.deepEqual(validateHistory(out.messages), []);
  });

  it("a checkpoint summary names the files the user attached", async () => {
    const messages = session();
    const out = await new ThresholdSummarization().apply(messages, ctx({ targetTokens: 1_500, effectiveWindow: 6_000 }));
    const summary = out.messages.find((m) => m.kind === 'summary');
    assert.ok(summary, 'a summary was written');
    assert.match(summary!.content, /docs\/old\.md/);
  });

  it("a model's summary that leaves out a path the user attached gets it back, said as attached", () => {
    const messages = [attached('docs/old.md'), attached('docs/spec.md'), attached('src/latest.ts'), msg({ role: 'user', content: 'Implement the spec.' })];
    const text = '## Task\nImplement docs/spec.md (see docs/old.md).\n## Files touched\nnone\n## Commands run\nnone\n## Errors\nnone\n## Decisions\nnone\n## Next step\nstart';
    const checked = checkModelSummary(text, { messages, style: 'checkpoint', maxTokens: 2_000 });
    assert.match(checked.text, /Attached by the user: src\/latest\.ts$/);
    assert.equal(checked.note, "completed: 1 attached path the model's summary left out");
  });
});
