/**
 * Self time by function (and by bundle file) in a .cpuprofile, heaviest first: where a measured
 * turn's CPU goes. Run: node -r ./test/register.cjs bench/realPath/profileSummary.ts <file.cpuprofile> [rows]
 */
import { readFileSync } from 'fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile;
const rows = Number(process.argv[3] ?? 40);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id)!;
  const us = profile.timeDeltas[i] ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + us);
  total += us;
});
console.log(`total ${(total / 1000).toFixed(1)} ms`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
