import type { HookProcess } from '../ports/hookProcess';
import { readHookAnswer } from './hookAnswer';
import { matchesTool, type HookEntry, type HookEventName, type HookOrigin } from './hookConfig';

/** The default time limit of one hook, as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

export interface HooksOptions {
  /** The hooks configured now, read before each event (settings and hook files change while a session runs). */
  hooks: () => readonly HookEntry[] | Promise<readonly HookEntry[]>;
  /** Workspace hooks run only while the workspace is trusted. */
  trusted: () => boolean;
  process: HookProcess;
  sessionId: () => string;
  /** Where hooks run: the first workspace folder. */
  cwd: () => string;
  /** A hook's limit unless its entry sets one. */
  timeoutMs?: number;
}

/** What the hooks of one event said together. */
export interface HookOutcome {
  /** The strongest decision: deny or block over ask over allow. */
  decision?: 'allow' | 'deny' | 'ask' | 'block';
  reason?: string;
  /** Which hook decided (its command). */
  decidedBy?: string;
  /** Where each allowing hook came from: a workspace's "allow" never skips an approval. */
  allowedBy: HookOrigin[];
  /** Text each hook added to the context, with the hook's command. */
  context: Array<{ command: string; text: string }>;
  /** Failures, time-outs and hooks' messages, for the turn. */
  notices: string[];
  /** A hook answered `"continue": false`: the agent stops here. */
  halted?: boolean;
  /** PreCompact: what each hook asked the summary to keep in mind, with the hook's command. */
  instructions?: Array<{ command: string; text: string }>;
}

const STRENGTH = { allow: 1, ask: 2, block: 3, deny: 3 } as const;

/** A hook as the chat names it: its command's first line, at most 60 characters. */
export function hookName(command: string): string {
  const line = command.trim().split('\n')[0]!;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** A hook's command as a notice names it, in backticks. */
export function hookLabel(command: string): string {
  return `\`${hookName(command)}\``;
}

/**
 * Runs the configured hooks of an event: each matching hook gets the event as JSON on standard
 * input; they run together, each within its time limit, and their answers are combined.
 */
export class Hooks {
  constructor(private readonly options: HooksOptions) {}

  /** The hooks configured now (settings and files read once): a tool call reads them once for both of its events. */
  async configured(): Promise<readonly HookEntry[]> {
    return this.options.hooks();
  }

  /** The hooks that would run on `event` (for a tool, known by any of `toolNames`), of `configured` when given. */
  async matching(event: HookEventName, toolNames?: readonly string[], configured?: readonly HookEntry[]): Promise<HookEntry[]> {
    const trusted = this.options.trusted();
    return (configured ?? (await this.options.hooks())).filter((h) => h.event === event && (h.origin === 'user' || trusted) && (!toolNames || matchesTool(h.matcher, toolNames)));
  }

  async fire(event: HookEventName, fields: Record<string, unknown>, toolNames?: readonly string[], signal?: AbortSignal, configured?: readonly HookEntry[]): Promise<HookOutcome> {
    const outcome: HookOutcome = { allowedBy: [], context: [], notices: [] };
    const hooks = await this.matching(event, toolNames, configured);
    if (!hooks.length) return outcome;
    const cwd = this.options.cwd();
    const input = JSON.stringify({ session_id: this.options.sessionId(), cwd, hook_event_name: event, ...fields });
    const answers = await Promise.all(
      hooks.map(async (hook) => {
        const timeoutMs = hook.timeoutSeconds !== undefined ? hook.timeoutSeconds * 1000 : (this.options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
        const exit = await this.options.process.run({ command: hook.command, input, cwd, timeoutMs, sandboxed: hook.origin === 'workspace' }, signal);
        return { hook, answer: readHookAnswer(event, exit, hookLabel(hook.command), timeoutMs) };
      }),
    );
    for (const { hook, answer } of answers) {
      if (answer.notice) outcome.notices.push(answer.notice);
      if (answer.context) outcome.context.push({ command: hook.command, text: answer.context });
      if (answer.instructions) (outcome.instructions ??= []).push({ command: hook.command, text: answer.instructions });
      if (answer.halt) outcome.halted = true;
      if (answer.decision === 'allow') outcome.allowedBy.push(hook.origin);
      if (answer.decision && (!outcome.decision || STRENGTH[answer.decision] > STRENGTH[outcome.decision])) {
        outcome.decision = answer.decision;
        outcome.reason = answer.reason;
        outcome.decidedBy = hook.command;
      }
    }
    return outcome;
  }
}
