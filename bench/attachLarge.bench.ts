/**
 * Attaching a large file, as the chat does it: the file read through the Node workspace (what the
 * VS Code one does for a saved file), the chip prepared (scanned, stored whole past the inline
 * limit, its preview counted), the chip's figure and the cost line, then the send's second read.
 * For each step: its time, the process's CPU time (all threads) and the longest the event loop went
 * without a turn (a block probe: setImmediate ticks; under load it also holds the time the process
 * waited for a core). Run: node -r ./test/register.cjs bench/attachLarge.bench.ts [MB] [--rounds n]
 */
import { withBlockProbe } from './blockProbe';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import { windowFigures } from '../src/core/accounting/windowFigures';
import type { AttachmentInfo } from '../src/core/model/message';
import { ContextSession } from '../src/core/context/contextSession';
import { withSettings } from '../src/core/settings';
import { AttachmentDraft, type AttachmentSources, type DraftSession } from '../src/host/chat/attachmentDraft';
import { openStore } from '../src/node/store';
import { NodeWorkspace } from '../src/node/tools/nodeWorkspace';
import type { AttachTarget } from '../src/protocol/attachments';
import '../src/node/usePlatform';

/** Reads files as WorkspaceAttachments does (same port, same limit). */
class FileSources implements AttachmentSources {
  constructor(private readonly workspace: NodeWorkspace) {}
  async read(target: AttachTarget): Promise<{ info: AttachmentInfo; content: Uint8Array }> {
    if (target.kind !== 'file') throw new Error('files only');
    const resolved = await this.workspace.resolve(target.path, { mustExist: true });
    const { bytes } = await this.workspace.readFile(resolved, 32 * 1024 * 1024);
    return { info: { kind: 'file', label: target.path, path: target.path }, content: bytes };
  }
  async complete(): Promise<never[]> {
    return [];
  }
  async dropped(): Promise<AttachTarget> {
    throw new Error('files only');
  }
}

async function probe<T>(work: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; blockMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { blockMs } = await withBlockProbe(work);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms: Math.round(ms * 10) / 10, cpuMs: Math.round((used.user + used.system) / 100) / 10, blockMs };
}

/** A log-like text: numbered lines of mixed words and figures. */
function logText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `2026-11-26T10:${String(i % 60).padStart(2, '0')}:00Z build step ${i} compiled src/module${i % 997}.ts in ${(i * 7) % 1000} ms, ${i % 13} warnings`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--rounds');
  const rounds = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
  const megabytes = Number(args[0] ?? 20);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-bench-attach-')));
  const results = [];
  try {
    writeFileSync(join(root, 'build.log'), logText(megabytes * 1024 * 1024));
    const settings = withSettings({ contextWindow: 200_000, maxOutputTokens: 8_000 });
    const counter = getTokenCounter();
    for (let round = 0; round < rounds; round++) {
      const storage = mkdtempSync(join(tmpdir(), 'tally-bench-attach-store-'));
      const store = await openStore(storage, { debounceMs: 5 });
      try {
        const sessionId = (await store.createSession({ title: 'attach' })).id;
        const contextSession = await ContextSession.open({ store, sessionId, settings, counter });
        const session: DraftSession = { sessionId, settings, messages: contextSession.messages, count: contextSession.count, store, figures: () => windowFigures(contextSession.measure()) };
        const draft = new AttachmentDraft(new FileSources(new NodeWorkspace({ folders: [root], trusted: true })));
        const attach = await probe(() => draft.add(session, { kind: 'file', path: 'build.log' }));
        const chip = await probe(() => {
          draft.views(session);
          draft.cost(session);
        });
        const send = await probe(() => draft.takeForSend(session));
        results.push({ round, attach, chip, send });
      } finally {
        await store.close();
        rmSync(storage, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ megabytes, at: new Date().toISOString(), load: loadavg().map((l) => Math.round(l * 10) / 10), results }, null, 2));
}

void main();
