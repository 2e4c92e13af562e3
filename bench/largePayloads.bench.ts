/**
 * Large payloads on the real path. Host: the built extension (bench/realPath/startExtension.ts)
 * answers turns whose reply carries a 22 MB thinking block (past the 4 MB of thinking kept of one
 * reply: main before ended the reply with an error; now the first 4 MB and the answer are kept), a
 * 4,000,000-character thinking block (kept whole) and a 1.2 MB markdown answer
 * of link reference definitions (bench/largePayloads/payloadModel.ts), and a one-line answer as the
 * control (what the same steps cost without a payload: a fresh chat's first state has a cost of its own); reported: the longest
 * event-loop block of the turn and of the whole state a reloaded chat is sent, and the bytes posted
 * to the chat. Then the compaction preview of a 10,000-message session (the inspector's Preview
 * compaction intent): its block. Chat webview: each build's recorded posts replayed into its own
 * chat bundle in headless Chromium (chatReplay.ts): longest task, time to the entry's first frame.
 * Each (build, round) runs in a fresh process (hostRun.ts); with --old, the other build runs in
 * every round too, the order alternating round by round. Writes bench/results/largePayloads.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/largePayloads.bench.ts [--old /tmp/main-s7] [--rounds 3] [--preview-messages 10000]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { startHarnessAt } from '../test/webview/harness';
import { replayChat, type RecordedChat, type ReplayFigures } from './largePayloads/chatReplay';
import { seedPreviewSession, type HostRunOptions, type HostRunResult } from './largePayloads/hostRun';
import type { PayloadAnswer } from './largePayloads/payloadModel';
import { median } from './median';
import { REPOSITORY_ROOT } from './realPath/startExtension';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function hostRun(options: HostRunOptions): HostRunResult {
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), join(__dirname, 'largePayloads', 'hostRun.ts'), JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, timeout: 20 * 60_000 });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as HostRunResult;
}

/** 'small' first: the control, what a turn and a reload cost without a large payload. */
const PAYLOADS: PayloadAnswer[] = ['small', 'thinking', 'thinking4', 'links'];
const round1 = (n: number) => Math.round(n * 10) / 10;
const medianOf = (values: number[]) => round1(median(values));

