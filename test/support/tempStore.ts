import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { openStore } from '../../src/node/store';
import type { SessionStore } from '../../src/core/ports/sessionStore';

/** A real sql.js store in a fresh temp folder; `dispose` closes it and removes the folder. */
export async function tempStore(prefix = 'tally-test-'): Promise<{ store: SessionStore; folder: string; dispose(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  const store = await openStore(folder, { debounceMs: 5 });
  return {
    store,
    folder,
    async dispose() {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Mocha hooks for a suite whose every test starts with a fresh store holding one session titled
 * `title`: the store and the session's id are read through the accessors, inside a test.
 */
export function sessionPerTest(title: string): { store(): SessionStore; sessionId(): string; folder(): string } {
  let env: Awaited<ReturnType<typeof tempStore>> | undefined;
  let sessionId = '';
  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title })).id;
  });
  afterEach(async () => {
    await env?.dispose();
    env = undefined;
  });
  const current = () => {
    if (!env) throw new Error('the store exists only inside a test');
    return env;
  };
  return { store: () => current().store, sessionId: () => sessionId, folder: () => current().folder };
}
