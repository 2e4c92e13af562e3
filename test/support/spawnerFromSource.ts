import { readFileSync } from 'fs';
import { join } from 'path';
import type { SpawnerCommand } from '../../src/node/spawner/spawnerClient';

/** Starts the spawner from its TypeScript source, as the built extension starts dist/spawner.js. */
export function spawnerFromSource(): SpawnerCommand {
  return { file: process.execPath, args: ['-r', join(__dirname, '..', 'register.cjs'), join(__dirname, '..', '..', 'src', 'node', 'spawner', 'spawnerMain.ts')] };
}

/** Whether a process is gone (or a zombie nobody reaps yet): Linux's /proc. */
export function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

function described(pid: number): string {
  try {
    return `${pid} (${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()}; ${readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ').slice(2, 5).join(' ')})`;
  } catch {
    return String(pid);
  }
}

/** Resolves once every pid is gone; rejects after `limitMs` naming those still there. Polls /proc: another process's end sends no event. */
export async function waitGone(pids: number[], limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (pids.some((pid) => !processGone(pid))) {
    if (Date.now() > deadline) throw new Error(`still running: ${pids.filter((pid) => !processGone(pid)).map(described).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
