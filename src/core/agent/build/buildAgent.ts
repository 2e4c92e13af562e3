import type { ContextSession } from '../../context/contextSession';
import type { InstructionPart } from '../../prompt/promptSections';
import { SessionPrompt } from '../../prompt/sessionPrompt';
import type { Skill } from '../../prompt/skills';
import { HookContext } from '../../hooks/hookContext';
import { HookedTools, hookAllowedApprovals } from '../../hooks/hookedTools';
import { hookGate } from '../../hooks/hookGate';
import { PLAN_MODE_INSTRUCTIONS, toolsForMode } from '../../plan/planMode';
import { ToolRegistry } from '../../tools/registry';
import { TurnImages } from '../turnImages';
import { AgentSession } from '../agentSession';
import { DelegateTool, type SubagentEnvironment, type SubagentStart } from '../subagents/delegateTool';
import { askedBySubagent } from '../subagents/subagentApprovals';
import { subagentToolSubset } from '../subagents/subagentTools';
import type { AgentBuild, AgentModel, ContextContributor, ToolEnvironment, ToolSource } from './agentBuild';
import { listTools } from './toolSources';

/**
 * The one way to make an agent: the chat's, `tally exec`'s and every subagent's. It wires the
 * prompt (base instructions, the contributors' parts and skills, the tools), the tool registry
 * (the sources in order, the user's choice, the environment's approvals) and the delegate tool,
 * then attaches the observers. See docs/ARCHITECTURE.md, "One way to build an agent".
 */
export function buildAgent(build: AgentBuild): AgentSession {
  const delegate = build.subagents ? new DelegateTool(subagentEnvironment(build)) : undefined;
  const scope = { store: build.store, session: build.contextSession, delegate };
  const agent = assemble({
    session: build.contextSession,
    model: build.model,
    build,
    sources: build.tools.map((source) => ({ tools: () => listTools([source], scope, build.offered), note: source.note })),
    context: [...(build.context ?? []), planModeContext(build)],
    environment: build.environment,
    delegate,
    maxSteps: build.maxSteps,
    onPrompt: build.onPrompt,
    turnHooks: true,
  });
  for (const observer of build.observers ?? []) agent.on(observer);
  return agent;
}

interface Assembly {
  session: ContextSession;
  model: AgentModel;
  build: AgentBuild;
  /** Bound to the agent's scope already. */
  sources: ReadonlyArray<{ tools(): ReturnType<ToolSource['tools']>; note?: ToolSource['note'] }>;
  context: readonly ContextContributor[];
  environment: ToolEnvironment;
  /** The agent's own delegate tool: its named agents are read again before each prompt. */
  delegate?: DelegateTool;
  maxSteps?: number;
  onPrompt?: (prompt: SessionPrompt) => void;
  /** Whether the build's hooks run around this agent's turns (not a subagent's: it has no prompts of the user's). */
  turnHooks?: boolean;
}

/** In plan mode the prompt says to read, search and end with a plan (a subagent's too: it works for the plan). */
function planModeContext(build: AgentBuild): ContextContributor {
  return { instructions: async () => (build.mode?.() === 'plan' ? [PLAN_MODE_INSTRUCTIONS] : []) };
}

