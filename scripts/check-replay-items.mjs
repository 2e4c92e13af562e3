#!/usr/bin/env node
// Checks the output of `tally replay --json`: for every request of every run, the items' tokens
// add up exactly to the request's total. Prints one line per run and exits 1 on any mismatch.
//   node dist/cli.js replay FILE… --json out.json && node scripts/check-replay-items.mjs out.json
import { readFileSync } from 'fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/check-replay-items.mjs OUT.json');
  process.exit(2);
}
const { runs } = JSON.parse(readFileSync(file, 'utf8'));
let requests = 0;
let mismatched = 0;
let items = 0;
for (const run of runs) {
  let bad = 0;
  for (const request of run.requestsDetail) {
    const list = request.items ?? [];
    items += list.length;
    const sum = list.reduce((n, item) => n + item.tokens, 0);
    if (list.length === 0 || sum !== request.totalTokens) {
      bad++;
      if (bad <= 3) console.error(`${run.label} (${run.policy}) request ${request.index}: items ${sum} ≠ total ${request.totalTokens}`);
    }
  }
  requests += run.requestsDetail.length;
  mismatched += bad;
  console.log(`${run.label.padEnd(48)} ${run.policy.padEnd(8)} ${String(run.requestsDetail.length).padStart(5)} requests  ${bad === 0 ? 'all add up' : `${bad} do not add up`}`);
}
console.log(`${runs.length} runs, ${requests} requests, ${items} items: ${mismatched === 0 ? 'every request\'s items add up to its total' : `${mismatched} requests do not add up`}`);
process.exit(mismatched === 0 ? 0 : 1);
