import type { ApprovalRequest, ToolContext } from './types';

/** Asks for approval and turns a "no" into the tool result the model will read. */
export async function approved(ctx: ToolContext, request: Omit<ApprovalRequest, 'callId'>): Promise<boolean> {
  return (await ctx.requestApproval({ ...request, callId: ctx.callId })) === 'approved';
}

export function deniedOutput(what: string) {
  return { output: `The user denied ${what}.`, isError: true };
}
