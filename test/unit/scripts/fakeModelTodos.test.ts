/** The scripted model's todo, plan and approved-plan scripts, run by the real agent (the one builder) over HTTP. */
import { strict as assert } from 'assert';
import * as path from 'path';
import { getTokenCounter } from '../../../src/core/accounting/tokenizer';
import { buildAgent } from '../../../src/core/agent/build/buildAgent';
import { BUILTIN_TOOLS, SESSION_TOOLS } from '../../../src/core/agent/build/toolSources';
import { ContextSession } from '../../../src/core/context/contextSession';
import { parseTodos, UPDATE_TODOS } from '../../../src/core/plan/todoList';
import { approvedPlanMessage, type AgentMode } from '../../../src/core/plan/planMode';
import { planMessage } from '../../../src/core/model/factories';
import { createOpenAIProvider } from '../../../src/core/providers/openai/openai';
import { withSettings } from '../../../src/core/settings';
import { SessionApprovals } from '../../../src/core/tools/sessionApprovals';
import { NodeWorkspace } from '../../../src/node/tools/nodeWorkspace';
import { sessionPerTest } from '../../support/tempStore';
import { TEST_LIMITS } from '../../support/toolRegistry';

type FakeModel = { url: string; close(): Promise<void> };
// The script is an ES module; esbuild would turn a plain import() into require().
const importModule = new Function('p', 'return import(p)') as (p: string) => Promise<{ startFakeModel(o: object): Promise<FakeModel> }>;

describe('the scripted model: todos and a plan', function () {
  this.timeout(60_000);
  const env = sessionPerTest('fake-todos');
  let server: FakeModel;
  before(async () => {
    const { startFakeModel } = await importModule(path.join(__dirname, '..', '..', '..', 'scripts', 'fake-model.mjs'));
    server = await startFakeModel({ port: 0, delayMs: 0 });
  });
  after(async () => server.close());

  async function agent(mode: AgentMode) {
    const counter = getTokenCounter();
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 });
    const contextSession = await ContextSession.open({ store: env.store(), sessionId: env.sessionId(), settings, counter });
    return buildAgent({
      contextSession,
      store: env.store(),
      model: { provider: createOpenAIProvider({ baseUrl: server.url, retry: { maxAttempts: 1, sleep: async () => undefined } }), id: 'scripted-model', maxOutputTokens: 1_000, counter },
      settings,
      tools: [BUILTIN_TOOLS, SESSION_TOOLS],
      mode: () => mode,
      environment: {
        workspace: () => new NodeWorkspace({ folders: [process.cwd()], trusted: true }),
        approvals: new SessionApprovals({ policy: () => ({ commands: 'ask', edits: 'ask' }), allowedTools: () => [], ask: async () => ({ approved: false }) }),
        limits: TEST_LIMITS,
      },
    });
  }

  it('"todo" keeps a three-step list and ticks the steps off one update at a time', async () => {
    const a = await agent('act');
    assert.equal(await a.send('todo'), 'end_turn');
    const lists = a.contextSession.messages.filter((m) => m.toolName === UPDATE_TODOS).map((m) => parseTodos(m.content)!.map((i) => i.status));
    assert.deepEqual(lists, [
      ['in_progress', 'pending', 'pending'],
      ['done', 'in_progress', 'pending'],
      ['done', 'done', 'in_progress'],
    ]);
    assert.match(a.contextSession.messages.at(-1)!.content, /All 3 steps are done/);
  });

  it('"plan" in plan mode looks around with a read-only tool and ends with a numbered plan', async () => {
    const a = await agent('plan');
    assert.equal(await a.send('plan the fix'), 'end_turn');
    const calls = a.contextSession.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.name);
    assert.deepEqual(calls, ['list_files']);
    assert.match(a.contextSession.messages.at(-1)!.content, /Here is my plan[\s\S]*1\. Read the files/);
  });

  it('an approved plan (the plan item, then the approval) is carried out from the plan\'s first step, as edited', async () => {
    const a = await agent('act');
    const plan = planMessage('1. Read only the parser.\n2. Fix it.', 'approved', { planOf: 'm-plan' });
    assert.equal(await a.send(approvedPlanMessage(true), undefined, [plan]), 'end_turn');
    assert.match(a.contextSession.messages.at(-1)!.content, /Carrying out the plan you edited and approved, from its first step: 1\. Read only the parser\./);
  });
});
