/** What the `tally exec` hook tests share: a folder per test (work, store, a home of its own, the hook scripts) and a fake OpenAI-compatible server. */
import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

const KEY = 'sk-exec-hooks';

/** Registers the hooks that give each test its folder and server; `exec` runs one task there with `--json`. */
export function useHookRuns(task: string) {
  const state = { root: '', server: undefined as unknown as FakeOpenAIServer };
  beforeEach(async () => {
    state.root = mkdtempSync(join(tmpdir(), 'tally-exec-hooks-'));
    mkdirSync(join(state.root, 'work'));
    mkdirSync(join(state.root, 'home'));
    state.server = await new FakeOpenAIServer({ apiKey: KEY }).start();
  });
  afterEach(async () => {
    await state.server.close();
    rmSync(state.root, { recursive: true, force: true });
  });
  return {
    /** The test's folder: the hook scripts and hooks files go here; `work`, `store` and `home` are inside it. */
    get root() {
      return state.root;
    },
    get work() {
      return join(state.root, 'work');
    },
    get server() {
      return state.server;
    },
    async exec(extra: string[], asked = task) {
      let stdout = '';
      let stderr = '';
      const work = join(state.root, 'work');
      const args = parseExecArgs([asked, '--provider', 'openai-compatible', '--model', 'local', '--base-url', state.server.url, '--sandbox', 'off', '--json', '--store', join(state.root, 'store'), '--cd', work, ...extra], work);
      const code = await runExec(args, { env: { TALLY_API_KEY: KEY, HOME: join(state.root, 'home') }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
      return { code, lines: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>), stderr };
    },
  };
}
