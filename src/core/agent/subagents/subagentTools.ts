import type { Tool } from '../../tools/types';
import type { NamedAgent } from './namedAgents';

/**
 * The tools a subagent may use, out of the tools its parent has now (so never one the user does not
 * offer the parent): the read-only ones, or the ones its named agent lists (which keep their
 * approvals). Never a tool that runs alongside others (the parent's delegate tool): a subagent
 * delegates only through a delegate tool of its own, when nesting is allowed.
 */
export function subagentToolSubset(parentTools: readonly Tool[], agent: NamedAgent | undefined): Tool[] {
  const chosen = agent?.tools ? parentTools.filter((t) => agent.tools!.includes(t.definition.name)) : parentTools.filter((t) => t.approval === 'read');
  return chosen.filter((t) => !t.concurrent);
}
