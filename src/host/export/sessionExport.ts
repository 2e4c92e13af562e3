import { subagentSessions, type SubagentLink } from '../../core/agent/subagents/sessionLink';
import type { Message } from '../../core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../core/model/records';
import type { SessionInfo, SessionStore } from '../../core/ports/sessionStore';
import { countOf } from '../../protocol/wording';

/** A session as it is exported: its records whole, and each subagent it started with the call that started it. */
export interface SessionExport {
  session: SessionInfo;
  transcript: Message[];
  compactions: CompactionEventRecord[];
  usage: RequestUsageRecord[];
  /** Present on a subagent's export: the parent's delegate call and the agent. */
  link?: Pick<SubagentLink, 'parentCallId' | 'agent'>;
  subagents: SessionExport[];
}

/** Reads a session and, below it, the sessions of its subagents (their own subagents too), each linked by its call. */
export async function readSessionExport(store: SessionStore, info: SessionInfo, seen = new Set<string>()): Promise<SessionExport> {
  seen.add(info.id);
  const [transcript, compactions, usage, children] = await Promise.all([store.loadTranscript(info.id), store.listCompactionEvents(info.id), store.listRequestUsage(info.id), subagentSessions(store, info.id)]);
  const subagents: SessionExport[] = [];
  for (const child of children) {
    if (seen.has(child.info.id)) continue;
    subagents.push({ ...(await readSessionExport(store, child.info, seen)), link: { parentCallId: child.link.parentCallId, agent: child.link.agent } });
  }
  return { session: info, transcript, compactions, usage, subagents };
}

/** The export as JSON: the records whole, subagents nested under the session that started them. */
export function exportJson(tree: SessionExport): string {
  return JSON.stringify(tree, null, 2);
}

/** Markdown: the conversation as the user saw it, then each subagent's own conversation under the call that started it. */
export function exportMarkdown(tree: SessionExport): string {
  return markdownOf(tree, 1).join('\n');
}

function markdownOf(tree: SessionExport, level: number): string[] {
  const { session: info, transcript, compactions, usage } = tree;
  const hashes = (n: number) => '#'.repeat(Math.min(6, level + n));
  const byCall = new Map(tree.subagents.map((s) => [s.link?.parentCallId, s]));
  const title = tree.link ? `Subagent ${tree.link.agent} (delegate call ${tree.link.parentCallId}): ${info.title}` : info.title;
  const lines = [`${hashes(0)} ${title}`, '', `Session ${info.id} · ${new Date(info.createdAt).toISOString()} · ${countOf(usage.length, 'request')} · ${countOf(compactions.length, 'compaction')}${tree.subagents.length ? ` · ${countOf(tree.subagents.length, 'subagent')} (below)` : ''}`, ''];
  const events = [...compactions].sort((a, b) => a.startedAt - b.startedAt);
  let e = 0;
  for (const m of transcript) {
    while (e < events.length && events[e].startedAt <= m.createdAt) {
      const c = events[e++];
      lines.push(`> **Compaction** (${c.trigger}, ${c.status}): ${c.tokensBefore.toLocaleString('en-US')} → ${countOf(c.tokensAfter, 'token')}; ${c.strategies.join(', ')}`, '');
    }
    if (m.role === 'user' && m.kind === 'user') lines.push(`${hashes(1)} User`, '', m.content, '');
    else if (m.role === 'assistant') {
      lines.push(`${hashes(1)} Assistant`, '', m.content, '');
      for (const c of m.toolCalls ?? []) {
        const sub = byCall.get(c.id);
        lines.push(`- tool call \`${c.name}\` \`${c.arguments}\`${sub ? ` → subagent session ${sub.session.id} (below)` : ''}`);
      }
      if (m.toolCalls?.length) lines.push('');
    } else if (m.role === 'tool') {
      lines.push(`${hashes(2)} Result of ${m.toolName ?? 'tool'}${m.meta?.offloadRef ? ` (full output: ${m.meta.offloadRef})` : ''}`, '', '```', m.content, '```', '');
    }
  }
  for (const sub of tree.subagents) lines.push(...markdownOf(sub, level + 1));
  return lines;
}
