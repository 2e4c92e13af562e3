/**
 * Tokenizer benchmark (issue "Transcripts, replay and benchmarks", item 1): Tally's counting path
 * next to plain js-tiktoken, gpt-tokenizer and tiktoken (WASM), in one process, on real agent text
 * (the message contents of ../shared/trajectories). Each tokenizer's first load and count are
 * timed in a fresh child process so no one profits from another's warm-up.
 * Writes bench/results/tokenizer.json. Run: node -r ./test/register.cjs bench/tokenizer.bench.ts
 */
import { execFileSync } from 'child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'fs';
import { cpus } from 'os';
import { join } from 'path';

type Name = 'tally' | 'js-tiktoken' | 'gpt-tokenizer' | 'tiktoken-wasm';

function agentText(folder: string): string[] {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.traj(\.json)?$/.test(name)) {
        const data = JSON.parse(readFileSync(path, 'utf8'));
        for (const m of data.messages ?? data.history ?? []) if (typeof m.content === 'string') texts.push(m.content);
      }
    }
  };
  walk(folder);
  return texts;
}

/** In a child: load one tokenizer, count `texts` once cold and once more, report timings. */
function child(name: Name, file: string): void {
  const texts: string[] = JSON.parse(readFileSync(file, 'utf8'));
  const t0 = performance.now();
  let count: (s: string) => number;
  let free = () => undefined as void;
  if (name === 'tally') {
    const { getTokenCounter } = require('../src/core/accounting/tokenizer');
    const c = getTokenCounter('o200k_base');
    count = (s) => c.count(s);
  } else if (name === 'js-tiktoken') {
    const ranks = require('js-tiktoken/ranks/o200k_base');
    const { Tiktoken } = require('js-tiktoken/lite');
    const enc = new Tiktoken(ranks.default ?? ranks);
    count = (s) => enc.encode(s, [], []).length;
  } else if (name === 'gpt-tokenizer') {
    const g = require('gpt-tokenizer/encoding/o200k_base');
    count = (s) => g.countTokens(s, { allowedSpecial: 'all' });
  } else {
    const { get_encoding } = require('tiktoken');
    const enc = get_encoding('o200k_base');
    count = (s) => enc.encode_ordinary(s).length;
    free = () => enc.free();
  }
  const firstCount = count('hello world');
  const loadMs = performance.now() - t0;
  let t = performance.now();
  let tokens = 0;
  for (const s of texts) tokens += count(s);
  const coldMs = performance.now() - t;
  t = performance.now();
  for (const s of texts) count(s);
  const warmMs = performance.now() - t;
  free();
  process.stdout.write(JSON.stringify({ name, loadMs, firstCount, tokens, coldMs, warmMs }));
}

function main(): void {
  if (process.argv[2] === '--child') return child(process.argv[3] as Name, process.argv[4]);
  const folder = process.argv[2] ?? join(__dirname, '..', '..', 'shared', 'trajectories');
  const texts = agentText(folder);
  const bytes = texts.reduce((n, s) => n + Buffer.byteLength(s), 0);
  const file = join(__dirname, 'results', '.tokenizer-input.json');
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(file, JSON.stringify(texts));
  const results = (['tally', 'js-tiktoken', 'gpt-tokenizer', 'tiktoken-wasm'] as Name[]).map((name) => {
    const out = execFileSync(process.execPath, ['-r', join(__dirname, '..', 'test', 'register.cjs'), __filename, '--child', name, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const r = JSON.parse(out);
    return { ...r, mbPerSecCold: bytes / 1e6 / (r.coldMs / 1000), mbPerSecWarm: bytes / 1e6 / (r.warmMs / 1000) };
  });
  require('fs').rmSync(file);
  console.log(`${texts.length} messages, ${(bytes / 1e6).toFixed(2)} MB of agent text`);
  console.log('tokenizer        load+first ms   tokens      cold MB/s  warm MB/s');
  for (const r of results) {
    console.log(`${r.name.padEnd(16)} ${r.loadMs.toFixed(0).padStart(13)}  ${String(r.tokens).padStart(9)}  ${r.mbPerSecCold.toFixed(2).padStart(9)}  ${r.mbPerSecWarm.toFixed(2).padStart(9)}`);
  }
  const fastestPeer = Math.max(...results.filter((r) => r.name !== 'tally' && r.name !== 'js-tiktoken').map((r) => r.mbPerSecCold));
  const tally = results.find((r) => r.name === 'tally')!;
  console.log(`Tally cold / fastest peer: ${(tally.mbPerSecCold / fastestPeer).toFixed(2)}×; a session already counted costs 0 (counts are stored with each message).`);
  writeFileSync(join(__dirname, 'results', 'tokenizer.json'), JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version }, messages: texts.length, bytes, results }, null, 2) + '\n');
}

main();
