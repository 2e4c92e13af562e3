/** What the `tally exec` end-to-end tests share: a real folder and store per test, runs of exec, and the stored session as `tally inspect` prints it. */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { renderStoredSession } from '../../../src/cli/storedSession';
import { openStore } from '../../../src/node/store';

export const RECORDINGS = join(__dirname, '..', 'core', 'providers', 'conformance', 'recordings');
export const KEY = 'sk-exec-test';

export interface Run {
  code: number;
  lines: Array<Record<string, any>>;
  stderr: string;
}

/** Registers the hooks that give each test its folder and store, and closes the servers a test started. */
export function useExecRuns() {
  const state = { work: '', storeFolder: '' };
  const servers: Array<{ stop?: () => Promise<void>; close?: () => Promise<void> }> = [];

  beforeEach(() => {
    state.work = mkdtempSync(join(tmpdir(), 'tally-exec-work-'));
    state.storeFolder = mkdtempSync(join(tmpdir(), 'tally-exec-store-'));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await (server.stop ?? server.close)!.call(server);
    rmSync(state.work, { recursive: true, force: true });
    rmSync(state.storeFolder, { recursive: true, force: true });
  });

  async function execPlain(argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const args = parseExecArgs([...argv, '--store', state.storeFolder, '--cd', state.work], state.work);
    const code = await runExec(args, { env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  }

  async function exec(argv: string[], env: Record<string, string>): Promise<Run> {
    const { code, stdout, stderr } = await execPlain([...argv, '--json'], env);
    return { code, lines: stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)), stderr };
  }

  async function inspect(sessionId: string): Promise<string> {
    const store = await openStore(state.storeFolder);
    try {
      return await renderStoredSession(store, sessionId);
    } finally {
      await store.close();
    }
  }

  return {
    get work() {
      return state.work;
    },
    get storeFolder() {
      return state.storeFolder;
    },
    servers,
    execPlain,
    exec,
    inspect,
  };
}
