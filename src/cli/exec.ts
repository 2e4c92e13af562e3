/**
 * `tally exec`: one task, run headless by the same agent loop the extension uses, in a folder on
 * disk (the Node workspace), with approvals from the command line only (never a prompt), events as
 * JSON lines or plain text, and the session written to the store `tally inspect --session` reads.
 */
import { execTask } from './execCommand';
import { planReasoning } from '../core/providers/reasoningPlan';
import { homedir } from 'os';
import { join, resolve } from 'path';
import { getTokenCounter } from '../core/accounting/tokenizer';
import { buildAgent } from '../core/agent/build/buildAgent';
import { BUILTIN_TOOLS, DELEGATION, SESSION_TOOLS, WEB_TOOLS } from '../core/agent/build/toolSources';
import type { WebAccess } from '../core/ports/webAccess';
import { nodeWebAccess } from '../node/web/nodeWebAccess';
import { readableInWorker } from '../node/web/readableInWorker';
import type { AgentEvent, TurnStopReason } from '../core/agent/events';
import { DELEGATE_TOOL_NAME } from '../core/agent/subagents/delegateTool';
import { createChatProvider } from '../core/providers/chatProviderFactory';
import { resolveModel } from '../core/providers/models/modelRegistry';
import { ContextSession } from '../core/context/contextSession';
import { mcpToolSource } from '../core/mcp/mcpToolSource';
import { withSettings } from '../core/settings';
import { SessionApprovals } from '../core/tools/sessionApprovals';
import type { ApprovalRequest } from '../core/tools/types';
import { openStore } from '../node/store';
import { NodeWorkspace } from '../node/tools/nodeWorkspace';
import { CommandSandbox } from '../node/sandbox/commandSandbox';
import type { ExecArgs, ExecPermission } from './execArgs';
import { execApiKey } from './execApiKey';
import { execHooks } from './execHooks';
import { startExecMcp, type ExecMcp } from './execMcp';
import { execSubagents, subagentJsonLine, subagentTextLine } from './execSubagents';
import { execImages } from './execImages';

/** How a run ended, as its exit status. */
export const EXEC_EXIT = {
  /** The model finished its answer. */
  done: 0,
  /** The request failed (provider error, network, a key refused). */
  error: 1,
  /** The command line or the setup was wrong (no key, unknown option): nothing was sent. */
  usage: 2,
  /** The model hit its output limit. */
  maxTokens: 3,
  /** The context is full even after compaction. */
  blocked: 4,
  /** The turn took the most requests allowed (--max-steps). */
  maxSteps: 5,
  /** The model declined to answer (a refusal). */
  refusal: 6,
  /** The context reached the hard block with automatic compaction off (--no-auto-compact): nothing was compacted or sent. */
  compactionNeeded: 7,
  /** Interrupted (Ctrl-C, SIGTERM). */
  cancelled: 130,
} as const;

const EXIT_FOR: Record<TurnStopReason, number> = {
  end_turn: EXEC_EXIT.done,
  error: EXEC_EXIT.error,
  max_tokens: EXEC_EXIT.maxTokens,
  blocked: EXEC_EXIT.blocked,
  max_steps: EXEC_EXIT.maxSteps,
  refusal: EXEC_EXIT.refusal,
  cancelled: EXEC_EXIT.cancelled,
  held: EXEC_EXIT.compactionNeeded,
};

