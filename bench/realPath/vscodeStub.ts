/**
 * A stand-in for the `vscode` module with the API surface the built extension touches at activation,
 * in the chat view, the inspector and a turn: commands, the status bar, webview views and panels,
 * settings (package.json defaults + the bench's user settings), workspace folders and trust,
 * SecretStorage, EventEmitter, Uri. Anything else the extension reaches for throws, naming what is
 * missing, so a bench never measures a path that silently did nothing.
 */
import { readFileSync, statSync } from 'fs';
import { join } from 'path';
import { FakeWebview, FakeWebviewPanel } from './fakeWebview';
import { CancellationTokenSource, Disposable, EventEmitter, MarkdownString, ThemeColor, Uri } from './vscodeClasses';

/** A namespace whose unknown members throw: the extension reached past what the stub implements. */
function strictNamespace<T extends object>(name: string, members: T): T {
  return new Proxy(members, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || key in target || key === 'then' || key === '__esModule' || key === 'default') return Reflect.get(target, key, receiver);
      throw new Error(`vscode stub: vscode.${name}.${String(key)} is not implemented; add it to bench/realPath/vscodeStub.ts`);
    },
  });
}

export interface StubOptions {
  /** The folder holding the extension's package.json (its settings' defaults), dist/ and media/. */
  extensionRoot: string;
  /** Workspace folders (absolute paths). */
  workspace: string[];
  /** User settings under `tally.` (keys without the prefix). */
  settings: Record<string, unknown>;
  trusted?: boolean;
}

/** What the bench reads and drives besides the extension's own API. */
export interface StubWorld {
  vscode: Record<string, unknown>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  /** The chat view's provider registered at activation, by view id. */
  viewProviders: Map<string, { resolveWebviewView(view: unknown, context: unknown, token: unknown): unknown }>;
  /** Webview panels the extension created (the inspector), newest last. */
  panels: FakeWebviewPanel[];
  panelCreated: EventEmitter<FakeWebviewPanel>;
  /** Messages the extension showed the user: errors, warnings and information. */
  shown: Array<{ level: 'error' | 'warning' | 'information'; message: string }>;
  statusBar: Array<{ id: string; text: string; tooltip: unknown }>;
  /** Lines the extension logged to its output channel. */
  logLines: string[];
  setSetting(key: string, value: unknown): void;
}

function settingDefaults(extensionRoot: string): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(extensionRoot, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default?: unknown }> } | Array<{ properties: Record<string, { default?: unknown }> }> } };
  const sections = Array.isArray(manifest.contributes.configuration) ? manifest.contributes.configuration : [manifest.contributes.configuration];
  const defaults: Record<string, unknown> = {};
  for (const section of sections) for (const [key, property] of Object.entries(section.properties)) defaults[key] = property.default;
  return defaults;
}

