/**
 * What the built extension posts to the chat and the inspector per turn, in bytes, for a session of
 * N messages opened with a given window (a real model's window makes a long session compact in its
 * first turn). Prints, per turn and per view, how many posts, their total and the largest, with the
 * largest post's biggest parts. Sizes, not times: they do not depend on the machine's load.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/postSizes.ts [--messages 10000] [--window 200000] [--turns 3] [--root <extension root>]
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { InstantModelServer } from './modelServer';
import { copyStorage, seedSession, workspaceFolder } from './seedSession';
import { REPOSITORY_ROOT, startExtension } from './startExtension';

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

interface Post {
  at: number;
  bytes: number;
  message: unknown;
}

const kb = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;

/** "12 posts, 1,932 KB, largest 119 KB (blobs 90 KB, blobTitles 27 KB)". */
function summary(posts: readonly Post[]): string {
  if (posts.length === 0) return 'no posts';
  const total = posts.reduce((sum, p) => sum + p.bytes, 0);
  const largest = posts.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const parts = Object.entries(largest.message as Record<string, unknown>)
    .flatMap(([key, value]) => (key === 'state' && value && typeof value === 'object' ? Object.entries(value).map(([k, v]) => [`state.${k}`, v] as const) : [[key, value] as const]))
    .map(([key, value]) => [key, JSON.stringify(value)?.length ?? 0] as const)
    .filter(([, size]) => size > 10_240)
    .sort((a, b) => b[1] - a[1])
    .map(([key, size]) => `${key} ${kb(size)}`);
  return `${posts.length} post${posts.length === 1 ? '' : 's'}, ${kb(total)}, largest ${kb(largest.bytes)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

async function main() {
  const messages = Number(flag('messages', '10000'));
  const contextWindow = Number(flag('window', '200000'));
  const turns = Number(flag('turns', '3'));
  const seeded = mkdtempSync(join(tmpdir(), 'tally-post-sizes-seeded-'));
  const storageDir = mkdtempSync(join(tmpdir(), 'tally-post-sizes-'));
  await seedSession(seeded, messages);
  copyStorage(seeded, storageDir);
  const server = await InstantModelServer.start();
  const ext = await startExtension({ extensionRoot: flag('root', REPOSITORY_ROOT), storageDir, workspace: [workspaceFolder()], settings: { provider: 'openai-compatible', baseUrl: server.url, model: 'bench-model', contextWindow, maxOutputTokens: 8192 } });
  try {
    const chat = ext.showChat();
    await chat.waitForPost('state', (p) => p.message.type === 'state', { timeoutMs: 120_000 });
    const inspector = await ext.openInspector();
    await inspector.waitForPost('state', (p) => p.message.type === 'state', { timeoutMs: 120_000 });
    console.log(`${messages.toLocaleString('en-US')} messages, window ${contextWindow.toLocaleString('en-US')}`);
    for (let turn = 0; turn < turns; turn++) {
      server.script('tool', 'text');
      const mark = performance.now();
      const ended = new Promise<void>((resolve) => {
        const subscription = ext.api.sessions.onAgentEvent((event: { type: string }) => {
          if (event.type !== 'turn_end') return;
          subscription.dispose();
          resolve();
        });
      });
      await chat.send({ type: 'send', text: `turn ${turn}` });
      await ended;
      // The views refresh ~150 ms after the last change: let those posts arrive.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      console.log(`turn ${turn}: chat ${summary(chat.posts.filter((p) => p.at >= mark))}`);
      console.log(`turn ${turn}: inspector ${summary(inspector.posts.filter((p) => p.at >= mark))}`);
    }
  } finally {
    await ext.dispose();
    server.close();
    rmSync(seeded, { recursive: true, force: true });
    rmSync(storageDir, { recursive: true, force: true });
  }
  process.exit(0);
}

void main();