export const EXEC_USAGE = `tally exec "TASK" --provider anthropic|openai|openai-compatible --model M
    [--base-url U] [--window N] [--allow read|edit|command|delegate|web …] [--json] [--cd DIR] [--store DIR]
    [--openai-api responses|chat-completions] [--max-steps N] [--effort low|medium|high] [--sandbox on|off] [--plan]
    [--no-auto-compact] [--hooks FILE …] [--image PATH …]
    [--mcp-config FILE] [--allow mcp|mcp:SERVER …]

  Runs one task with Tally's agent loop in DIR (default: the current folder), with no editor.
  Keys come from the environment only: ANTHROPIC_API_KEY (anthropic) and OPENAI_API_KEY (openai)
  go only to that provider's own server (api.anthropic.com, api.openai.com); TALLY_API_KEY goes to
  any server, and is the only key a --base-url elsewhere receives (anthropic and openai then need
  it and exit 2 without it; openai-compatible sends none).
  Approvals come from --allow alone and nothing asks: without --allow edit no file is written,
  without --allow command no command runs, and reading a file that has other hard links needs
  --allow read. --allow web lets fetch_url fetch http(s) pages from any public address (never a
  local or private one; no cookies or keys are sent). --allow delegate offers the delegate tool: subagents with their own context
  window, read-only tools, the same --allow approvals and no named agents; a run starts at most 10
  subagents using 2,000,000 tokens together (more are refused). No AGENTS.md or skill
  is loaded. --json prints one JSON object per line (text, reasoning, tool calls and results,
  usage with reasoning tokens, subagent progress, compactions, the session). The session is stored in
  --store (default ~/.tally/store): show it with tally inspect --session ID --store DIR.
  --effort sets the reasoning effort (OpenAI reasoning.effort; Anthropic thinking where supported).
  Commands run in a sandbox (bubblewrap on Linux, sandbox-exec on macOS): they write only in DIR and
  a private /tmp, cannot read ~/.ssh, ~/.aws and other secrets, and have no network. A command the
  sandbox stopped is not run again outside it. --sandbox off runs them with your full access.
  --hooks FILE runs the hooks FILE lists (Claude Code's format; see the README's Hooks section)
  besides those in ~/.tally/hooks.json; a repository's .tally/hooks.json is not read.
  --mcp-config FILE starts the MCP servers FILE lists (VS Code's mcp.json format: "servers" with
  command/args/env for a program, or url/headers for streamable HTTP) before the task is sent; their
  tools run only with --allow mcp (every server's) or --allow mcp:SERVER.
  --plan runs in plan mode: the agent only reads and searches (no edit, no command, whatever --allow
  says) and ends with a plan, printed as its answer; run again without --plan to carry it out.
  --no-auto-compact never compacts the context by itself: when it reaches the hard block (98% of the
  window) the run ends with exit status 7 instead, and the session keeps everything it held.
  --image PATH attaches a PNG, JPEG, GIF or WebP image (up to 5 MB) to the task; repeat it for more.
  A model known to take no images is refused before anything is sent (exit 4).

  Exit status: 0 finished, 1 request failed, 2 bad command line or no key, 3 output limit reached,
  4 context full after compaction or prompt blocked by a hook, 5 --max-steps reached, 6 the model refused,
  7 context at the hard block with --no-auto-compact (or the server refused it as too long), 130 interrupted.`;

/** What a run that stopped at the hard block with --no-auto-compact says last. */
const HELD_HINT = ' · the context reached the hard block and --no-auto-compact kept Tally from compacting it: run again without --no-auto-compact, or with a larger --window';

/** One line of `--json` output per event the user can act on. */
function jsonLine(event: AgentEvent): Record<string, unknown> | undefined {
  switch (event.type) {
    case 'text_delta':
      return { type: 'text', text: event.text };
    case 'reasoning_delta':
      return { type: 'reasoning', text: event.text };
    case 'assistant_message':
      return { type: 'assistant_message', id: event.message.id, text: event.message.content, toolCalls: event.message.toolCalls ?? [], reasoning: (event.message.reasoning ?? []).map((b) => ({ format: b.format, text: b.text })) };
    case 'tool_call':
      return { type: 'tool_call', id: event.call.id, name: event.call.name, arguments: event.call.arguments };
    case 'tool_result':
      return { type: 'tool_result', id: event.callId, output: event.message.content, isError: event.message.meta?.isError ?? false, denied: event.message.meta?.denied ?? false };
    case 'usage':
      return { type: 'usage', request: event.record.requestIndex, estimatedInput: event.record.estimatedInputTokens, input: event.record.reportedInputTokens, output: event.record.reportedOutputTokens, cacheRead: event.record.cacheReadTokens, cacheWrite: event.record.cacheWriteTokens, reasoning: event.record.reasoningTokens };
    case 'compaction':
      return { type: 'compaction', event: event.event };
    case 'approval_needed':
      return { type: 'approval_needed', id: event.request.callId, kind: event.request.kind, title: event.request.title };
    case 'approval_resolved':
      return { type: 'approval', id: event.callId, decision: event.decision };
    case 'retry':
      return { type: 'retry', attempt: event.attempt, delayMs: event.delayMs, reason: event.reason };
    case 'notice':
      return { type: 'notice', message: event.message };
    case 'error':
      return { type: 'error', kind: event.kind, message: event.message };
    case 'subagent':
      return subagentJsonLine(event.progress);
    default:
      return undefined;
  }
}

