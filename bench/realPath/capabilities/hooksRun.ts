/**
 * One run of the hooks bench (hooks.bench.ts) in its own process. `hooks`:
 *   none    – no hooks;
 *   instant – a PreToolUse and a PostToolUse command hook on every tool, each reading its input
 *             and exiting at once (`cat > /dev/null`);
 *   hang    – a PreToolUse hook that never ends (`sleep 600`) under a 2 s limit (tally.hookTimeoutSeconds).
 * Sends turns of one list_files call each and times the call from tool_call to tool_result (its
 * hooks included); `instant` also times the floor, the same shell command started directly the
 * way a hook is (its own process group, the event on standard input), twice per call.
 */
import { spawn } from 'child_process';
import { median } from '../../median';
import { openSession } from './capabilitySession';
import { runAsChild } from '../runAsChild';

export type HookKind = 'none' | 'instant' | 'hang';

export interface HooksRunOptions {
  extensionRoot: string;
  seededStorage: string;
  hooks: HookKind;
  turns: number;
}

export const HANG_LIMIT_SECONDS = 2;
const INSTANT = 'cat > /dev/null';

function hooksSetting(kind: HookKind): Record<string, unknown> {
  if (kind === 'none') return {};
  if (kind === 'instant') {
    const entry = [{ matcher: '.*', hooks: [{ type: 'command', command: INSTANT }] }];
    return { hooks: { PreToolUse: entry, PostToolUse: entry }, hookTimeoutSeconds: 10 };
  }
  return { hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'sleep 600' }] }] }, hookTimeoutSeconds: HANG_LIMIT_SECONDS };
}

/** The shell command alone, started as a hook is (its own process group, input on stdin) until it closes: wall and this process's CPU, ms. */
function spawnFloor(input: string): Promise<{ wallMs: number; cpuMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const child = spawn(INSTANT, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', reject);
    child.on('close', () => {
      const used = process.cpuUsage(cpu);
      resolve({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
    });
  });
}

async function measure(options: HooksRunOptions) {
  const session = await openSession({ extensionRoot: options.extensionRoot, seededStorage: options.seededStorage, settings: hooksSetting(options.hooks) });
  try {
    await session.turn('Which files are in the workspace?', ['tool', 'text']);
    const calls: number[] = [];
    const shares: number[] = [];
    const cpu: number[] = [];
    const notices = new Set<string>();
    for (let t = 0; t < options.turns; t++) {
      const turn = await session.turn(`Turn ${t}: which files are there?`, ['tool', 'text']);
      if (turn.toolMs.length !== 1) throw new Error(`the turn ran ${turn.toolMs.length} tool calls`);
      calls.push(turn.toolMs[0]!);
      shares.push(turn.shareMs);
      cpu.push(turn.cpuMs);
      turn.notices.forEach((n) => notices.add(n));
    }
    const result: Record<string, number | number[] | string | boolean> = { toolCallMs: median(calls), turnShareMs: median(shares), turnShareMsMax: Math.max(...shares), turnCpuMs: median(cpu) };
    if (options.hooks === 'instant') {
      const input = JSON.stringify({ session_id: 'bench', cwd: session.workspace, hook_event_name: 'PreToolUse', tool_name: 'LS', tool_input: { path: '.' } });
      const floors: Array<{ wallMs: number; cpuMs: number }> = [];
      for (let i = 0; i < options.turns * 2; i++) floors.push(await spawnFloor(input));
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
