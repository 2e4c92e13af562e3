/** The events a hook can run on, named as Claude Code names them. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart', 'PreCompact', 'Stop'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Where a hook was configured: the user's own settings, or a trusted workspace's `.tally/hooks.json`. */
export type HookOrigin = 'user' | 'workspace';

/** One configured hook command. */
export interface HookEntry {
  event: HookEventName;
  /** For tool events: a regular expression tested against the tool's names (empty or `*`: every tool). */
  matcher?: string;
  command: string;
  /** Seconds before the hook is killed; default: the session's hook time limit. */
  timeoutSeconds?: number;
  origin: HookOrigin;
}

export interface ParsedHooks {
  hooks: HookEntry[];
  /** What was wrong, one line each, naming where; the rest of the file still counts. */
  problems: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads hooks in Claude Code's shape: `{ "hooks": { "PreToolUse": [{ "matcher": "Bash",
 * "hooks": [{ "type": "command", "command": "…", "timeout": 30 }] }] } }`, or the inner object
 * alone (the `tally.hooks` setting). Unknown events and malformed entries are reported, not fatal.
 */
export function parseHooks(value: unknown, origin: HookOrigin, where: string): ParsedHooks {
  const problems: string[] = [];
  const hooks: HookEntry[] = [];
  if (value === undefined || value === null) return { hooks, problems };
  if (!isObject(value)) return { hooks, problems: [`${where}: hooks must be an object of events`] };
  const events = isObject(value.hooks) ? value.hooks : value;
  for (const [event, groups] of Object.entries(events)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push(`${where}: unknown hook event "${event}" (known: ${HOOK_EVENTS.join(', ')})`);
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push(`${where}: ${event} must be a list of { matcher, hooks }`);
      continue;
    }
    groups.forEach((group, i) => {
      if (!isObject(group) || !Array.isArray(group.hooks)) return problems.push(`${where}: ${event}[${i}] needs a "hooks" list`);
      const matcher = typeof group.matcher === 'string' ? group.matcher : undefined;
      if (matcher && !validPattern(matcher)) return problems.push(`${where}: ${event}[${i}] matcher "${matcher}" is not a valid regular expression`);
      group.hooks.forEach((hook: unknown, j: number) => {
        const at = `${where}: ${event}[${i}].hooks[${j}]`;
        if (!isObject(hook) || typeof hook.command !== 'string' || !hook.command.trim()) return problems.push(`${at} needs a "command"`);
        if (hook.type !== undefined && hook.type !== 'command') return problems.push(`${at}: only "command" hooks are supported`);
        const timeout = hook.timeout;
        if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) return problems.push(`${at}: "timeout" must be a positive number of seconds`);
        hooks.push({ event: event as HookEventName, ...(matcher ? { matcher } : {}), command: hook.command, ...(typeof timeout === 'number' ? { timeoutSeconds: timeout } : {}), origin });
      });
    });
  }
  return { hooks, problems };
}

function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Whether a tool hook's matcher matches a tool known by any of `names` (Tally's name and the name Claude Code scripts know). */
export function matchesTool(matcher: string | undefined, names: readonly string[]): boolean {
  if (!matcher || matcher === '*') return true;
  const pattern = new RegExp(`^(?:${matcher})$`);
  return names.some((name) => pattern.test(name));
}