/** Plain output: the answer on stdout, what happens around it on stderr. */
function textLine(event: AgentEvent, out: (s: string) => void, err: (s: string) => void): void {
  if (event.type === 'text_delta') out(event.text);
  else if (event.type === 'reasoning_delta') err(event.text);
  else if (event.type === 'tool_call') err(`\n→ ${event.call.name} ${event.call.arguments}\n`);
  else if (event.type === 'tool_result') err(`← ${event.message.content.split('\n')[0].slice(0, 200)}\n`);
  else if (event.type === 'error' || event.type === 'notice') err(`\ntally: ${event.message}\n`);
  else if (event.type === 'compaction') err(`\n[compacted the context]\n`);
  else if (event.type === 'approval_needed' && event.request.outsideSandbox) err(`[not run outside the sandbox: ${event.request.title}; --sandbox off runs commands without it]\n`);
  else if (event.type === 'approval_needed') err(`[needs approval: ${event.request.title}; ${howToAllow(event.request)}]\n`);
  else if (event.type === 'usage') err(`\n[request #${event.record.requestIndex}: ${usageText(event)}]\n`);
  else if (event.type === 'subagent') {
    const line = subagentTextLine(event.progress);
    if (line) err(line);
  }
}

/** A request's tokens as the provider reported them (or Tally's estimate when it reported none). */
function usageText({ record }: Extract<AgentEvent, { type: 'usage' }>): string {
  if (record.reportedInputTokens === undefined) return `estimated ${record.estimatedInputTokens} in`;
  const reasoning = record.reasoningTokens ? ` (${record.reasoningTokens} reasoning)` : '';
  return `${record.reportedInputTokens} in, ${record.reportedOutputTokens ?? '?'} out${reasoning}`;
}

export interface ExecIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Aborted on SIGINT/SIGTERM by the caller. */
  signal?: AbortSignal;
  /** The web fetch_url reaches (default: Node's, pages made readable in dist/readableWorker.js); tests give their own resolver and limits. */
  web?: WebAccess;
}

/** What the needs-approval line tells the user to pass. */
function howToAllow(request: ApprovalRequest): string {
  if (request.domain === undefined) return request.kind === 'other' ? 'allow it with --allow mcp or --allow mcp:SERVER' : `allow it with --allow ${request.kind}`;
  return request.localAddress ? 'exec never fetches from a local address' : 'allow it with --allow web';
}

/** Says once, before anything runs, when commands would run without a sandbox. */
async function warnUnsandboxed(args: ExecArgs, sandbox: CommandSandbox, folder: string, io: ExecIo): Promise<void> {
  if (args.sandbox === 'off') return io.stderr("tally: --sandbox off: the agent's commands run with your full access to files, secrets and the network\n");
  if (!args.allow.has('command')) return;
  const state = await sandbox.state([folder]);
  if (!state.sandboxed) io.stderr(`tally: no sandbox for commands: ${state.reason}; they run without one\n`);
}

