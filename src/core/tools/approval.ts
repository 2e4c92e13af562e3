import type { ApprovalRequest } from './types';

/** The user's answer to an approval card. */
export interface ApprovalAnswer {
  approved: boolean;
  /** Allow this tool (or this command prefix) without asking for the rest of the session. */
  forSession?: boolean;
}

/** The user's answer, or `cancelled` as soon as the turn is cancelled (also when it already was). */
export function answerUnlessCancelled<T>(answer: Promise<T>, signal: AbortSignal, cancelled: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(cancelled);
  return Promise.race([answer, new Promise<T>((resolve) => signal.addEventListener('abort', () => resolve(cancelled), { once: true }))]);
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

/**
 * Why no external tool runs in Restricted Mode: VS Code describes a registered tool by name,
 * description, input schema and self-declared tags only, so nothing tells which tools just read.
 */
export const EXTERNAL_TOOLS_RESTRICTED =
  'Tools from other extensions and MCP servers are not available in Restricted Mode: VS Code does not say which of them only read, so none runs until the user trusts this workspace.';

/** Said instead of running a command in Restricted Mode. */
export const COMMANDS_RESTRICTED = 'Commands are disabled in an untrusted workspace (VS Code Restricted Mode). Trust the workspace to allow them.';
