/**
 * A window reload reopens the session the chat showed, not the one written to last. The session
 * controller runs as in VS Code, with `vscode` the bench's stand-in (bench/realPath/vscodeStub.ts),
 * on a real sql.js store on disk; a reload is a new controller over the same store folder and the
 * same window memory (workspaceState).
 */
import { strict as assert } from 'assert';
import Module from 'module';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import type { SessionStore } from '../../../src/core/ports/sessionStore';
import type { WindowMemory } from '../../../src/lifecycle/shownSessionMemory';
import { createVscodeStub, secretStorage, type StubWorld } from '../../../bench/realPath/vscodeStub';
import { storeFolderPerTest } from '../node/store/fixtures/storeFolder';

const REPOSITORY = resolve(__dirname, '..', '..', '..');
const SETTINGS = { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'test-model', contextWindow: 32_000, maxOutputTokens: 4_000 };

/** Forgets the loaded modules of the VS Code layer, so they bind this test's `vscode` and no later test binds it. */
function forgetVscodeLayer(): void {
  const source = join(REPOSITORY, 'src') + '/';
  const vscodeFree = ['core', 'node', 'protocol', 'host'].map((dir) => `${source}${dir}/`);
  for (const path of Object.keys(require.cache)) if (path.startsWith(source) && !vscodeFree.some((dir) => path.startsWith(dir))) delete require.cache[path];
}

/** workspaceState as VS Code keeps it across reloads of one window. */
function windowMemory(): WindowMemory & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return { values, get: <T>(key: string) => values.get(key) as T | undefined, update: async (key, value) => void values.set(key, value) };
}

describe('a window reload reopens the session the chat showed', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-shown-session-');
  let world: StubWorld;
  let restoreLoader: () => void;
  let workspace: string;

  before(() => {
    forgetVscodeLayer();
    workspace = mkdtempSync(join(tmpdir(), 'tally-shown-session-ws-'));
    world = createVscodeStub({ extensionRoot: REPOSITORY, workspace: [workspace], settings: SETTINGS });
    const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
    const original = loader._load;
    loader._load = function (request, parent, isMain) {
      return request === 'vscode' ? world.vscode : original.call(this, request, parent, isMain);
    };
    restoreLoader = () => (loader._load = original);
  });
  after(() => {
    restoreLoader();
    forgetVscodeLayer();
    rmSync(workspace, { recursive: true, force: true });
  });

  /** A window: the controller over the store folder, with the window's memory. */
  function openWindow(store: SessionStore, folder: string, memory: WindowMemory) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { SessionController } = require('../../../src/lifecycle/sessionController') as typeof import('../../../src/lifecycle/sessionController');
    const { ApiKeys } = require('../../../src/secrets/apiKeys') as typeof import('../../../src/secrets/apiKeys');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const agents = { create: async () => ({ busy: false, on: () => () => undefined, dispose() {}, cancel() {}, send: async () => undefined }), resolveApproval() {} };
    const log = (world.vscode.window as { createOutputChannel(name: string): never }).createOutputChannel('Tally');
    return new SessionController({ get: async () => store, folder }, new ApiKeys(secretStorage() as never), agents as never, log, memory);
  }

  /** "list files", and a fork of it written to after it (so it is the latest). */
  async function seeded(folder: string) {
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const listed = await store.createSession({ title: 'list files', origin: 'chat' });
    const fork = await store.createSession({ title: 'Fork of list files at #0', origin: `fork:${listed.id}/0` });
    await store.updateSession(listed.id, { updatedAt: Date.UTC(2026, 0, 1) });
    await store.updateSession(fork.id, { updatedAt: Date.UTC(2026, 0, 2) });
    await store.close();
    return { listed: listed.id, fork: fork.id };
  }

  it('reopens the session resumed before the reload, not a fork written to later', async () => {
    const folder = stores.folder();
    const { listed, fork } = await seeded(folder);
    const memory = windowMemory();
    const first = openWindow(await stores.openStore(folder, { debounceMs: 1e9 }), folder, memory);
    try {
      assert.equal((await first.showing()).info.id, fork, 'a window that never showed a session opens the latest');
      await first.open(listed); // the user resumes "list files"
      assert.equal(first.shown?.info.id, listed);
    } finally {
      first.dispose();
    }
    const reloaded = openWindow(await stores.openStore(folder, { debounceMs: 1e9 }), folder, memory);
    try {
      assert.equal((await reloaded.showing()).info.id, listed, 'the reload shows the session the chat showed');
      assert.equal((await reloaded.current()).info.id, listed);
    } finally {
      reloaded.dispose();
    }
  });

  it('opens the latest session when the one it showed was deleted, and a new one when there is none', async () => {
    const folder = stores.folder();
    const { listed, fork } = await seeded(folder);
    const memory = windowMemory();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const first = openWindow(store, folder, memory);
    try {
      await first.open(listed);
    } finally {
      first.dispose();
    }
    await store.deleteSession(listed);
    const reloaded = openWindow(store, folder, memory);
    try {
      assert.equal((await reloaded.showing()).info.id, fork);
    } finally {
      reloaded.dispose();
    }
    const empty = mkdtempSync(join(tmpdir(), 'tally-shown-session-empty-'));
    const none = openWindow(await stores.openStore(empty, { debounceMs: 1e9 }), empty, windowMemory());
    try {
      const made = await none.showing();
      assert.equal(made.info.title, 'New session');
    } finally {
      none.dispose();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
