/**
 * Self time by function in a .cpuprofile, heaviest first: where a measured turn's CPU goes. With
 * --turns, only the samples inside the turns (intent → turn_end) that turnRun.ts wrote beside it.
 * With --inclusive, each function's time with its callees (every function on a sample's stack, once).
 * With --longest, only the longest stretch of samples without an idle one (inside the turns with
 * --turns): what held the event loop longest.
 * Run: node -r ./test/register.cjs bench/realPath/profileSummary.ts <file.cpuprofile> [rows] [--turns] [--inclusive] [--longest]
 */
import { readFileSync } from 'fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile;
const rows = Number(process.argv.slice(3).find((a) => !a.startsWith('--')) ?? 40);
let windows = process.argv.includes('--turns') ? (JSON.parse(readFileSync(`${process.argv[2]}.turns.json`, 'utf8')) as Array<[number, number]>) : undefined;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
if (process.argv.includes('--longest')) windows = [longestBusyStretch(windows)];

/** The longest run of consecutive samples none of which is idle, inside `within` if given, as [from, to] µs. */
function longestBusyStretch(within: Array<[number, number]> | undefined): [number, number] {
  let best: [number, number] = [0, 0];
  let from: number | undefined;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const inside = !within || within.some(([a, b]) => at >= a && at <= b);
    const idle = byId.get(id)!.callFrame.functionName === '(idle)';
    if (idle || !inside) {
      if (from !== undefined && at - from > best[1] - best[0]) best = [from, at];
      from = undefined;
    } else from ??= at;
  });
  console.log(`longest busy stretch ${((best[1] - best[0]) / 1000).toFixed(1)} ms`);
  return best;
}
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const inclusive = process.argv.includes('--inclusive');
const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
let total = 0;
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const node = byId.get(id)!;
  const us = profile.timeDeltas[i] ?? 0;
  at += us;
  if (windows && !windows.some(([from, to]) => at >= from && at <= to)) return;
  const keys = new Set([keyOf(node)]);
  if (inclusive) for (let up = parentOf.get(id); up !== undefined; up = parentOf.get(up)) keys.add(keyOf(byId.get(up)!));
  for (const key of keys) self.set(key, (self.get(key) ?? 0) + us);
  total += us;
});
console.log(`total ${(total / 1000).toFixed(1)} ms`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
