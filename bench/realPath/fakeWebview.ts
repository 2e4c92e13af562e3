/**
 * Webviews without a browser: every message the host posts is serialized as VS Code does before it
 * crosses to the webview (JSON), timed and kept; the bench sends the webview's intents (ready, send,
 * showEarlier…) to the host's listener and can wait, bounded, for a post that matches.
 */
import { EventEmitter, Uri } from './vscodeClasses';

export interface RecordedPost {
  /** performance.now() when the host posted it. */
  at: number;
  /** Its size as JSON, what crosses to the webview. */
  bytes: number;
  message: { type: string; [key: string]: unknown };
}

export class FakeWebview {
  options: unknown = {};
  html = '';
  readonly cspSource = 'vscode-webview://bench';
  readonly posts: RecordedPost[] = [];
  private readonly posted = new EventEmitter<RecordedPost>();
  private readonly received = new EventEmitter<unknown>();
  private listeners: Array<(message: unknown) => unknown> = [];

  asWebviewUri(uri: Uri): Uri {
    return uri;
  }

  postMessage(message: unknown): Promise<boolean> {
    const at = performance.now();
    // VS Code serializes a message in the extension host before it crosses: that cost is the host's.
    const json = JSON.stringify(message);
    const post: RecordedPost = { at, bytes: Buffer.byteLength(json), message: message as RecordedPost['message'] };
    this.posts.push(post);
    this.posted.fire(post);
    return Promise.resolve(true);
  }

  readonly onDidReceiveMessage = (listener: (message: unknown) => unknown, thisArg?: unknown, disposables?: Array<{ dispose(): unknown }>) => {
    const bound = thisArg ? listener.bind(thisArg) : listener;
    this.listeners.push(bound);
    const disposable = { dispose: () => (this.listeners = this.listeners.filter((l) => l !== bound)) };
    disposables?.push(disposable);
    return disposable;
  };

  /** Sends an intent as the webview would; resolves when the host's handler has finished with it. */
  async send(message: { type: string; [key: string]: unknown }): Promise<void> {
    if (this.listeners.length === 0) throw new Error(`webview: nobody listens for ${message.type} (the host has not resolved this view)`);
    this.received.fire(message);
    await Promise.all(this.listeners.map((listener) => listener(JSON.parse(JSON.stringify(message)))));
  }

  /**
   * The first post at or after `since` (performance.now()) that matches, already posted or to come;
   * rejects with `what` after `timeoutMs` so a host that never answers stops the bench with a reason.
   */
  waitForPost(what: string, matches: (post: RecordedPost) => boolean, options: { since?: number; timeoutMs?: number } = {}): Promise<RecordedPost> {
    const since = options.since ?? 0;
    const found = this.posts.find((p) => p.at >= since && matches(p));
    if (found) return Promise.resolve(found);
    const timeoutMs = options.timeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        subscription.dispose();
        const last = this.posts.slice(-3).map((p) => p.message.type).join(', ') || 'nothing';
        reject(new Error(`webview: no ${what} within ${timeoutMs} ms (last posts: ${last})`));
      }, timeoutMs);
      const subscription = this.posted.event((post) => {
        if (post.at < since || !matches(post)) return;
        clearTimeout(timer);
        subscription.dispose();
        resolve(post);
      });
    });
  }
}

/** A webview view (the chat) as VS Code hands it to resolveWebviewView. */
export class FakeWebviewView {
  visible = true;
  title?: string;
  description?: string;
  private readonly visibility = new EventEmitter<void>();
  private readonly disposed = new EventEmitter<void>();
  readonly onDidChangeVisibility = this.visibility.event;
  readonly onDidDispose = this.disposed.event;
  constructor(readonly viewType: string, readonly webview: FakeWebview) {}
  show(): void {
    this.visible = true;
    this.visibility.fire();
  }
}

/** A webview panel (the inspector) as createWebviewPanel returns it. */
export class FakeWebviewPanel {
  visible = true;
  active = true;
  iconPath: unknown;
  private readonly viewState = new EventEmitter<unknown>();
  private readonly disposed = new EventEmitter<void>();
  readonly onDidChangeViewState = this.viewState.event;
  readonly onDidDispose = this.disposed.event;
  private isDisposed = false;
  constructor(readonly viewType: string, public title: string, readonly webview: FakeWebview) {}
  reveal(): void {
    this.visible = true;
    this.viewState.fire({ webviewPanel: this });
  }
  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    this.disposed.fire();
  }
}
