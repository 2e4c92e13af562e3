import type { ToolCall } from '../model/message';
import type { ToolDefinition } from '../model/tool';
import type { SessionStore } from '../ports/sessionStore';
import type { ContextSession } from '../session/contextSession';
import { parseToolArguments } from '../tools/args';
import { readResult, READ_RESULT_TOOL } from '../toolOutput/readResult';
import type { ToolRunner, ToolRunOptions, ToolRunResult } from './toolRunner';

export const COMPACT_CONTEXT_TOOL: ToolDefinition = {
  name: 'compact_context',
  description: 'Free space in the context window: older tool results are archived and older messages summarized (nothing is lost; archived outputs stay readable with read_result). Use before large operations when the context is nearly full.',
  inputSchema: { type: 'object', properties: { focus: { type: 'string', description: 'What the summary should keep in mind.' } } },
  source: 'builtin',
  origin: 'session',
};

/**
 * The tools that act on the session itself (read_result, compact_context). Tools that touch the
 * workspace come from the VS Code layer and are chained in front of these.
 */
export class SessionToolRunner implements ToolRunner {
  constructor(
    private readonly store: SessionStore,
    private readonly manager: () => ContextSession,
    private readonly fixed: () => { system: number; skills: number; tools: number },
    private readonly next?: ToolRunner,
  ) {}

  static definitions(): ToolDefinition[] {
    return [READ_RESULT_TOOL, COMPACT_CONTEXT_TOOL];
  }

  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult> {
    if (call.name !== 'read_result' && call.name !== 'compact_context') {
      if (this.next) return this.next.run(call, options);
      return { output: `Unknown tool "${call.name}".`, isError: true };
    }
    let args: Record<string, unknown>;
    try {
      args = parseToolArguments(call.arguments);
    } catch (error) {
      return { output: `Invalid arguments for ${call.name}: ${(error as Error).message}`, isError: true };
    }
    try {
      if (call.name === 'read_result') {
        const ref = args.ref_id;
        if (typeof ref !== 'string') return { output: 'read_result needs ref_id (a string).', isError: true };
        return { output: await readResult(this.store, { ref_id: ref, offset: typeof args.offset === 'number' ? args.offset : undefined, limit: typeof args.limit === 'number' ? args.limit : undefined }) };
      }
      const focus = typeof args.focus === 'string' ? args.focus : undefined;
      // The call's own group is still open; compaction keeps it whole (it is the latest unit).
      const result = await this.manager().compact({ trigger: 'tool', focus, fixed: this.fixed() });
      if (result.status === 'error') return { output: `Compaction failed: ${result.error}`, isError: true };
      if (result.status === 'skipped') return { output: `Nothing to compact: the context holds ${result.tokensBefore} tokens.` };
      return { output: `Compacted: ${result.tokensBefore} → ${result.tokensAfter} tokens (${result.strategiesRun.join(', ')}). Archived outputs stay readable with read_result.` };
    } catch (error) {
      return { output: `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}