async function main() {
  const oldRoot = flag('old');
  const rounds = Number(flag('rounds') ?? 3);
  const previewMessages = Number(flag('preview-messages') ?? 10_000);
  const builds = [{ name: 'new', root: REPOSITORY_ROOT }, ...(oldRoot ? [{ name: 'old', root: oldRoot }] : [])];
  const loadBefore = loadavg();
  const hosts = new Map<string, HostRunResult[]>(builds.map((b) => [b.name, []]));
  const webviews = new Map<string, Array<Record<string, ReplayFigures>>>(builds.map((b) => [b.name, []]));
  const seeded = await seedPreviewSession(previewMessages);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const postsTo = mkdtempSync(join(tmpdir(), `tally-bench-payload-posts-${build.name}-`));
        try {
          const host = hostRun({ extensionRoot: build.root, payloads: PAYLOADS, postsTo });
          const preview = hostRun({ extensionRoot: build.root, payloads: [], previewMessages, seededStorage: seeded });
          hosts.get(build.name)!.push({ ...host, preview: preview.preview });
          const harness = await startHarnessAt(build.root);
          const replays: Record<string, ReplayFigures> = {};
          try {
            for (const payload of PAYLOADS) replays[payload] = await replayChat(harness, JSON.parse(readFileSync(join(postsTo, `${payload}.json`), 'utf8')) as RecordedChat);
          } finally {
            await harness.close();
          }
          webviews.get(build.name)!.push(replays);
          console.error(`${build.name}, round ${round + 1}: host ${host.payloads.map((p) => `${p.payload} ${p.turnBlockMs}/${p.reloadBlockMs} ms`).join(', ')}; preview ${preview.preview?.blockMs} ms; chat ${PAYLOADS.map((p) => `${p} ${replays[p].stream.longestTaskMs}/${replays[p].expand?.longestTaskMs ?? '-'}/${replays[p].reload.longestTaskMs} ms`).join(', ')}`);
        } finally {
          rmSync(postsTo, { recursive: true, force: true });
        }
      }
    }
  } finally {
    rmSync(seeded, { recursive: true, force: true });
  }
  const rows = builds.flatMap((build) => {
    const runs = hosts.get(build.name)!;
    const pages = webviews.get(build.name)!;
    const payloadRows = PAYLOADS.map((payload) => {
      const host = runs.map((r) => r.payloads.find((p) => p.payload === payload)!);
      const page = pages.map((p) => p[payload]);
      const expand = page.map((p) => p.expand).filter((e) => e !== undefined);
      return {
        build: build.name,
        payload,
        hostTurnBlockMs: medianOf(host.map((h) => h.turnBlockMs)),
        hostTurnBlockCpuMs: medianOf(host.map((h) => h.turnBlockCpuMs)),
        hostReloadBlockMs: medianOf(host.map((h) => h.reloadBlockMs)),
        chatPostedKB: Math.round(median(host.map((h) => h.turnPosts.bytes)) / 1024),
        chatPosts: median(host.map((h) => h.turnPosts.posts)),
        largestPostKB: Math.round(median(host.map((h) => Math.max(h.turnPosts.largestBytes, h.reloadPosts.largestBytes))) / 1024),
        chatStreamLongestTaskMs: medianOf(page.map((p) => p.stream.longestTaskMs)),
        chatStreamFirstPaintMs: medianOf(page.map((p) => p.stream.firstPaintMs ?? NaN)),
        chatExpandLongestTaskMs: expand.length ? medianOf(expand.map((e) => e.longestTaskMs)) : null,
        chatReloadLongestTaskMs: medianOf(page.map((p) => p.reload.longestTaskMs)),
        chatReloadFirstPaintMs: medianOf(page.map((p) => p.reload.firstPaintMs ?? NaN)),
        // Each round's figures: at a high load the lowest is the closest to the work itself.
        perRound: {
          hostTurnBlockMs: host.map((h) => round1(h.turnBlockMs)),
          chatStreamLongestTaskMs: page.map((p) => p.stream.longestTaskMs),
          chatReloadLongestTaskMs: page.map((p) => p.reload.longestTaskMs),
        },
      };
    });
    const preview = runs.map((r) => r.preview!);
    return [...payloadRows, { build: build.name, payload: `preview ${previewMessages}`, hostTurnBlockMs: medianOf(preview.map((p) => p.blockMs)), hostTurnBlockCpuMs: medianOf(preview.map((p) => p.blockCpuMs)), previewMs: medianOf(preview.map((p) => p.ms)), largestPostKB: Math.round(median(preview.map((p) => p.bytes)) / 1024), perRound: { hostTurnBlockMs: preview.map((p) => round1(p.blockMs)) } }];
  });
  const result = {
    date: new Date().toISOString(),
    load: { before: loadBefore.map(round1), after: loadavg().map(round1) },
    builds: Object.fromEntries(builds.map((b) => [b.name, b.root])),
    rounds,
    measures: {
      hostTurnBlockMs: 'longest host event-loop block from the send intent until the chat has posted the ended turn (for the preview: from the intent until the preview is posted)',
      hostTurnBlockCpuMs: 'the same block in the host process’s CPU time (main’s bench/blockProbe.ts): waiting for a CPU does not lengthen it',
      hostReloadBlockMs: 'longest host block from a reloaded chat’s ready until its whole state is posted',
      chatStreamLongestTaskMs: 'the chat webview’s longest task (0: none over 50 ms) while the turn’s posts are delivered; FirstPaintMs: to the first frame showing the answer',
      chatExpandLongestTaskMs: 'longest task when the user opens the thinking',
      chatReloadLongestTaskMs: 'longest task of a fresh chat given the whole state; FirstPaintMs: to the first frame showing the answer',
    },
    rows,
    targets: { longestBlockMs: 50 },
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'largePayloads.json'), JSON.stringify(result, null, 2) + '\n');
  console.table(rows.map(({ perRound: _perRound, ...row }) => row));
  console.log(`load ${result.load.before.join(' ')} → ${result.load.after.join(' ')}`);
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
