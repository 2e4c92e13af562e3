/** The webview side of the host channel, typed per app. */

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | undefined;

export interface Channel<Out, UiState> {
  post(message: Out): void;
  /** UI-local state only (selection, expanded rows); the host re-sends the real state on `ready`. */
  loadUiState(): Partial<UiState>;
  saveUiState(state: UiState): void;
}

export function channel<Out, UiState>(): Channel<Out, UiState> {
  // acquireVsCodeApi may be called only once per page.
  api ??= acquireVsCodeApi();
  const vscode = api;
  return {
    post: (message) => vscode.postMessage(message),
    loadUiState: () => {
      const s = vscode.getState();
      return s && typeof s === 'object' ? (s as Partial<UiState>) : {};
    },
    saveUiState: (state) => vscode.setState(state),
  };
}

/** Subscribes to host messages; only objects with a string `type` get through. */
export function onHostMessage<In extends { type: string }>(handler: (message: In) => void): void {
  window.addEventListener('message', (event: MessageEvent) => {
    const data: unknown = event.data;
    if (!data || typeof data !== 'object' || typeof (data as { type?: unknown }).type !== 'string') return;
    handler(data as In);
  });
}
