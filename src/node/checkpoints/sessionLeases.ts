import { promises as fsp } from 'fs';
import { join } from 'path';

/** How often an open window renews the leases of the sessions it has open. */
export const LEASE_RENEW_MS = 60_000;
/** A lease not renewed for this long is a closed or killed window's: its session may be pruned again. */
export const LEASE_TTL_MS = 5 * LEASE_RENEW_MS;

const SAFE_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The sessions a window has open, said in the checkpoint storage so that no window's pruning
 * removes their checkpoints: a file `leases/<session>~<window>` per open session, its time renewed
 * every minute and removed when the window lets go of it (a killed window's leases expire).
 */
export class SessionLeases {
  private readonly held = new Set<string>();
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly root: string, private readonly windowId: string, private readonly now: () => number = Date.now) {
    if (!SAFE_NAME.test(windowId)) throw new Error('a window id must be a plain name');
  }

  private path(sessionId: string): string {
    return join(this.root, 'leases', `${sessionId}~${this.windowId}`);
  }

  /** This window has the session open: its checkpoints are kept until it lets go (and the lease expires without it). */
  async hold(sessionId: string): Promise<void> {
    if (!SAFE_NAME.test(sessionId)) return;
    this.held.add(sessionId);
    await this.touch(sessionId);
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew(), LEASE_RENEW_MS);
      this.timer.unref?.();
    }
  }

  /** Only these sessions are open in this window now. */
  async holdOnly(sessionIds: readonly string[]): Promise<void> {
    for (const id of [...this.held]) if (!sessionIds.includes(id)) await this.release(id);
    for (const id of sessionIds) if (!this.held.has(id)) await this.hold(id);
  }

  async release(sessionId: string): Promise<void> {
    this.held.delete(sessionId);
    await fsp.rm(this.path(sessionId), { force: true }).catch(() => undefined);
  }

  /** Renews every lease this window holds. */
  async renew(): Promise<void> {
    for (const id of this.held) await this.touch(id);
  }

  private async touch(sessionId: string): Promise<void> {
    const path = this.path(sessionId);
    const at = new Date(this.now());
    await fsp
      .utimes(path, at, at)
      .catch(async () => {
        await fsp.mkdir(join(this.root, 'leases'), { recursive: true });
        await fsp.writeFile(path, '');
        await fsp.utimes(path, at, at);
      })
      .catch(() => undefined); // a lease that cannot be written: pruning may take the session's checkpoints, as before leases
  }

  /** Lets go of every session (the window closes). */
  async dispose(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const id of [...this.held]) await this.release(id);
  }
}

/** The sessions some window holds a fresh lease on. */
export async function leasedSessions(root: string, now: number): Promise<Set<string>> {
  const leased = new Set<string>();
  const dir = join(root, 'leases');
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    const at = name.indexOf('~');
    if (at <= 0) continue;
    const stat = await fsp.stat(join(dir, name)).catch(() => undefined);
    if (stat && now - stat.mtimeMs < LEASE_TTL_MS) leased.add(name.slice(0, at));
    else if (stat) await fsp.rm(join(dir, name), { force: true }).catch(() => undefined);
  }
  return leased;
}
