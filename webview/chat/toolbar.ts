import type { ChatState } from '../../src/protocol/chat';
import { button, dropdown } from '../ui/controls';
import { h } from '../ui/dom';

export interface ToolbarActions {
  onSelectModel: () => void;
  onResume: (sessionId: string) => void;
  onNewSession: () => void;
  /** Opens the search over past sessions' titles and text. */
  onSearchSessions: () => void;
}

function ago(at: number): string {
  const minutes = Math.round((Date.now() - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return new Date(at).toLocaleDateString();
}

/** Model label and picker, session list, Search and New session. */
export function renderToolbar(state: ChatState, actions: ToolbarActions): HTMLElement {
  const sessions = [...state.sessions];
  if (state.sessionId && !sessions.some((s) => s.id === state.sessionId)) {
    sessions.unshift({ id: state.sessionId, title: state.sessionTitle ?? 'Current session', updatedAt: Date.now() });
  }
  const sessionPicker = sessions.length
    ? dropdown(
        sessions.map((s) => ({ value: s.id, label: s.title || 'Untitled', title: `${s.title} · ${ago(s.updatedAt)}` })),
        state.sessionId,
        (id) => {
          if (id && id !== state.sessionId) actions.onResume(id);
        },
        { label: 'Sessions', class: 'session-picker' },
      )
    : null;
  return h('div', { class: 'toolbar' }, [
    h('div', { class: 'toolbar-row' }, [
      h('span', { class: 'model-label', title: state.model?.id ?? '', text: state.model?.label ?? 'No model selected' }),
      button('Select model', () => actions.onSelectModel(), { appearance: 'secondary', attrs: { 'data-action': 'select-model' } }),
    ]),
    h('div', { class: 'toolbar-row' }, [
      sessionPicker,
      button('Search', () => actions.onSearchSessions(), { appearance: 'secondary', title: 'Search past sessions by title and text', attrs: { 'data-action': 'search-sessions' } }),
      button('New session', () => actions.onNewSession(), { appearance: 'secondary', attrs: { 'data-action': 'new-session' } }),
    ]),
  ]);
}
