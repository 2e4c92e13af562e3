import type { ToolDefinition } from '../../model/tool';
import type { SessionStore } from '../../ports/sessionStore';
import type { InstructionPart } from '../../prompt/promptSections';
import type { ContextSession } from '../../context/contextSession';
import { ToolInputError, type Tool, type ToolContext, type ToolOutput } from '../../tools/types';
import type { AgentSession } from '../agentSession';
import { ConcurrencyGate } from './concurrencyGate';
import { agentsIndex, type NamedAgent } from './namedAgents';
import { runSubagent } from './runSubagent';
import type { SubagentAsker } from './subagentApprovals';
import { TurnSpends, type TurnSubagentSpend } from './turnBudget';

export const DELEGATE_TOOL_NAME = 'delegate';

/** What bounds subagents; read from the user's own settings. */
export interface SubagentLimits {
  /** Requests one subagent may send before it stops and reports. */
  maxRequests: number;
  /** Input plus output tokens one subagent may use before it stops and reports. */
  maxTokens: number;
  /** Subagents running at once (parallel delegate calls beyond it wait for a slot). */
  maxConcurrent: number;
  /** Whether a subagent may start subagents of its own (one level more). */
  allowNested: boolean;
  /** Subagents one user turn may start (nested ones included) before the user is asked to let it start more. */
  maxPerTurn: number;
  /** Tokens one user turn's subagents may use together before the user is asked (a running one stops there). */
  maxTokensPerTurn: number;
  /** The report (the parent's tool result) is cut to these, head and tail kept. */
  maxReportLines: number;
  maxReportBytes: number;
}

/** What starting one subagent's agent takes: its session, its agent, and what it may do. */
export interface SubagentStart {
  /** The subagent's own working context. */
  session: ContextSession;
  agent?: NamedAgent;
  /** Its role, the first part of its instructions. */
  role: InstructionPart;
  /** Who asks on its approval cards. */
  asker: SubagentAsker;
  /** Its own delegate tool, when nesting is allowed. */
  nested?: DelegateTool;
  /** Requests it may send before it stops. */
  maxSteps: number;
}

/** Everything a subagent needs from the session that starts it. */
export interface SubagentEnvironment {
  store: SessionStore;
  parentSessionId: () => string;
  /** The parent's model, used unless a named agent names another the user configured. */
  model: string;
  /** Whether a named agent's `model` is one of the configured provider's that the user chose. */
  modelAllowed(model: string): boolean;
  /** Opens the subagent's own context session (same window rules and summarizer as the parent's). */
  openContext(sessionId: string): Promise<ContextSession>;
  /** The named agents known now (none from an untrusted workspace). */
  agents(): Promise<NamedAgent[]>;
  limits(): SubagentLimits;
  /** Builds the subagent's agent from its parent's (core/agent/build/buildAgent.ts): the same provider, workspace and approvals, a subset of the parent's tools. */
  start(run: SubagentStart): AgentSession;
}

const BASE_DESCRIPTION =
  'Hand a self-contained task (a search, an investigation, a side question) to a subagent with a context window of its own. ' +
  'It works with read-only tools unless its agent allows more, and returns a short report, which is all you see of its work. ' +
  'Give it everything it needs in `task`: it does not see this conversation. Several delegate calls in one message run in parallel.';

/** The delegation tool as the model sees it; `index` lists the named agents it can run. */
export function delegateDefinition(index = '', names: readonly string[] = []): ToolDefinition {
  return {
    name: DELEGATE_TOOL_NAME,
    description: index ? `${BASE_DESCRIPTION}\n${index}` : BASE_DESCRIPTION,
    inputSchema: {
      type: 'object',
      properties: {
        task: { type: 'string', description: 'The whole task: what to find or do, and what the report should say.' },
        ...(names.length ? { agent: { type: 'string', enum: [...names], description: 'A named agent to run the task.' } } : {}),
      },
      required: ['task'],
    },
    source: 'builtin',
    origin: 'session',
  };
}

/**
 * The delegation tool: each call starts a subagent, a session of its own run by the same agent
 * loop, and returns its bounded report. One instance serves one parent agent (its gate bounds how
 * many of that parent's subagents run at once); `depth` is 0 for the user's agent.
 */
export class DelegateTool implements Tool {
  readonly approval = 'read' as const;
  readonly concurrent = true;
  private known: NamedAgent[] = [];
  private described?: { index: string; definition: ToolDefinition };
  private readonly gate: ConcurrencyGate;
  private readonly spends: TurnSpends;

  /** `turnSpend`: for a subagent's own delegate tool, the spend of the user's turn it belongs to. */
  constructor(private readonly env: SubagentEnvironment, readonly depth = 0, private readonly turnSpend?: TurnSubagentSpend) {
    this.gate = new ConcurrencyGate(() => env.limits().maxConcurrent);
    this.spends = new TurnSpends(() => env.limits());
  }

  /** Reads the named agents again (before each prompt is built: their files change). */
  async refreshAgents(): Promise<void> {
    this.known = await this.env.agents();
  }

  /** The definition, with the named agents' descriptions; the same object while they do not change (its tokens are counted once). */
  get definition(): ToolDefinition {
    const index = agentsIndex(this.known);
    if (this.described?.index !== index) {
      const names = this.known.map((a) => a.name);
      this.described = { index, definition: delegateDefinition(index, names) };
    }
    return this.described.definition;
  }

  /** Whether subagents started by this tool get a delegate tool of their own. */
  nestedAllowed(): boolean {
    return this.env.limits().allowNested && this.depth < 1;
  }

  async execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const task = typeof args.task === 'string' ? args.task.trim() : '';
    if (!task) throw new ToolInputError('needs `task`: the whole task for the subagent, as text.');
    let agent: NamedAgent | undefined;
    if (args.agent !== undefined) {
      if (typeof args.agent !== 'string') throw new ToolInputError('`agent` must be the name of a named agent.');
      agent = (this.known.length ? this.known : await this.env.agents()).find((a) => a.name === args.agent);
      if (!agent) throw new ToolInputError(`there is no agent named "${args.agent}"${this.known.length ? ` (known: ${this.known.map((a) => a.name).join(', ')})` : ''}.`);
      if (agent.model && !this.env.modelAllowed(agent.model)) {
        throw new ToolInputError(`the agent "${agent.name}" asks for the model "${agent.model}", which is not a model the user configured; it did not run.`);
      }
    }
    const turn = this.turnSpend ?? this.spends.of(ctx.signal);
    let release: () => void;
    try {
      release = await this.gate.acquire(ctx.signal);
    } catch {
      return { output: 'The turn was cancelled before the subagent started.', isError: true };
    }
    try {
      // Admitted once it may run, so the tokens spent by the subagents before it count.
      await turn.admit(ctx);
      const nested = this.nestedAllowed() ? (sessionId: string) => new DelegateTool({ ...this.env, parentSessionId: () => sessionId }, this.depth + 1, turn) : undefined;
      return await runSubagent({ env: this.env, task, agent, ctx, nested, turn });
    } finally {
      release();
    }
  }
}
