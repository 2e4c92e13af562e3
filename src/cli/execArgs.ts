/** The command line of `tally exec`, parsed and checked before anything runs. */
import type { HttpProviderKind } from '../core/providers/chatProviderFactory';

/** What `--allow` grants: reads that ask, edits, commands, and starting subagents (the delegate tool). */
export type ExecPermission = 'read' | 'edit' | 'command' | 'delegate' | 'web';

export interface ExecArgs {
  task: string;
  provider: HttpProviderKind;
  model: string;
  baseUrl?: string;
  window?: number;
  allow: Set<ExecPermission>;
  json: boolean;
  /** The folder the agent works in (default: the current one). */
  cwd: string;
  /** Where the session is written (default ~/.tally/store). */
  store?: string;
  openaiApi?: 'responses' | 'chat-completions';
  maxSteps?: number;
  effort?: 'low' | 'medium' | 'high';
  /** Commands run in the sandbox unless `--sandbox off`. */
  sandbox: 'on' | 'off';
  /** Hook files (`--hooks FILE`, Claude Code's shape), besides the user's ~/.tally/hooks.json. */
  hooks: string[];
  /** `--mcp-config FILE`: MCP servers in VS Code's mcp.json format. */
  mcpConfig?: string;
  /** Whose MCP tools run unasked: `--allow mcp` (every server's) or `--allow mcp:SERVER`. */
  mcpAllowed: { all: boolean; servers: Set<string> };
  /** Plan mode: the agent only reads and searches, and ends with a plan (nothing is changed). */
  plan: boolean;
  /** False with `--no-auto-compact`: the run never compacts by itself and ends when the context reaches the hard block. */
  autoCompact: boolean;
  /** `--image PATH` (repeatable): images attached to the task. */
  images: string[];
}

const PROVIDERS: readonly HttpProviderKind[] = ['anthropic', 'openai', 'openai-compatible'];
const PERMISSIONS: readonly ExecPermission[] = ['read', 'edit', 'command', 'delegate', 'web'];
const VALUE_OPTIONS = new Set(['provider', 'model', 'base-url', 'window', 'allow', 'cd', 'store', 'openai-api', 'max-steps', 'effort', 'sandbox', 'hooks', 'mcp-config', 'image']);

function positive(name: string, raw: string): number {
  const value = Number(raw.replace(/_/g, '').replace(/k$/i, '000'));
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number (got "${raw}")`);
  return value;
}

/** `argv` after `exec`. Throws with a message for the user on anything it does not understand. */
export function parseExecArgs(argv: readonly string[], cwd: string): ExecArgs {
  const words: string[] = [];
  const values = new Map<string, string[]>();
  let json = false;
  let plan = false;
  let autoCompact = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (name === 'json' || name === 'plan' || name === 'no-auto-compact') {
      if (inline !== undefined) throw new Error(`--${name} takes no value`);
      if (name === 'json') json = true;
      else if (name === 'plan') plan = true;
      else autoCompact = false;
      continue;
    }
    if (!VALUE_OPTIONS.has(name)) throw new Error(`unknown option --${name}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const one = (name: string) => values.get(name)?.at(-1);
  if (words.length !== 1 || !words[0].trim()) throw new Error('exec takes one task, in quotes: tally exec "fix the failing test" --provider P --model M');
  const provider = one('provider');
  if (!provider || !PROVIDERS.includes(provider as HttpProviderKind)) throw new Error(`--provider must be one of ${PROVIDERS.join(', ')}`);
  const model = one('model');
  if (!model) throw new Error('--model is required');
  const allow = new Set<ExecPermission>();
  const mcpAllowed = { all: false, servers: new Set<string>() };
  for (const value of values.get('allow') ?? []) {
    for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
      if (part === 'mcp') {
        mcpAllowed.all = true;
        continue;
      }
      if (part.startsWith('mcp:') && part.length > 4) {
        mcpAllowed.servers.add(part.slice(4));
        continue;
      }
      if (!PERMISSIONS.includes(part as ExecPermission)) throw new Error(`--allow takes ${PERMISSIONS.join(', ')}, mcp or mcp:SERVER (got "${part}")`);
      allow.add(part as ExecPermission);
    }
  }
  const api = one('openai-api');
  if (api !== undefined && api !== 'responses' && api !== 'chat-completions') throw new Error('--openai-api must be responses or chat-completions');
  const effort = one('effort');
  if (effort !== undefined && effort !== 'low' && effort !== 'medium' && effort !== 'high') throw new Error('--effort must be low, medium or high');
  const sandbox = one('sandbox') ?? 'on';
  if (sandbox !== 'on' && sandbox !== 'off') throw new Error('--sandbox must be on or off');
  if (provider === 'openai-compatible' && !one('base-url')) throw new Error('--base-url is required for openai-compatible, e.g. http://127.0.0.1:11434/v1');
  return {
    task: words[0],
    provider: provider as HttpProviderKind,
    model,
    baseUrl: one('base-url'),
    window: one('window') === undefined ? undefined : positive('window', one('window')!),
    allow,
    json,
    cwd: one('cd') ?? cwd,
    store: one('store'),
    openaiApi: api,
    maxSteps: one('max-steps') === undefined ? undefined : positive('max-steps', one('max-steps')!),
    effort,
    sandbox,
    hooks: values.get('hooks') ?? [],
    mcpConfig: one('mcp-config'),
    mcpAllowed,
    plan,
    autoCompact,
    images: values.get('image') ?? [],
  };
}
