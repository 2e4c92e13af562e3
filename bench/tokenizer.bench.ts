/**
 * Tokenizer benchmark: Tally's counting path next to plain js-tiktoken, gpt-tokenizer and tiktoken
 * (WASM) on five corpora: real agent text (the message contents of ../shared/trajectories),
 * minified JavaScript, CJK prose, emoji and base64. Each tokenizer's first load and count are
 * timed per corpus in a fresh child process so no one profits from another's warm-up; Tally reads
 * the rank file the build writes (dist/ranks), as the extension does. Each child runs --rounds
 * times (3 unless told), the tokenizers taking turns, and the medians are reported, so that a
 * moment of load on a shared machine does not decide a ratio.
 * Writes bench/results/tokenizer.json (or the file named by --out).
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/tokenizer.bench.ts [trajectories folder] [--out file] [--rounds n]
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'fs';
import { cpus } from 'os';
import { join } from 'path';
import { median } from './median';

type Name = 'tally' | 'js-tiktoken' | 'gpt-tokenizer' | 'tiktoken-wasm';
const NAMES: Name[] = ['tally', 'js-tiktoken', 'gpt-tokenizer', 'tiktoken-wasm'];
const RANK_DIRECTORY = join(__dirname, '..', 'dist', 'ranks');

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

/** Deterministic pseudo-random numbers (a linear congruential generator), so corpora never change. */
function randomInts(seed: number): () => number {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
}

function minifiedJs(): string[] {
  const file = require.resolve('sql.js/dist/sql-wasm.js');
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

function cjkText(): string[] {
  const chars = '的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明社长学习問題解決日本語の文章とテキスト東京大阪漢字';
  const punct = '，。、！？；：「」（）';
  const next = randomInts(3);
  return Array.from({ length: 400 }, () => {
    let line = '';
    for (let i = 0; i < 120; i++) line += next() % 9 === 0 ? punct[next() % punct.length] : chars[next() % chars.length];
    return line;
  });
}

function emojiText(): string[] {
  const emoji = ['😀', '👍🏽', '🎉', '❤️', '👩‍💻', '🚀', '✅', '🔥', '👨‍👩‍👧‍👦', '🇯🇵', '🤖', '📦', '⚠️', '🧪', '💡'];
  const next = randomInts(5);
  return Array.from({ length: 400 }, () => Array.from({ length: 60 }, () => emoji[next() % emoji.length] + (next() % 4 === 0 ? ' ' : '')).join(''));
}

function base64Text(): string[] {
  return Array.from({ length: 300 }, (_, i) => {
    let bytes = Buffer.alloc(0);
    for (let k = 0; bytes.length < 3000; k++) bytes = Buffer.concat([bytes, createHash('sha256').update(`${i}:${k}`).digest()]);
    return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\n');
  });
}

/** In a child: load one tokenizer, count `texts` once cold and once more, report timings. */
function child(name: Name, file: string): void {
  const texts: string[] = JSON.parse(readFileSync(file, 'utf8'));
  const t0 = performance.now();
  let count: (s: string) => number;
  let free = () => undefined as void;
  if (name === 'tally') {
    const { useRankSource } = require('../src/core/accounting/rankLoader');
    const { nodeRankSource } = require('../src/node/accounting/rankSource');
    useRankSource(nodeRankSource(RANK_DIRECTORY));
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
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? args.splice(outAt, 2)[1] : join(__dirname, 'results', 'tokenizer.json');
  const roundsAt = args.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Math.max(1, Number(args.splice(roundsAt, 2)[1]) || 1) : 3;
  if (!existsSync(join(RANK_DIRECTORY, 'o200k_base.ranks.br'))) throw new Error(`no rank file in ${RANK_DIRECTORY}: run node scripts/build.mjs first`);
  const folder = args[0] ?? join(__dirname, '..', '..', 'shared', 'trajectories');
  const corpora: Record<string, string[]> = { 'agent text': agentText(folder), 'minified JS': minifiedJs(), CJK: cjkText(), emoji: emojiText(), base64: base64Text() };
  const file = join(__dirname, 'results', '.tokenizer-input.json');
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  const report = [];
  console.log('corpus        tokenizer        load+first ms     tokens  cold MB/s  warm MB/s');
  for (const [corpus, texts] of Object.entries(corpora)) {
    const bytes = texts.reduce((n, s) => n + Buffer.byteLength(s), 0);
    writeFileSync(file, JSON.stringify(texts));
    const runs = new Map<Name, Array<{ loadMs: number; firstCount: number; tokens: number; coldMs: number; warmMs: number }>>(NAMES.map((n) => [n, []]));
    for (let round = 0; round < rounds; round++) {
      for (const name of NAMES) {
        const stdout = execFileSync(process.execPath, ['-r', join(__dirname, '..', 'test', 'register.cjs'), __filename, '--child', name, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
        runs.get(name)!.push(JSON.parse(stdout));
      }
    }
    const results = NAMES.map((name) => {
      const all = runs.get(name)!;
      if (new Set(all.map((r) => r.tokens)).size !== 1) throw new Error(`${name} counted ${corpus} differently from one run to the next`);
      const r = { name, loadMs: median(all.map((x) => x.loadMs)), firstCount: all[0].firstCount, tokens: all[0].tokens, coldMs: median(all.map((x) => x.coldMs)), warmMs: median(all.map((x) => x.warmMs)) };
      return { ...r, runs: all.length, mbPerSecCold: bytes / 1e6 / (r.coldMs / 1000), mbPerSecWarm: bytes / 1e6 / (r.warmMs / 1000) };
    });
    if (new Set(results.map((r) => r.tokens)).size !== 1) throw new Error(`the tokenizers disagree on ${corpus}: ${results.map((r) => `${r.name} ${r.tokens}`).join(', ')}`);
    for (const r of results) {
      console.log(`${corpus.padEnd(13)} ${r.name.padEnd(16)} ${r.loadMs.toFixed(0).padStart(13)}  ${String(r.tokens).padStart(9)}  ${r.mbPerSecCold.toFixed(2).padStart(9)}  ${r.mbPerSecWarm.toFixed(2).padStart(9)}`);
    }
    const tally = results.find((r) => r.name === 'tally')!;
    const gpt = results.find((r) => r.name === 'gpt-tokenizer')!;
    const vsGptCold = tally.mbPerSecCold / gpt.mbPerSecCold;
    console.log(`${corpus.padEnd(13)} ${(bytes / 1e6).toFixed(2)} MB; Tally cold / gpt-tokenizer cold: ${vsGptCold.toFixed(2)}×; first count ${tally.loadMs.toFixed(0)} vs ${gpt.loadMs.toFixed(0)} ms`);
    report.push({ corpus, texts: texts.length, bytes, vsGptCold, results });
  }
  require('fs').rmSync(file);
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), rounds, machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version }, corpora: report }, null, 2) + '\n');
}

main();
