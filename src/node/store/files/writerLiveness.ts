import { promises as fsp } from 'fs';
import { join } from 'path';

/** How often an open store marks its writer as alive, and when a silent writer counts as gone. */
export const HEARTBEAT_MS = 30_000;
export const STALE_AFTER_MS = 3 * 60_000;

const folderOf = (root: string) => join(root, 'writers');

/**
 * Each open store (one per VS Code window) keeps `writers/<writer>.alive` fresh while it runs and
 * removes it on close, so other windows can tell its files from those of a window that is gone.
 */
export class WriterHeartbeat {
  private timer?: NodeJS.Timeout;

  constructor(private readonly root: string, private readonly writer: string) {}

  private get path(): string {
    return join(folderOf(this.root), `${this.writer}.alive`);
  }

  /** Starts the heartbeat; a failed first write (a full disk) is retried with each beat. */
  async start(): Promise<void> {
    this.timer = setInterval(() => {
      const now = new Date();
      fsp.utimes(this.path, now, now).catch(() => this.write().catch(() => undefined));
    }, HEARTBEAT_MS);
    this.timer.unref();
    await this.write();
  }

  private async write(): Promise<void> {
    await fsp.mkdir(folderOf(this.root), { recursive: true });
    await fsp.writeFile(this.path, JSON.stringify({ pid: process.pid }));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await fsp.rm(this.path, { force: true });
  }
}

/** Writers whose heartbeat is fresh: their files must not be touched by anyone else. */
export async function liveWriters(root: string, now: number): Promise<Set<string>> {
  const live = new Set<string>();
  for (const name of await fsp.readdir(folderOf(root)).catch(() => [] as string[])) {
    if (!name.endsWith('.alive')) continue;
    const stat = await fsp.stat(join(folderOf(root), name)).catch(() => undefined);
    if (stat && now - stat.mtimeMs < STALE_AFTER_MS) live.add(name.slice(0, -'.alive'.length));
  }
  return live;
}

/** Heartbeat files of writers that died without closing (a killed window): gone all the same. */
export async function removeStaleHeartbeats(root: string, now: number): Promise<void> {
  for (const name of await fsp.readdir(folderOf(root)).catch(() => [] as string[])) {
    const path = join(folderOf(root), name);
    const stat = await fsp.stat(path).catch(() => undefined);
    if (stat && now - stat.mtimeMs >= STALE_AFTER_MS) await fsp.rm(path, { force: true });
  }
}
