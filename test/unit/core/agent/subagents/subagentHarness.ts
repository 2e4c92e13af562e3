import { getTokenCounter } from '../../../../../src/core/accounting/tokenizer';
import { buildAgent } from '../../../../../src/core/agent/build/buildAgent';
import { DELEGATION, SESSION_TOOLS } from '../../../../../src/core/agent/build/toolSources';
import type { AgentEvent, SubagentProgress } from '../../../../../src/core/agent/events';
import type { SubagentLimits } from '../../../../../src/core/agent/subagents/delegateTool';
import type { NamedAgent } from '../../../../../src/core/agent/subagents/namedAgents';
import type { ToolDefinition } from '../../../../../src/core/model/tool';
import { createOpenAIProvider } from '../../../../../src/core/providers/openai/openai';
import type { ChatProvider, ReasoningRequest } from '../../../../../src/core/providers/types';
import type { InstructionPart } from '../../../../../src/core/prompt/promptSections';
import { ContextSession } from '../../../../../src/core/context/contextSession';
import { withSettings, type ContextSettings } from '../../../../../src/core/settings';
import type { ApprovalAnswer } from '../../../../../src/core/tools/approval';
import { SessionApprovals } from '../../../../../src/core/tools/sessionApprovals';
import { NO_TOOL_CHOICE, offeredByChoice, type ToolChoice } from '../../../../../src/core/tools/toolChoice';
import type { ApprovalRequest, Tool } from '../../../../../src/core/tools/types';
import type { Workspace } from '../../../../../src/core/ports/workspace';
import { NodeWorkspace } from '../../../../../src/node/tools/nodeWorkspace';
import type { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { RecordedRequest } from '../../../../fakes/scriptedServer';
import { tempStore } from '../../../../support/tempStore';
import { TEST_LIMITS } from '../../../../support/toolRegistry';

const ECHO: ToolDefinition = { name: 'echo', description: 'Echo text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, source: 'builtin' };

export const DEFAULT_LIMITS: SubagentLimits = { maxRequests: 30, maxTokens: 1_000_000, maxConcurrent: 3, allowNested: false, maxPerTurn: 10, maxTokensPerTurn: 2_000_000, maxReportLines: 400, maxReportBytes: 16_384 };

/** A rendezvous: `arrive()` resolves once `count` callers have arrived (proves they run at the same time). */
export class Barrier {
  private arrived = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(private readonly count: number) {}
  arrive(): Promise<void> {
    this.arrived++;
    if (this.arrived >= this.count) for (const w of this.waiters.splice(0)) w();
    return this.arrived >= this.count ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

export interface HarnessOptions {
  server?: FakeOpenAIServer;
  /** Another provider than the fake OpenAI server's (an Anthropic fake, say). */
  provider?: ChatProvider;
  /** The parent's model (default test-model). */
  model?: string;
  /** The thinking the parent asks for (the environment hands it to subagents). */
  reasoning?: ReasoningRequest;
  /** The AGENTS.md parts the parent carries (the environment hands them to subagents). */
  instructions?: () => Promise<readonly InstructionPart[]>;
  limits?: Partial<SubagentLimits>;
  /** The subagents' window settings (the parent's are 32K). */
  subSettings?: ContextSettings;
  agents?: NamedAgent[];
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  barrier?: Barrier;
  /** Called each time the `wait` tool starts (it then blocks until the turn is cancelled). */
  onWait?: () => void;
  /** The session's workspace (default: no folders, commands without a sandbox). */
  workspace?: () => Workspace;
  /** More tools the session has (another extension's, say), offered to its subagents as Configure Tools allows. */
  extraTools?: Tool[];
  /** The user's tool choice (Configure Tools); default: no choice made. */
  choice?: ToolChoice;
}

/** A parent agent with the delegate tool, on a real store and a fake OpenAI server on 127.0.0.1. */
export async function subagentHarness(options: HarnessOptions) {
  const env = await tempStore();
  const counter = getTokenCounter();
  const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 });
  const subSettings = options.subSettings ?? settings;
  const parentId = (await env.store.createSession({ title: 'parent' })).id;
  const contextSession = await ContextSession.open({ store: env.store, sessionId: parentId, settings, counter });
  const provider = options.provider ?? createOpenAIProvider({ apiKey: 'sk-test', baseUrl: options.server!.url, retry: { maxAttempts: 1, sleep: async () => undefined } });
  const asked: ApprovalRequest[] = [];
  const approvals = new SessionApprovals({
    policy: () => ({ commands: 'ask', edits: 'ask' }),
    allowedTools: () => [],
    ask: async (request) => (asked.push(request), options.ask ? options.ask(request) : { approved: false }),
  });
  const testTools: Tool[] = [
    { definition: ECHO, approval: 'read', execute: async (args) => ({ output: args.big ? `${args.text}\n`.repeat(Number(args.big)) : String(args.text) }) },
    {
      definition: { ...ECHO, name: 'meet' },
      approval: 'read',
      async execute() {
        await options.barrier?.arrive();
        return { output: 'met' };
      },
    },
    {
      definition: { ...ECHO, name: 'wait' },
      approval: 'read',
      async execute(_args, ctx) {
        options.onWait?.();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return { output: 'cancelled', isError: true };
      },
    },
    {
      definition: { ...ECHO, name: 'run_it' },
      approval: 'command',
      async execute(_args, ctx) {
        await ctx.approve({ title: 'Run the thing' }, 'running the thing');
        return { output: 'ran' };
      },
    },
  ];
  const agent = buildAgent({
    contextSession,
    store: env.store,
    model: { provider, id: options.model ?? 'test-model', maxOutputTokens: options.reasoning ? 4_000 : 1_000, counter, ...(options.reasoning ? { reasoning: options.reasoning } : {}) },
    settings,
    tools: [{ tools: () => [...testTools, ...(options.extraTools ?? [])] }, DELEGATION, SESSION_TOOLS],
    // The user's tool choice (Configure Tools) applies to the parent's tools, so to its subagents'.
    offered: (tool) => offeredByChoice(tool, options.choice ?? NO_TOOL_CHOICE),
    ...(options.instructions ? { context: [{ instructions: options.instructions, sharedWithSubagents: true }] } : {}),
    environment: { workspace: options.workspace ?? (() => new NodeWorkspace({ folders: [], trusted: true })), limits: TEST_LIMITS, approvals },
    subagents: {
      limits: () => ({ ...DEFAULT_LIMITS, ...options.limits }),
      agents: async () => options.agents ?? [],
      modelAllowed: (model) => model === 'test-model' || model === 'test-small',
      openContext: (sessionId) => ContextSession.open({ store: env.store, sessionId, settings: subSettings, counter }),
    },
    loop: { sleep: async () => undefined },
  });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  const progress = () => events.flatMap((e) => (e.type === 'subagent' ? [e.progress] : [])) as SubagentProgress[];
  return { env, contextSession, agent, events, progress, asked };
}

/** The first user message of a request (a subagent's task, or the user's words for the parent). */
export function firstUser(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const user = messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

/** How many tool results a request carries (which step of its agent it is). */
export function toolResults(request: RecordedRequest): number {
  return (request.body.messages as Array<{ role: string }>).filter((m) => m.role === 'tool').length;
}

export function offeredTools(request: RecordedRequest): string[] {
  return ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
}
