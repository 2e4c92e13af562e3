/**
 * PreCompact hooks around a real compaction: awaited before the summary is written (a real hook
 * process, a real session on disk), their instructions on the summary request, their time limit.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import type { AgentEvent } from '../../../../src/core/agent/events';
import type { SummaryRequest } from '../../../../src/core/compaction/types';
import { ContextSession } from '../../../../src/core/context/contextSession';
import type { HookEntry } from '../../../../src/core/hooks/hookConfig';
import { HookContext } from '../../../../src/core/hooks/hookContext';
import { hookGate } from '../../../../src/core/hooks/hookGate';
import { Hooks } from '../../../../src/core/hooks/hooks';
import { withSettings } from '../../../../src/core/settings';
import { NodeHookProcess } from '../../../../src/node/hooks/nodeHookProcess';
import { msg, scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');

describe('PreCompact hooks', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-precompact-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A session long enough to summarize, an agent around it with the hooks, and the summary requests made. */
  async function setUp(entries: HookEntry[]) {
    const env = await tempStore();
    const requests: Array<SummaryRequest & { markerThere: boolean }> = [];
    const summarizer = {
      name: 'capturing',
      summarize: async (request: SummaryRequest) => {
        requests.push({ ...request, markerThere: existsSync(join(dir, 'marker')) });
        return 'Summary: the parser work so far.';
      },
    };
    const sessionId = (await env.store.createSession({ title: 'precompact' })).id;
    const contextSession = await ContextSession.open({ store: env.store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter, summarizer });
    await contextSession.append(msg({ role: 'user', content: 'Make the parser tests pass.' }));
    for (const turn of scriptedTurns(25, 5, 1000)) {
      await contextSession.append(msg({ role: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call) }));
      for (const c of turn.calls) await contextSession.recordToolResult(c.call, c.output);
    }
    const hooks = new Hooks({ hooks: () => entries, trusted: () => true, process: new NodeHookProcess(), sessionId: () => sessionId, cwd: () => dir, timeoutMs: 2_000 });
    const agent = new AgentSession({
      contextSession,
      provider: { stream: () => { throw new Error('no request is sent in this test'); } } as never,
      model: 'm',
      maxOutputTokens: 1_000,
      prompt: { prepare: () => { throw new Error('not used'); } },
      tools: { run: () => { throw new Error('not used'); } },
      gate: hookGate(hooks, new HookContext(), () => true),
    });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    return { env, contextSession, agent, requests, events };
  }

  function script(name: string, text: string): string {
    writeFileSync(join(dir, name), text);
    return `node '${join(dir, name)}'`;
  }

  it('is awaited before the summary is written, and its customInstructions and additionalContext reach the summary request', async () => {
    const command = script(
      'pre.js',
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const e=JSON.parse(s);require('fs').writeFileSync('marker',e.trigger+'|'+e.custom_instructions);` +
        `console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreCompact',customInstructions:'Keep the list of failing tests verbatim.',additionalContext:'Ticket: PARSE-12'}}))})`,
    );
    const { env, contextSession, agent, requests } = await setUp([{ event: 'PreCompact', command, origin: 'user' }]);
    try {
      const done = await contextSession.compact({ trigger: 'manual', focus: 'the parser' });
      assert.equal(done.status, 'complete');
      assert.ok(requests.length > 0, 'the compaction wrote a summary');
      assert.ok(requests.every((r) => r.markerThere), 'the hook had finished before the first summary was asked for');
      assert.match(requests[0]!.instructions ?? '', /Keep the list of failing tests verbatim\.[\s\S]*Ticket: PARSE-12/);
      assert.equal(requests[0]!.focus, 'the parser', "the user's focus stays the focus");
    } finally {
      agent.dispose();
      await env.dispose();
    }
  });

  it('a preview runs no hook; a hook past its time limit is stopped, reported, and the compaction goes on', async () => {
    const command = script('stuck.js', `require('fs').writeFileSync('marker','x');setInterval(()=>{},1000);`);
    const { env, contextSession, agent, requests, events } = await setUp([{ event: 'PreCompact', command, origin: 'user', timeoutSeconds: 1 }]);
    try {
      await contextSession.compact({ trigger: 'manual', dryRun: true });
      assert.equal(existsSync(join(dir, 'marker')), false, 'a preview changes nothing and runs no hook');
      const done = await contextSession.compact({ trigger: 'manual' });
      assert.equal(done.status, 'complete');
      assert.ok(events.some((e) => e.type === 'notice' && /did not finish in time/.test(e.message)), JSON.stringify(events.filter((e) => e.type === 'notice')));
      assert.equal(requests[0]!.instructions, undefined);
    } finally {
      agent.dispose();
      await env.dispose();
    }
  });
});