export function createVscodeStub(options: StubOptions): StubWorld {
  const defaults = settingDefaults(options.extensionRoot);
  const user: Record<string, unknown> = Object.fromEntries(Object.entries(options.settings).map(([k, v]) => [`tally.${k}`, v]));
  const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const viewProviders: StubWorld['viewProviders'] = new Map();
  const panels: FakeWebviewPanel[] = [];
  const panelCreated = new EventEmitter<FakeWebviewPanel>();
  const shown: StubWorld['shown'] = [];
  const statusBar: StubWorld['statusBar'] = [];
  const logLines: string[] = [];
  const folders = options.workspace.map((path, index) => ({ uri: Uri.file(path), name: path.split('/').pop() ?? path, index }));

  const configuration = (section?: string) => {
    const full = (key: string) => (section ? `${section}.${key}` : key);
    return {
      get: <T>(key: string, fallback?: T): T | undefined => {
        const k = full(key);
        if (k in user) return user[k] as T;
        if (k in defaults && defaults[k] !== undefined) return defaults[k] as T;
        return fallback;
      },
      has: (key: string) => full(key) in user || full(key) in defaults,
      inspect: <T>(key: string) => ({ key: full(key), defaultValue: defaults[full(key)] as T | undefined, globalValue: user[full(key)] as T | undefined }),
      update: async (key: string, value: unknown) => setSetting(full(key), value),
    };
  };
  const setSetting = (key: string, value: unknown) => {
    const k = key.startsWith('tally.') ? key : `tally.${key}`;
    if (value === undefined) delete user[k];
    else user[k] = value;
    configurationChanged.fire({ affectsConfiguration: (section: string) => k === section || k.startsWith(`${section}.`) });
  };

  const show = (level: 'error' | 'warning' | 'information') => async (message: string) => {
    shown.push({ level, message });
    return undefined;
  };

  const vscode: Record<string, unknown> = {
    Disposable,
    EventEmitter,
    Uri,
    MarkdownString,
    ThemeColor,
    CancellationTokenSource,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    QuickPickItemKind: { Separator: -1, Default: 0 },
    LanguageModelError: class LanguageModelError extends Error {},
    commands: strictNamespace('commands', {
      registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
        if (commands.has(id)) throw new Error(`vscode stub: command ${id} registered twice`);
        commands.set(id, handler);
        return new Disposable(() => commands.delete(id));
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        const handler = commands.get(id);
        if (!handler) throw new Error(`vscode stub: command ${id} is not registered`);
        return handler(...args);
      },
    }),
    window: strictNamespace('window', {
      activeTextEditor: undefined,
      visibleTextEditors: [],
      tabGroups: { all: [], onDidChangeTabs: () => new Disposable(() => undefined), close: async () => true },
      // The chat's attachments follow terminal commands (shell integration) for "the last command's output".
      onDidStartTerminalShellExecution: new EventEmitter<unknown>().event,
      onDidEndTerminalShellExecution: new EventEmitter<unknown>().event,
      createOutputChannel: (name: string) => {
        const line = (level: string) => (message: string) => void logLines.push(`${level} ${message}`);
        return { name, info: line('info'), warn: line('warn'), error: line('error'), debug: line('debug'), trace: line('trace'), append: line(''), appendLine: line(''), show() {}, hide() {}, clear() {}, dispose() {} };
      },
      createStatusBarItem: (id: string) => {
        const item = { id, text: '', tooltip: undefined as unknown, name: '', command: undefined as unknown, backgroundColor: undefined as unknown, show() {}, hide() {}, dispose() {} };
        statusBar.push(item);
        return item;
      },
      registerWebviewViewProvider: (viewId: string, provider: StubWorld['viewProviders'] extends Map<string, infer P> ? P : never) => {
        viewProviders.set(viewId, provider);
        return new Disposable(() => viewProviders.delete(viewId));
      },
      createWebviewPanel: (viewType: string, title: string) => {
        const panel = new FakeWebviewPanel(viewType, title, new FakeWebview());
        panels.push(panel);
        panelCreated.fire(panel);
        return panel;
      },
      showErrorMessage: show('error'),
      showWarningMessage: show('warning'),
      showInformationMessage: show('information'),
      withProgress: async (_options: unknown, task: (progress: { report(v: unknown): void }, token: unknown) => unknown) => task({ report() {} }, new CancellationTokenSource().token),
    }),
    workspace: strictNamespace('workspace', {
      workspaceFolders: folders,
      workspaceFile: undefined,
      isTrusted: options.trusted ?? true,
      textDocuments: [],
      getConfiguration: configuration,
      getWorkspaceFolder: (uri: Uri) => folders.find((f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(`${f.uri.fsPath}/`)),
      onDidChangeConfiguration: configurationChanged.event,
      onDidGrantWorkspaceTrust: new EventEmitter<void>().event,
      onDidChangeWorkspaceFolders: new EventEmitter<unknown>().event,
      // The user edits and saves nothing while the bench runs.
      onDidChangeTextDocument: new EventEmitter<unknown>().event,
      onDidSaveTextDocument: new EventEmitter<unknown>().event,
      onDidCreateFiles: new EventEmitter<unknown>().event,
      onDidDeleteFiles: new EventEmitter<unknown>().event,
      onDidRenameFiles: new EventEmitter<unknown>().event,
      registerTextDocumentContentProvider: () => new Disposable(() => undefined),
      // The bench's workspace files do not change while it runs: a watcher that never fires.
      createFileSystemWatcher: () => ({ onDidChange: new EventEmitter<Uri>().event, onDidCreate: new EventEmitter<Uri>().event, onDidDelete: new EventEmitter<Uri>().event, dispose() {} }),
      fs: {
        readFile: async (uri: Uri) => new Uint8Array(readFileSync(uri.fsPath)),
        stat: async (uri: Uri) => {
          const stat = statSync(uri.fsPath);
          return { type: stat.isDirectory() ? 2 : 1, size: stat.size, ctime: stat.ctimeMs, mtime: stat.mtimeMs };
        },
      },
    }),
    lm: strictNamespace('lm', {
      tools: [],
      selectChatModels: async () => [],
      onDidChangeChatModels: new EventEmitter<void>().event,
    }),
    extensions: strictNamespace('extensions', { all: [] }),
    env: strictNamespace('env', { language: 'en', appName: 'Tally bench (stub)' }),
  };
  return { vscode, commands, viewProviders, panels, panelCreated, shown, statusBar, logLines, setSetting };
}

/** The ExtensionContext's SecretStorage: in memory, with the change event. */
export function secretStorage(): { get(key: string): Promise<string | undefined>; store(key: string, value: string): Promise<void>; delete(key: string): Promise<void>; onDidChange: EventEmitter<{ key: string }>['event'] } {
  const values = new Map<string, string>();
  const changed = new EventEmitter<{ key: string }>();
  return {
    get: async (key) => values.get(key),
    store: async (key, value) => {
      values.set(key, value);
      changed.fire({ key });
    },
    delete: async (key) => {
      values.delete(key);
      changed.fire({ key });
    },
    onDidChange: changed.event,
  };
}