/** Runs the task; resolves to the exit status. */
export async function runExec(args: ExecArgs, io: ExecIo): Promise<number> {
  const { key: apiKey, missing } = execApiKey(args.provider, args.baseUrl, io.env);
  if (missing) {
    io.stderr(`tally: no key: set ${missing}\n`);
    return EXEC_EXIT.usage;
  }
  const folder = resolve(args.cwd);
  const model = resolveModel(args.model, { contextWindow: args.window });
  const settings = withSettings({ contextWindow: model.contextWindow, autoCompact: args.autoCompact });
  const reasoningPlan = planReasoning(args.provider, args.model, args.effort);
  const maxOutputTokens = Math.min(model.defaultOutputReserve, Math.floor(model.contextWindow / 4)) + reasoningPlan.extraOutputTokens;
  const counter = getTokenCounter(model.encoding);
  const storeFolder = resolve(args.store ?? join(homedir(), '.tally', 'store'));
  const store = await openStore(storeFolder);
  const emit = (line: Record<string, unknown>) => io.stdout(`${JSON.stringify(line)}\n`);
  let mcp: ExecMcp | undefined;
  try {
    try {
      mcp = await startExecMcp(args, folder, io.env, (message) => (args.json ? emit({ type: 'notice', message }) : io.stderr(`tally: ${message}\n`)), io.signal);
    } catch (error) {
      io.stderr(`tally: ${(error as Error).message}\n`);
      return EXEC_EXIT.usage;
    }
    const images = await execImages(args.images, args.cwd, { providerId: args.provider, model: args.model }).catch((error: Error) => error);
    if (images instanceof Error) {
      io.stderr(`tally: ${images.message}\n`);
      return EXEC_EXIT.usage;
    }
    const info = await store.createSession({ title: args.task.slice(0, 80), origin: 'exec' });
    if (args.json) emit({ type: 'session', id: info.id, provider: args.provider, model: args.model, window: model.contextWindow, folder });
    const session = await ContextSession.open({ store, sessionId: info.id, settings, counter, contextWindow: model.contextWindow, maxOutputTokens });
    const task = await execTask(args.task, folder, io.env.HOME || homedir(), { store, sessionId: info.id, settings: session.settings }).catch((error: Error) => error);
    if (task instanceof Error) {
      io.stderr(`tally: ${task.message}\n`);
      return EXEC_EXIT.usage;
    }
    // Nothing asks in a run: past the per-turn subagent bound no more subagents start, and a command the sandbox stopped never runs again outside it.
    // A fetch is allowed by --allow web, never at a local address (nothing on the command line names a host).
    const allowed = (request: ApprovalRequest) => (request.domain !== undefined ? args.allow.has('web') && !request.localAddress : args.allow.has(request.kind as ExecPermission));
    const answer = async (request: ApprovalRequest) => ({ approved: request.toolName !== DELEGATE_TOOL_NAME && !request.outsideSandbox && allowed(request) });
    const sandbox = new CommandSandbox(() => ({ enabled: args.sandbox === 'on', turnedOffBy: '--sandbox off', home: io.env.HOME || homedir(), extraHidden: [], storage: [storeFolder] }));
    await warnUnsandboxed(args, sandbox, folder, io);
    const hooks = await execHooks({ files: args.hooks, home: io.env.HOME || homedir(), folder, sessionId: () => info.id, sandbox, stderr: io.stderr }).catch((error: Error) => error);
    if (hooks instanceof Error) {
      io.stderr(`tally: ${hooks.message}\n`);
      return EXEC_EXIT.usage;
    }
    const provider = createChatProvider({ provider: args.provider, apiKey, baseUrl: args.baseUrl, openaiApi: args.openaiApi });
    const agent = buildAgent({
      contextSession: session,
      store,
      model: { provider, id: args.model, maxOutputTokens, counter, ...(reasoningPlan.reasoning ? { reasoning: reasoningPlan.reasoning } : {}) },
      settings,
      tools: [BUILTIN_TOOLS, SESSION_TOOLS, DELEGATION, WEB_TOOLS, ...(mcp ? [mcpToolSource(mcp.servers)] : [])],
      // No AGENTS.md, skills or named agents: nothing from the repository chooses what exec does.
      environment: {
        workspace: () => new NodeWorkspace({ folders: [folder], trusted: true }, sandbox),
        approvals: new SessionApprovals({
          policy: () => ({ commands: args.allow.has('command') ? 'always' : 'ask', edits: args.allow.has('edit') ? 'always' : 'ask' }),
          allowedTools: () => mcp?.allowedTools() ?? [],
          ask: answer,
        }),
        limits: { commandTimeoutMs: 120_000, maxCommandOutputBytes: 8 * 1024 * 1024, maxReadBytes: 2 * 1024 * 1024 },
        web: io.web ?? nodeWebAccess({ readable: readableInWorker(join(__dirname, 'readableWorker.js')) }),
      },
      ...(hooks ? { hooks } : {}),
      ...(args.allow.has('delegate') ? { subagents: execSubagents({ store, settings, counter, contextWindow: model.contextWindow, maxOutputTokens, model: args.model }) } : {}),
      observers: [
        (event) => {
          if (!args.json) return textLine(event, io.stdout, io.stderr);
          const line = jsonLine(event);
          if (line) emit(line);
        },
      ],
      maxSteps: args.maxSteps,
      ...(args.plan ? { mode: () => 'plan' as const } : {}),
    });
    const stop = await agent.send(task.text, io.signal, [...images, ...task.attachments], { source: task.source, ...(args.plan ? { mode: 'plan' as const } : {}) });
    agent.dispose();
    await store.flush();
    const code = EXIT_FOR[stop];
    if (args.json) emit({ type: 'end', stopReason: stop, exitCode: code, session: info.id });
    else io.stderr(`\n[${stop}] session ${info.id}${args.plan ? ' · plan mode: nothing was changed' : ''}${stop === 'held' ? HELD_HINT : ''}\n`);
    return code;
  } finally {
    await mcp?.servers.dispose();
    await store.close();
  }
}
