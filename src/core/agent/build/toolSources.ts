import type { ContextSession } from '../../context/contextSession';
import type { ToolDefinition } from '../../model/tool';
import { builtinTools } from '../../tools/builtin';
import { sessionTools } from '../../tools/sessionTools';
import type { Tool } from '../../tools/types';
import { fetchUrlTool } from '../../tools/web/fetchUrl';
import { delegateDefinition } from '../subagents/delegateTool';
import type { ToolScope, ToolSource } from './agentBuild';

/** The workspace tools: read, list, search, run, write, edit. */
export const BUILTIN_TOOLS: ToolSource = { tools: () => builtinTools(), listed: () => builtinTools().map((t) => t.definition) };

const sessionToolsOf = new WeakMap<ContextSession, Tool[]>();

/** The tools that act on the session they serve: read_result and compact_context. */
export const SESSION_TOOLS: ToolSource = {
  tools: ({ store, session }) => {
    let tools = sessionToolsOf.get(session);
    if (!tools) sessionToolsOf.set(session, (tools = sessionTools(store, () => session)));
    return tools;
  },
};

/** The delegate tool, in this place of the tool list, when the agent may start subagents (`AgentBuild.subagents`). */
export const DELEGATION: ToolSource = { tools: ({ delegate }) => (delegate ? [delegate] : []), listed: () => [delegateDefinition()] };

/**
 * fetch_url, which reaches the web the environment gives (`ToolEnvironment.web`). Subagents get it
 * only when their named agent lists it: a fetch sends what the model chose out of the machine, so
 * it stays with the agent the user watches unless the user named it for a subagent.
 */
export const WEB_TOOLS: ToolSource = { tools: () => [fetchUrlTool], listed: () => [fetchUrlTool.definition] };

/** Every source's tools now, in order, without those the user does not offer. */
export function listTools(sources: readonly ToolSource[], scope: ToolScope, offered?: (tool: ToolDefinition) => boolean): Tool[] {
  const tools = sources.flatMap((source) => source.tools(scope));
  return offered ? tools.filter((tool) => offered(tool.definition)) : tools;
}
