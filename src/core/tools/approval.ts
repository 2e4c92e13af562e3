import type { ApprovalRequest, ToolContext } from './types';

/** Asks for approval and turns a "no" into the tool result the model will read. */
export async function approved(ctx: ToolContext, request: Omit<ApprovalRequest, 'callId'>): Promise<boolean> {
  return (await ctx.requestApproval({ ...request, callId: ctx.callId })) === 'approved';
}

/** The user's answer, or `cancelled` as soon as the turn is cancelled (also when it already was). */
export function answerUnlessCancelled<T>(answer: Promise<T>, signal: AbortSignal, cancelled: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(cancelled);
  return Promise.race([answer, new Promise<T>((resolve) => signal.addEventListener('abort', () => resolve(cancelled), { once: true }))]);
}

export function deniedOutput(what: string) {
  return { output: `The user denied ${what}.`, isError: true };
}

export type ApprovalSetting = 'ask' | 'always';

export interface ApprovalPolicy {
  commands: ApprovalSetting;
  edits: ApprovalSetting;
}

/**
 * Whether a request may skip asking. Only the user's own settings can say "always" (the caller reads
 * them from the user scope only); an untrusted workspace (Restricted Mode) and writes to paths that
 * can run code always ask. Returns the reason to show when it asks for one of those.
 */
export function approvalNeed(policy: ApprovalPolicy, input: { kind: ApprovalRequest['kind']; trusted: boolean; protectedReason?: string }): { ask: false } | { ask: true; reason?: string } {
  if (input.protectedReason) return { ask: true, reason: `Asking because ${input.protectedReason}.` };
  if (!input.trusted && input.kind !== 'other') return { ask: true, reason: 'Asking because the workspace is not trusted (Restricted Mode).' };
  if (input.kind === 'command' && policy.commands === 'always') return { ask: false };
  if (input.kind === 'edit' && policy.edits === 'always') return { ask: false };
  return { ask: true };
}
