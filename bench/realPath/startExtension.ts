/**
 * Runs the built extension (dist/extension.js) in this Node process the way VS Code drives it, for
 * benchmarks of the paths a user waits on. `vscode` is a stand-in (vscodeStub.ts) that implements
 * what Tally touches and throws on anything else; webviews are recorders (fakeWebview.ts).
 *
 *   const ext = await startExtension({ storageDir, workspace: [folder], settings: { provider: 'openai-compatible', baseUrl, model: 'bench', contextWindow: 20_000_000 } });
 *   const chat = ext.showChat();                       // resolveWebviewView + the webview's `ready`
 *   await chat.waitForPost('chat state', (p) => p.message.type === 'state');
 *   const inspector = await ext.openInspector();       // tally.openInspector + the panel's `ready`
 *   await inspector.waitForPost('inspector state', (p) => p.message.type === 'state');
 *   await chat.send({ type: 'send', text: 'List the files.' });   // resolves when the turn is over
 *   ext.api.sessions.onAgentEvent((e) => …);          // the TallyApi activate() returns
 *   await ext.dispose();                               // the store's final flush runs here
 *
 * Options: `storageDir` is the globalStorageUri (the store lives in `<storageDir>/store`; seed it
 * before starting, see seedSession.ts), `extensionRoot` the folder with package.json and dist/
 * (default: this repository; point it at an older build to compare), `settings` the user's
 * `tally.*` settings. Every wait is bounded and names what did not come.
 * One extension per process: the `vscode` module is bound when dist/extension.js is first required.
 */
import Module from 'module';
import { join, resolve } from 'path';
import type { TallyApi } from '../../src/extension';
import { FakeWebview, FakeWebviewView } from './fakeWebview';
import { Uri } from './vscodeClasses';
import { createVscodeStub, secretStorage, type StubWorld } from './vscodeStub';

export interface StartOptions {
  storageDir: string;
  workspace: string[];
  settings: Record<string, unknown>;
  extensionRoot?: string;
  trusted?: boolean;
}

export interface RunningExtension {
  api: TallyApi;
  world: StubWorld;
  /** Time to require dist/extension.js and to run activate(), ms. */
  requireMs: number;
  activateMs: number;
  /** Resolves the chat view as VS Code does when it becomes visible, then sends the webview's `ready`. */
  showChat(): FakeWebview;
  /** Runs tally.openInspector and sends the panel's `ready`; the panel's webview. */
  openInspector(): Promise<FakeWebview>;
  dispose(): Promise<void>;
}

export const REPOSITORY_ROOT = resolve(__dirname, '..', '..');
let started = false;

/** A context member the extension reads that the bench did not provide fails loudly. */
function strictContext<T extends object>(members: T): T {
  return new Proxy(members, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || key in target || key === 'then') return Reflect.get(target, key, receiver);
      throw new Error(`vscode stub: ExtensionContext.${String(key)} is not implemented; add it to bench/realPath/startExtension.ts`);
    },
  });
}

/** globalState and workspaceState as VS Code keeps them for one run: in memory, starting empty. */
function memoryMemento() {
  const values = new Map<string, unknown>();
  return {
    keys: () => [...values.keys()],
    get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => { if (value === undefined) values.delete(key); else values.set(key, value); },
    setKeysForSync: () => undefined,
  };
}

export async function startExtension(options: StartOptions): Promise<RunningExtension> {
  if (started) throw new Error('startExtension: one extension per process (the vscode stand-in is bound at the first require)');
  started = true;
  const extensionRoot = resolve(options.extensionRoot ?? REPOSITORY_ROOT);
  const world = createVscodeStub({ extensionRoot, workspace: options.workspace, settings: options.settings, trusted: options.trusted });
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = function (request, parent, isMain) {
    return request === 'vscode' ? world.vscode : original.call(this, request, parent, isMain);
  };

  // VS Code's extension host wraps the global fetch for its proxy support before any extension
  // loads (patchGlobalFetch in its proxy resolver reads globalThis.fetch), which loads Node's HTTP
  // client then. Read it here too, so no turn is charged a load the real host has already paid.
  void globalThis.fetch;
  const requireStarted = performance.now();
  const extension = require(join(extensionRoot, 'dist', 'extension.js')) as { activate(context: unknown): TallyApi; deactivate?(): unknown };
  const requireMs = performance.now() - requireStarted;
  const subscriptions: Array<{ dispose(): unknown }> = [];
  const context = strictContext({
    subscriptions,
    secrets: secretStorage(),
    extensionUri: Uri.file(extensionRoot),
    extensionPath: extensionRoot,
    globalStorageUri: Uri.file(options.storageDir),
    logUri: Uri.file(join(options.storageDir, 'logs')),
    extensionMode: 1,
    globalState: memoryMemento(),
    workspaceState: memoryMemento(),
  });
  const activateStarted = performance.now();
  const api = extension.activate(context);
  const activateMs = performance.now() - activateStarted;

  let chat: FakeWebview | undefined;
  return {
    api,
    world,
    requireMs,
    activateMs,
    showChat() {
      if (chat) return chat;
      const provider = world.viewProviders.get('tally.chat');
      if (!provider) throw new Error('the extension registered no provider for the chat view (tally.chat)');
      const webview = new FakeWebview();
      const view = new FakeWebviewView('tally.chat', webview);
      void provider.resolveWebviewView(view, { state: undefined }, { isCancellationRequested: false });
      chat = webview;
      void webview.send({ type: 'ready' });
      return webview;
    },
    async openInspector() {
      const before = world.panels.length;
      const opened = await world.commands.get('tally.openInspector')?.();
      const panel = world.panels[before] ?? world.panels[world.panels.length - 1];
      if (opened !== true || !panel) throw new Error(`tally.openInspector did not open a panel (it returned ${String(opened)}; shown: ${JSON.stringify(world.shown.slice(-2))})`);
      void panel.webview.send({ type: 'ready' });
      return panel.webview;
    },
    async dispose() {
      for (const subscription of subscriptions.splice(0).reverse()) await subscription.dispose();
      await extension.deactivate?.();
      loader._load = original;
    },
  };
}
