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
