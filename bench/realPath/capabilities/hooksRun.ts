/**
 * One run of the hooks bench (hooks.bench.ts) in its own process. `hooks`:
 *   none    – no hooks;
 *   instant – a PreToolUse and a PostToolUse command hook on every tool, each reading its input
 *             and exiting at once (`cat > /dev/null`);
 *   hang    – a PreToolUse hook that never ends (`sleep 600`) under a 2 s limit (tally.hookTimeoutSeconds);
 *   command – no hooks; the call is run_command `true` (allowed without asking; in the sandbox
 *             where bubblewrap runs, the workspace's checkpoint around it).
 * Sends turns of one list_files call each and times the call from
 * tool_call to tool_result (its hooks included; wall and the host's CPU) in turns without the block
 * probe, and the host's longest block over turns with it, alternating; `instant` also times the floor, the same shell command started by a small
 * Node process the way a hook is (its own process group, the event on standard input), twice per call.
 * Last, how long one process start from the host holds the host's thread (hostStartBlockMs).
 */
import { execFileSync, spawn } from 'child_process';
import { join } from 'path';
import { median } from '../../median';
import type { ScriptedAnswer } from '../instantModel';
import { openSession } from './capabilitySession';
import { runAsChild } from '../runAsChild';

export type HookKind = 'none' | 'instant' | 'hang' | 'command';

export interface HooksRunOptions {
  extensionRoot: string;
  seededStorage: string;
  hooks: HookKind;
  turns: number;
  /** MB the host holds besides the extension (filled, so resident), as a real extension host holds other extensions' memory: a fork's cost grows with it. */
  ballastMb?: number;
}

export const HANG_LIMIT_SECONDS = 2;
const INSTANT = 'cat > /dev/null';

function hooksSetting(kind: HookKind): Record<string, unknown> {
  if (kind === 'none') return {};
  if (kind === 'command') return { 'approval.commands': 'always' };
  if (kind === 'instant') {
    const entry = [{ matcher: '.*', hooks: [{ type: 'command', command: INSTANT }] }];
    return { hooks: { PreToolUse: entry, PostToolUse: entry }, hookTimeoutSeconds: 10 };
  }
  return { hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'sleep 600' }] }] }, hookTimeoutSeconds: HANG_LIMIT_SECONDS };
}

/** The floor: the hook's shell command started as a hook is (its own process group, input on stdin) by a small Node process, `count` times: wall and that process's CPU, ms each. */
function spawnFloor(input: string, count: number): Array<{ wallMs: number; cpuMs: number }> {
  const out = execFileSync(process.execPath, [join(__dirname, 'spawnFloorProcess.cjs'), INSTANT, input, String(count)], { encoding: 'utf8' });
  return JSON.parse(out) as Array<{ wallMs: number; cpuMs: number }>;
}

/**
 * How long one process start from the host holds its thread: Node's spawn() returns once the
 * child has forked and exec'd, so its duration is the block. What the old build pays per hook, and
 * the new one once, for its spawner. Median of `count` starts of /bin/true, each waited for.
 */
async function hostStartBlockMs(count: number): Promise<number> {
  const blocks: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const child = spawn('/bin/true', [], { stdio: 'ignore' });
    blocks.push(performance.now() - started);
    await new Promise((resolve) => child.on('close', resolve));
  }
  return median(blocks);
}

let ballast: Buffer | undefined;

const COMMAND: ScriptedAnswer = { tool: 'run_command', args: { command: 'true' } };

async function measure(options: HooksRunOptions) {
  if (options.ballastMb) ballast = Buffer.alloc(options.ballastMb * 2 ** 20).fill(1);
  const session = await openSession({ extensionRoot: options.extensionRoot, seededStorage: options.seededStorage, settings: hooksSetting(options.hooks) });
  try {
    const call: ScriptedAnswer = options.hooks === 'command' ? COMMAND : 'tool';
    await session.turn('Which files are in the workspace?', [call, 'text']);
    const hostRssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    void ballast;
    const calls: number[] = [];
    const callCpu: number[] = [];
    const blocks: number[] = [];
    const blockCpu: number[] = [];
    const shares: number[] = [];
    const cpu: number[] = [];
    const notices = new Set<string>();
    for (let t = 0; t < options.turns; t++) {
      // One turn without the block probe (the call's wall and CPU), one with it (the host's longest block).
      const turn = await session.turn(`Turn ${t}: which files are there?`, [call, 'text'], { probe: false });
      if (turn.toolMs.length !== 1) throw new Error(`the turn ran ${turn.toolMs.length} tool calls`);
      calls.push(turn.toolMs[0]!);
      callCpu.push(turn.toolCpuMs[0]!);
      shares.push(turn.shareMs);
      cpu.push(turn.cpuMs);
      turn.notices.forEach((n) => notices.add(n));
      const probed = await session.turn(`Turn ${t}, probed: which files are there?`, [call, 'text']);
      blocks.push(probed.blockMs);
      blockCpu.push(probed.blockCpuMs);
    }
    const result: Record<string, number | number[] | string | boolean> = {
      toolCallMs: median(calls),
      toolCallCpuMs: median(callCpu),
      blockMs: median(blocks),
      blockMsMax: Math.max(...blocks),
      blockCpuMs: median(blockCpu),
      blockCpuMsMax: Math.max(...blockCpu),
      hostStartBlockMs: await hostStartBlockMs(5),
      hostRssMb,
      turnShareMs: median(shares),
      turnShareMsMax: Math.max(...shares),
      turnCpuMs: median(cpu),
    };
    if (options.hooks === 'instant') {
      const input = JSON.stringify({ session_id: 'bench', cwd: session.workspace, hook_event_name: 'PreToolUse', tool_name: 'LS', tool_input: { path: '.' } });
      const floors = spawnFloor(input, options.turns * 2);
      result.spawnFloorMs = median(floors.map((f) => f.wallMs));
      result.spawnFloorCpuMs = median(floors.map((f) => f.cpuMs));
    }
    if (notices.size) {
      const shown = [...notices];
      result.notice = shown.join(' | ');
      // The chat shows it: some post to the chat carries the notice's text.
      result.noticeInChat = session.chat.posts.some((p) => shown.every((n) => JSON.stringify(p.message).includes(JSON.stringify(n).slice(1, -1))));
    }
    const errors = session.ext.world.shown.filter((s) => s.level === 'error');
    if (errors.length) throw new Error(`the extension showed errors: ${JSON.stringify(errors)}`);
    return result;
  } finally {
    await session.close();
  }
}

if (require.main === module) runAsChild('hooksRun', measure);
