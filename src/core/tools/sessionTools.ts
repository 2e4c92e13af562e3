import type { ToolDefinition } from '../model/tool';
import type { SessionStore } from '../ports/sessionStore';
import type { ContextSession } from '../context/contextSession';
import { UPDATE_TODOS_TOOL, updateTodosTool } from '../plan/updateTodosTool';
import { readResult, READ_RESULT_TOOL } from '../toolOutput/readResult';
import { storedImageOutput } from '../images/storedImage';
import type { Tool } from './types';

export const COMPACT_CONTEXT_TOOL: ToolDefinition = {
  name: 'compact_context',
  description: 'Free space in the context window: older tool results are archived and older messages summarized (nothing is lost; archived outputs stay readable with read_result). Use before large operations when the context is nearly full.',
  inputSchema: { type: 'object', properties: { focus: { type: 'string', description: 'What the summary should keep in mind.' } } },
  source: 'builtin',
  origin: 'session',
};

/** What `sessionTools` offers, without a session: Configure Tools lists them as always offered. */
export const SESSION_TOOL_DEFINITIONS: readonly ToolDefinition[] = [READ_RESULT_TOOL, COMPACT_CONTEXT_TOOL, UPDATE_TODOS_TOOL];

/** The tools that act on the session itself: read an offloaded result again, compact the context, keep the todo list. */
export function sessionTools(store: SessionStore, session: () => ContextSession): Tool[] {
  return [
    {
      definition: READ_RESULT_TOOL,
      approval: 'read',
      async execute(args) {
        const ref = args.ref_id;
        if (typeof ref !== 'string') return { output: 'read_result needs ref_id (a string).', isError: true };
        // Only the results of the session this agent works in: never another workspace's.
        const image = await storedImageOutput(store, session().sessionId, ref);
        if (image) return image;
        return { output: await readResult(store, session().sessionId, { ref_id: ref, offset: typeof args.offset === 'number' ? args.offset : undefined, limit: typeof args.limit === 'number' ? args.limit : undefined }) };
      },
    },
    {
      definition: COMPACT_CONTEXT_TOOL,
      approval: 'read',
      async execute(args) {
        const focus = typeof args.focus === 'string' ? args.focus : undefined;
        // The call's own group is still open; compaction keeps it whole (it is the latest unit).
        const result = await session().compact({ trigger: 'tool', focus });
        if (result.status === 'error') return { output: `Compaction failed: ${result.error}`, isError: true };
        if (result.status === 'skipped') return { output: `Nothing to compact: the context holds ${result.tokensBefore} tokens.` };
        return { output: `Compacted: ${result.tokensBefore} → ${result.tokensAfter} tokens (${result.strategies.join(', ')}). Archived outputs stay readable with read_result.` };
      },
    },
    updateTodosTool(),
  ];
}
