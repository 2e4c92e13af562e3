import type { Message } from '../model/message';
import { parseArguments } from '../compaction/sessionFacts';
import { attachmentHeading } from '../toolOutput/attachmentContent';

/** Workspace-relative form of a path as a tool call or an attachment names it: `/`-separated, no leading `./`. */
export function normalizeRelativePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
}

/**
 * Files whose whole text the model has in its working context now: read whole by read_file (no
 * line range) with the result still there as it came (not archived, summarized or removed), or
 * attached whole earlier and still there. A path the agent gave absolute is taken as given.
 */
export function filesInContext(working: readonly Message[]): Set<string> {
  const wholeReads = new Map<string, string>();
  for (const m of working) {
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls ?? []) {
      if (call.name !== 'read_file') continue;
      const args = parseArguments(call);
      if (typeof args.path !== 'string' || args.start_line !== undefined || args.end_line !== undefined) continue;
      wholeReads.set(call.id, normalizeRelativePath(args.path));
    }
  }
  const files = new Set<string>();
  for (const m of working) {
    if (!m.agentVisible) continue;
    if (m.kind === 'tool_result' && m.toolCallId && !m.meta?.isError && !m.meta?.truncated && !m.meta?.offloadRef) {
      const path = wholeReads.get(m.toolCallId);
      if (path) files.add(path);
    }
    const attached = m.meta?.attachment;
    // A pointer sent for a file already in context holds no text of its own.
    if (m.kind === 'attachment' && attached?.kind === 'file' && attached.path && !m.meta?.offloadRef && m.content.startsWith(`${attachmentHeading(attached)}\n`)) files.add(normalizeRelativePath(attached.path));
  }
  return files;
}
