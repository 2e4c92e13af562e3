import type { ToolEnvironment } from '../../src/core/agent/build/agentBuild';
import type { ToolRunOptions, ToolRunResult } from '../../src/core/agent/toolRunner';
import type { ApprovalAnswer, ApprovalPolicy } from '../../src/core/tools/approval';
import { builtinTools } from '../../src/core/tools/builtin';
import { ToolRegistry, type ToolRegistryOptions } from '../../src/core/tools/registry';
import { SessionApprovals } from '../../src/core/tools/sessionApprovals';
import type { ApprovalRequest, Tool, ToolLimits } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/node/tools/nodeWorkspace';
import { homedir } from 'os';
import { CommandSandbox, type SandboxSettings } from '../../src/node/sandbox/commandSandbox';

export const TEST_LIMITS: ToolLimits = { commandTimeoutMs: 10_000, maxCommandOutputBytes: 64 * 1024, maxReadBytes: 1024 * 1024 };

export interface TestRegistryOptions {
  tools: readonly Tool[] | (() => readonly Tool[]);
  folders?: string[];
  trusted?: boolean | (() => boolean);
  policy?: ApprovalPolicy;
  allowedTools?: string[];
  /** The user's answer; denies by default. */
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  withdraw?: (request: ApprovalRequest) => void;
  limits?: Partial<ToolLimits>;
  onCall?: (name: string) => void;
  onPathResolved?: ToolRegistryOptions['onPathResolved'];
  /** The commands' sandbox: by default a real one (bubblewrap on Linux) hiding the secrets of the real home; `none` runs them without one. */
  sandbox?: CommandSandbox | 'none';
}

/** A real command sandbox as a session has one (`settings` changes what it hides or turns it off). */
export function testSandbox(settings: Partial<SandboxSettings> = {}, system?: ConstructorParameters<typeof CommandSandbox>[1]): CommandSandbox {
  return new CommandSandbox(() => ({ enabled: true, home: homedir(), extraHidden: [], storage: [], ...settings }), system);
}

/** Where a test's tool calls act: a Node workspace on disk, its commands sandboxed as a session's are, approvals by `policy` and `ask`, the test limits. */
export function testEnvironment(options: Omit<TestRegistryOptions, 'tools' | 'onCall'>): ToolEnvironment {
  const trusted = typeof options.trusted === 'function' ? options.trusted : () => (options.trusted as boolean | undefined) ?? true;
  const sandbox = options.sandbox === 'none' ? undefined : (options.sandbox ?? testSandbox());
  return {
    workspace: () => new NodeWorkspace({ folders: options.folders ?? [], trusted: trusted() }, sandbox),
    approvals: new SessionApprovals({
      policy: () => options.policy ?? { commands: 'ask', edits: 'ask' },
      allowedTools: () => options.allowedTools ?? [],
      ask: options.ask ?? (async () => ({ approved: false })),
      withdraw: options.withdraw,
    }),
    limits: { ...TEST_LIMITS, ...options.limits },
    onPathResolved: options.onPathResolved,
  };
}

/** A registry over a Node workspace on disk, as the command line and the tests use it, its commands sandboxed as a session's are. */
export function testRegistry(options: TestRegistryOptions): ToolRegistry {
  return new ToolRegistry({
    sources: [typeof options.tools === 'function' ? options.tools : () => options.tools as readonly Tool[]],
    ...testEnvironment(options),
    onCall: options.onCall,
  });
}

export function runOptions(signal = new AbortController().signal, seen?: { shown: ApprovalRequest[]; resolved: string[] }): ToolRunOptions {
  return { signal, onApprovalNeeded: (r) => seen?.shown.push(r), onApprovalResolved: (d) => seen?.resolved.push(d) };
}

/** A result's output as text. */
export function outputText(result: ToolRunResult): string {
  return typeof result.output === 'string' ? result.output : Buffer.from(result.output).toString('utf8');
}

/**
 * Runs commands through the registry (run_command, SessionApprovals, the Node workspace, /bin/sh),
 * answering the first card with `first` (by default "allow for this session") and denying every later one.
 */
export function commandSession(ws: string, first: ApprovalAnswer = { approved: true, forSession: true }) {
  const asked: ApprovalRequest[] = [];
  const answers = [first];
  const registry = testRegistry({ tools: builtinTools(), folders: [ws], ask: async (r) => (asked.push(r), answers.shift() ?? { approved: false }) });
  let n = 0;
  const run = async (command: string, cwd?: string) => {
    const result = await registry.run({ id: `c${++n}`, name: 'run_command', arguments: JSON.stringify(cwd ? { command, cwd } : { command }) }, runOptions());
    return { text: outputText(result), denied: result.denied === true };
  };
  return { asked, run };
}
