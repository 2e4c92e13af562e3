import type { SessionApprovals } from '../../tools/sessionApprovals';
import type { ApprovalRequest } from '../../tools/types';

/** Who asks on a subagent's approval card: its session, its agent's name, and the parent's call that started it. */
export type SubagentAsker = NonNullable<ApprovalRequest['subagent']>;

/** The id a subagent's approval card goes by: its session and its own call id, never equal to a parent's call id. */
export function subagentCallId(sessionId: string, callId: string): string {
  return `${sessionId}/${callId}`;
}

/** The parent's approvals (the same cards and session allowances), each card saying which subagent asks, under an id no other call has. */
export function askedBySubagent(approvals: Pick<SessionApprovals, 'decide'>, asker: SubagentAsker): Pick<SessionApprovals, 'decide'> {
  return {
    decide: (request, workspace, options) =>
      approvals.decide({ ...request, callId: subagentCallId(asker.sessionId, request.callId), title: `${asker.name} subagent: ${request.title}`, subagent: asker }, workspace, options),
  };
}