function assemble(a: Assembly): AgentSession {
  const { model, environment } = a;
  const hooks = a.build.hooks;
  const hookContext = new HookContext();
  const allowedByHook = new Set<string>();
  const mode = () => a.build.mode?.() ?? 'act';
  const registry: ToolRegistry = new ToolRegistry({
    // Plan mode withholds every tool not declared a read, from every source (so from subagents too).
    sources: [() => prompt.tools(), ...a.sources.map((source) => () => toolsForMode(source.tools(), mode()))],
    workspace: environment.workspace,
    approvals: hooks ? hookAllowedApprovals(environment.approvals, allowedByHook) : environment.approvals,
    limits: environment.limits,
    ...(environment.web ? { web: environment.web } : {}),
    onCall: (name) => prompt.noteToolUse(name),
    onPathResolved: environment.onPathResolved,
  });
  const skills = contributedSkills(a.context);
  const prompt: SessionPrompt = new SessionPrompt({
    counter: model.counter,
    settings: a.build.settings,
    tools: () => registry.definitions(),
    instructions: async () => [...(await Promise.all(a.context.map((c) => c.instructions?.() ?? []))).flat(), ...hookContext.parts()],
    skills: skills.list,
    skillText: skills.text,
    toolSearchNote: () => a.sources.map((s) => s.note?.()).filter(Boolean).join('\n') || undefined,
    ...(model.toolText ? { toolText: model.toolText } : {}),
  });
  a.onPrompt?.(prompt);
  return new AgentSession({
    contextSession: a.session,
    provider: model.provider,
    model: model.id,
    maxOutputTokens: model.maxOutputTokens,
    ...(model.reasoning ? { reasoning: model.reasoning } : {}),
    prompt: {
      prepare: async (room) => {
        await a.delegate?.refreshAgents();
        return prompt.prepare(room);
      },
    },
    tools: hooks ? new HookedTools(registry, { hooks, context: hookContext, approvals: environment.approvals, workspace: environment.workspace, allowed: allowedByHook }) : registry,
    ...(hooks && a.turnHooks ? { gate: hookGate(hooks, hookContext, () => a.session.messages.length > 0) } : {}),
    ...(a.maxSteps !== undefined ? { maxSteps: a.maxSteps } : {}),
    images: new TurnImages({ providerId: model.provider.id, model: model.id, store: a.build.store, contextSession: a.session, override: model.images }),
    ...a.build.loop,
  });
}

/** The contributors' skills, each read through the contributor that listed it. */
function contributedSkills(context: readonly ContextContributor[]) {
  const owner = new Map<Skill, ContextContributor>();
  return {
    list: async (): Promise<Skill[]> => {
      const lists = await Promise.all(context.map(async (c) => ({ c, skills: (await c.skills?.()) ?? [] })));
      owner.clear();
      for (const { c, skills } of lists) for (const skill of skills) owner.set(skill, c);
      return lists.flatMap((l) => [...l.skills]);
    },
    text: async (skill: Skill): Promise<string> => {
      const read = owner.get(skill)?.skillText;
      if (!read) throw new Error('skills cannot be read in this session');
      return read(skill);
    },
  };
}

/** What the delegate tool needs of its parent; each subagent's agent is built here from the parent's build. */
function subagentEnvironment(parent: AgentBuild): SubagentEnvironment {
  const setup = parent.subagents!;
  return {
    store: parent.store,
    parentSessionId: () => parent.contextSession.sessionId,
    model: parent.model.id,
    modelAllowed: (model) => setup.modelAllowed(model),
    openContext: (sessionId) => setup.openContext(sessionId),
    agents: () => setup.agents(),
    limits: () => setup.limits(),
    start: (run) => startSubagent(parent, run),
  };
}

/**
 * A subagent's agent: the parent's provider, workspace, limits and approvals (its cards say who
 * asks); of the parent's tools only the subset `subagentToolSubset` allows, bound to the
 * subagent's own session, then its own delegate tool when nesting is allowed; its role, then the
 * parent's contributors that are shared with subagents; the parent's thinking on the parent's model.
 */
function startSubagent(parent: AgentBuild, run: SubagentStart): AgentSession {
  const scope = { store: parent.store, session: run.session };
  const role: InstructionPart = run.role;
  const sameModel = !run.agent?.model || run.agent.model === parent.model.id;
  const { reasoning, ...model } = parent.model;
  return assemble({
    session: run.session,
    model: { ...model, id: run.agent?.model ?? parent.model.id, ...(sameModel && reasoning ? { reasoning } : {}) },
    build: parent,
    sources: [
      { tools: () => subagentToolSubset(listTools(parent.tools, scope, parent.offered), run.agent), note: () => parent.tools.map((s) => s.note?.()).filter(Boolean).join('\n') || undefined },
      { tools: () => (run.nested ? [run.nested] : []) },
    ],
    context: [{ instructions: async () => [role] }, ...(parent.context ?? []).filter((c) => c.sharedWithSubagents), planModeContext(parent)],
    environment: { workspace: parent.environment.workspace, limits: parent.environment.limits, approvals: askedBySubagent(parent.environment.approvals, run.asker), ...(parent.environment.web ? { web: parent.environment.web } : {}) },
    delegate: run.nested,
    maxSteps: run.maxSteps,
  });
}
