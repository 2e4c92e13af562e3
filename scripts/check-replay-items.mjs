#!/usr/bin/env node
// Checks the output of `tally replay --json`: for every request of every run, the items' tokens
// add up exactly to the request's total. Prints one line per run and exits 1 on any mismatch.
//   node dist/cli.js replay FILE… --json out.json && node scripts/check-replay-items.mjs out.json
// The file is read a line at a time: `tally replay --json` writes each request on one line, and a
// long run's file is larger than the longest string V8 can make.
import { createReadStream } from 'fs';
import { createInterface } from 'readline';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/check-replay-items.mjs OUT.json');
  process.exit(2);
}

/** The runs of the file, each with its label, policy and requests, read line by line. */
async function* runsOf(path) {
  let run;
  let inRequests = false;
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
    if (line.startsWith('  "totals"')) return;
    const member = /^ {6}"(label|policy)": (".*"),?$/.exec(line);
    if (member) {
      run ??= { requests: [] };
      run[member[1]] = JSON.parse(member[2]);
    } else if (line === '      "requestsDetail": [') inRequests = true;
    else if (line === '      "requestsDetail": []') run ??= { requests: [] };
    else if (inRequests && line.startsWith('        {')) run.requests.push(JSON.parse(line.replace(/,$/, '')));
    else if (inRequests && line.startsWith('      ]')) inRequests = false;
    else if (/^ {4}\}/.test(line) && run) {
      yield run;
      run = undefined;
    } else if (inRequests) throw new Error(`${path}: not written by this version of tally replay --json (a request spans lines)`);
  }
}

let runs = 0;
let requests = 0;
let mismatched = 0;
let items = 0;
for await (const run of runsOf(file)) {
  runs++;
  let bad = 0;
  for (const request of run.requests) {
    const list = request.items ?? [];
    items += list.length;
    const sum = list.reduce((n, item) => n + item.tokens, 0);
    if (list.length === 0 || sum !== request.totalTokens) {
      bad++;
      if (bad <= 3) console.error(`${run.label} (${run.policy}) request ${request.index}: items ${sum} ≠ total ${request.totalTokens}`);
    }
  }
  requests += run.requests.length;
  mismatched += bad;
  console.log(`${run.label.padEnd(48)} ${run.policy.padEnd(8)} ${String(run.requests.length).padStart(5)} requests  ${bad === 0 ? 'all add up' : `${bad} do not add up`}`);
}
console.log(`${runs} runs, ${requests} requests, ${items} items: ${mismatched === 0 ? 'every request\'s items add up to its total' : `${mismatched} requests do not add up`}`);
process.exit(mismatched === 0 ? 0 : 1);
