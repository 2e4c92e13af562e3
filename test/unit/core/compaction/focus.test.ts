import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { EmergencyDrop } from '../../../../src/core/compaction/strategies/emergencyDrop';
import type { StrategyContext } from '../../../../src/core/compaction/types';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { call, msg, scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FAILING = 'FAILED tests/test_parser.py::test_empty - AssertionError: expected None, got IndexError\n1 failed, 41 passed';

describe('the focus of a manual compaction', function () {
  this.timeout(60_000);

  async function session() {
    const env = await tempStore();
    const sessionId = (await env.store.createSession({ title: 'focus' })).id;
    const session = await ContextSession.open({ store: env.store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter });
    await session.append(msg({ role: 'user', content: 'Make the parser tests pass.' }));
    const test = call('run_command', { command: 'pytest tests/test_parser.py' });
    await session.append(msg({ role: 'assistant', content: 'Running the tests.', toolCalls: [test] }));
    const failing = await session.recordToolResult(test, `${'collecting ...\n'.repeat(300)}${FAILING}`, { isError: true });
    for (const turn of scriptedTurns(25, 5, 1000)) {
      await session.append(msg({ role: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call) }));
      for (const c of turn.calls) await session.recordToolResult(c.call, c.output.replace(/Error: .*/g, 'done'));
    }
    // A newer failure, so the matching one is not simply the newest failing output (always kept).
    const build = call('run_command', { command: 'make build' });
    await session.append(msg({ role: 'assistant', content: 'Building.', toolCalls: [build] }));
    await session.recordToolResult(build, 'compile error: missing semicolon in src/app.c', { isError: true });
    return { env, contextSession: session, failing };
  }

  it('the preview shows matching items surviving, and the compaction keeps them', async () => {
    const { env, contextSession, failing } = await session();
    try {
      const kept = (messages: readonly Message[]) => messages.some((m) => m.kind === 'tool_result' && m.content === failing.content);
      const unfocused = await contextSession.compact({ trigger: 'manual', dryRun: true });
      assert.equal(unfocused.status, 'complete');
      assert.ok(!kept(unfocused.messages), 'without a focus the old failing output is compacted (the comparison is real)');

      const preview = await contextSession.compact({ trigger: 'manual', dryRun: true, focus: 'keep the failing test output' });
      assert.equal(preview.dryRun, true);
      assert.ok(preview.tokensAfter < preview.tokensBefore, 'it still frees space');
      assert.ok(kept(preview.messages), 'the preview keeps the failing test output whole');
      assert.ok(!preview.removed.some((r) => r.messageId === failing.id));

      const done = await contextSession.compact({ trigger: 'manual', focus: 'keep the failing test output' });
      assert.ok(kept(done.messages) && kept(contextSession.messages), 'the compaction kept it');
      assert.deepEqual(done.strategies, preview.strategies);
    } finally {
      await env.dispose();
    }
  });

  it('matches by tool name and by path too', async () => {
    const { env, contextSession, failing } = await session();
    try {
      for (const focus of ['run_command', 'tests/test_parser.py']) {
        const preview = await contextSession.compact({ trigger: 'manual', dryRun: true, focus });
        assert.ok(preview.messages.some((m) => m.id === failing.id), `focus "${focus}" keeps the item`);
      }
    } finally {
      await env.dispose();
    }
  });

  it('emergency drop removes a matching item only when nothing else fits the hard limit, and says so', async () => {
    const big = (n: number) => 'x '.repeat(n);
    const t = call('run_command', { command: 'pytest' });
    const other = call('read_file', { path: 'src/a.py' });
    const messages: Message[] = [
      msg({ role: 'user', content: 'Fix it.' }),
      msg({ role: 'assistant', content: '', toolCalls: [t] }),
      msg({ role: 'tool', toolCallId: t.id, toolName: 'run_command', content: `${big(3_000)}\n${FAILING}` }),
      msg({ role: 'assistant', content: '', toolCalls: [other] }),
      msg({ role: 'tool', toolCallId: other.id, toolName: 'read_file', content: big(1_000) }),
      msg({ role: 'assistant', content: 'Next.' }),
    ];
    const ctx = (effectiveWindow: number, focus?: string): StrategyContext => ({
      settings: withSettings({}), effectiveWindow, fixedTokens: 0, targetTokens: Math.floor(effectiveWindow / 2), trigger: 'manual', focus, dryRun: true,
      countTokens: (m) => counter.count(m.content) + 4, summarizer: { name: 'none', summarize: async () => '' },
      offload: async () => 'r_test', newId: () => `n${Math.random()}`, now: () => 0, progress: () => undefined,
    });
    const fits = await new EmergencyDrop().apply(messages, ctx(6_000, 'failing test'));
    assert.ok(fits.messages.some((m) => m.content.includes(FAILING)), 'room was made from other items');
    assert.ok(!fits.messages.some((m) => /matching the requested focus/.test(m.content)));
    const tooSmall = await new EmergencyDrop().apply(messages, ctx(1_500, 'failing test'));
    assert.ok(!tooSmall.messages.some((m) => m.content.includes(FAILING)), 'nothing else could fit');
    assert.ok(tooSmall.messages.some((m) => /1 item matching the requested focus/.test(m.content)), 'the marker says so');
  });
});
