import { subagentIndex, totalsWithSubagents } from '../../core/agent/subagents/sessionLink';
import { reportTokens, sparedFigures, spendOf } from '../../core/agent/subagents/sparedFigures';
import type { Message } from '../../core/model/message';
import type { RequestUsageRecord } from '../../core/model/records';
import type { SessionStore } from '../../core/ports/sessionStore';
import type { InspectorSubagents, InspectorSubagentView } from '../../protocol/inspectorSubagents';
import type { ActiveSession } from '../sessionState/sessionPorts';

/** A session as its subagents' summary reads it: its id, its own requests and the messages it holds. */
export interface SubagentParent {
  sessionId: string;
  usage: readonly Pick<RequestUsageRecord, 'reportedInputTokens' | 'estimatedInputTokens' | 'reportedOutputTokens'>[];
  /** Messages in memory (the working context, the chat's page): where the delegate calls and their results are looked for. */
  messages: readonly (readonly Message[])[];
}

/** The subagent's task from its session's title ("<agent>: <first line of the task>"). */
function taskOf(title: string, agent: string): string {
  return title.startsWith(`${agent}: `) ? title.slice(agent.length + 2) : title;
}

/**
 * The subagents a session started, each with its work (its own subagents' included) and the
 * tokens of the report that came back, and the session's totals with theirs. Reads the session
 * list and each subagent's usage figures; the parent's messages are those already in memory.
 */
export async function subagentSummaries(store: SessionStore, parent: SubagentParent): Promise<InspectorSubagents | undefined> {
  // One listing for the whole tree of subagents.
  const index = subagentIndex(await store.listSessions());
  const children = index.get(parent.sessionId) ?? [];
  if (children.length === 0) return undefined;
  const calls = new Map<string, string>();
  const results = new Map<string, Message>();
  for (const list of parent.messages) {
    for (const m of list) {
      for (const call of m.toolCalls ?? []) calls.set(call.id, m.id);
      // The first list that holds a result with its stored count wins (the chat's page holds them as stored).
      if (m.role === 'tool' && m.toolCallId && !results.get(m.toolCallId)?.tokens) results.set(m.toolCallId, m);
    }
  }
  const list: InspectorSubagentView[] = [];
  for (const { info, link } of children) {
    const totals = await totalsWithSubagents(store, info.id, new Set([parent.sessionId]), index);
    const result = results.get(link.parentCallId);
    const cameBack = result && reportTokens(result);
    list.push({
      sessionId: info.id,
      agent: link.agent,
      task: taskOf(info.title, link.agent),
      callId: link.parentCallId,
      requests: totals.requests,
      read: totals.inputTokens,
      output: totals.outputTokens,
      ...(cameBack !== undefined ? { cameBack } : {}),
      ...(calls.has(link.parentCallId) ? { callMessageId: calls.get(link.parentCallId) } : {}),
      ...(result ? { resultMessageId: result.id } : {}),
    });
  }
  const spared = sparedFigures(list);
  const own = spendOf(parent.usage);
  return {
    list,
    spared,
    total: { requests: own.requests + spared.requests, inputTokens: own.read + spared.read, outputTokens: own.output + spared.output },
    share: { requests: spared.requests, inputTokens: spared.read, outputTokens: spared.output },
  };
}

/** The summary of the session shown, made again only when the session sent a request or recorded a message since. */
export class SubagentSummaryCache {
  private last?: { key: string; value: Promise<InspectorSubagents | undefined> };

  of(store: SessionStore, session: Pick<ActiveSession, 'info' | 'contextSession' | 'state'>): Promise<InspectorSubagents | undefined> {
    const records = session.state.records;
    const held = records.heldMessages;
    const key = [session.info.id, records.requests.length, held.length, held[held.length - 1]?.id ?? ''].join('\u0000');
    if (this.last?.key !== key) {
      const value = subagentSummaries(store, { sessionId: session.info.id, usage: records.usageFigures, messages: [held, session.contextSession.messages] });
      this.last = { key, value };
      // A failed read is not kept: the next refresh tries again.
      value.catch(() => {
        if (this.last?.value === value) this.last = undefined;
      });
    }
    return this.last.value;
  }
}
