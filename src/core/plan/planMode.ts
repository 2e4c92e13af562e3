import type { InstructionPart } from '../prompt/promptSections';
import type { Tool } from '../tools/types';

/** How an agent works: `plan` reads and searches only and ends its turn with a plan; `act` as usual. */
export type AgentMode = 'plan' | 'act';

/**
 * Whether a tool may run in plan mode, by what it declares: only tools gated as reads (the
 * workspace reads and searches, the session's own tools, delegation to read-only subagents).
 * Edits, commands and every tool of another extension or an MCP server that is not declared
 * read-only are withheld: not offered, and a call to one finds no such tool.
 */
export function allowedInPlanMode(tool: Tool): boolean {
  return tool.approval === 'read';
}

/** The tools an agent has in a mode. */
export function toolsForMode(tools: readonly Tool[], mode: AgentMode): Tool[] {
  return mode === 'plan' ? tools.filter(allowedInPlanMode) : [...tools];
}

/** What the prompt says in plan mode: read and search only, then end the turn with the plan. */
export const PLAN_MODE_INSTRUCTIONS: InstructionPart = {
  path: 'plan-mode',
  label: 'Plan mode',
  // After the conversation: switching the mode leaves the cached system prompt as it was.
  followsActiveFile: true,
  because: 'the user switched plan mode on',
  text: [
    'You are in plan mode. Read and search to understand the task; do not change anything: no edits and no commands (those tools are not offered now).',
    'End your turn with a plan the user will review: a short numbered list of concrete steps (which files change and how, what you will run to check the work), and any question you need answered first.',
    'The user may edit the plan, approve it (you then carry it out with all tools) or discard it.',
  ].join('\n'),
};

/** The user's message of the turn that carries out an approved plan: the plan itself is the item right before it. */
export function approvedPlanMessage(edited: boolean): string {
  return `I ${edited ? 'edited and approved' : 'approved'} the plan above. Carry it out now.`;
}
