import type { ChatTurnFiles } from '../../src/protocol/chat';
import { countOf } from '../../src/protocol/wording';
import { button } from '../ui/controls';
import { h } from '../ui/dom';

export interface TurnActionHandlers {
  onRestoreFiles: (messageId: string) => void;
  onRewind: (messageId: string) => void;
}

/** "14:05" in the user's locale: when today's restore happened. */
const clockTime = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

const BUSY_TITLE = 'A turn is running: wait for it to finish, or stop it, to rewind or restore files.';

/** The row under a sent user message: "Rewind to here", and "Restore files (N)" when its turn changed files. */
function actionsRow(messageId: string, files: ChatTurnFiles | undefined, busy: boolean, setAside: boolean, handlers: TurnActionHandlers): HTMLElement {
  const restorable = files && files.files > 0;
  return h('div', { class: 'turn-actions', attrs: { 'data-turn-actions': messageId } }, [
    // A message set aside by a rewind is no longer in the context: there is nothing to rewind to before it.
    setAside
      ? null
      : button('Rewind to here', () => handlers.onRewind(messageId), {
          appearance: 'secondary',
          disabled: busy,
          title: busy ? BUSY_TITLE : 'Take the conversation back to before this message and edit it (the transcript keeps everything)',
          attrs: { 'data-action': 'rewind' },
        }),
    restorable && files.restoredAt !== undefined
      ? h('span', {
          class: 'turn-files-restored',
          attrs: { 'data-restored-at': String(files.restoredAt), title: 'The files this turn and the later ones changed were put back. Restore files shows again once a turn changes files.' },
          text: `✓ Files restored ${clockTime(files.restoredAt)}`,
        })
      : restorable
      ? button(`Restore files (${files.files})`, () => handlers.onRestoreFiles(messageId), {
          appearance: 'secondary',
          disabled: busy,
          title: busy ? BUSY_TITLE : `Restore files to before this turn: shows a diff of ${countOf(files.files, 'file')} first`,
          attrs: { 'data-action': 'restore-files', 'data-files': String(files.files) },
        })
      : null,
    files?.problem
      ? h('span', { class: 'turn-files-problem', attrs: { role: 'note' } }, [
          h('span', { class: 'turn-files-icon', attrs: { 'aria-hidden': 'true' }, text: '⚠ ' }),
          h('span', { class: 'turn-files-text', text: files.problem }),
        ])
      : null,
  ]);
}

/**
 * Puts the turn actions on every sent user message drawn in `list` (pending ones have none), and
 * keeps them current: a row is rebuilt only when its files or the busy state changed.
 */
export function decorateTurnActions(list: HTMLElement, turnFiles: readonly ChatTurnFiles[] | undefined, busy: boolean, replay: boolean, handlers: TurnActionHandlers): void {
  // A replayed recording (the demo) is read-only: nothing to rewind to, no files of its own to restore.
  if (replay) {
    for (const row of Array.from(list.querySelectorAll('.entry.user > .turn-actions'))) row.remove();
    return;
  }
  const byMessage = new Map((turnFiles ?? []).map((t) => [t.messageId, t]));
  for (const entry of Array.from(list.querySelectorAll<HTMLElement>('.entry.user[data-entry-id]:not([data-pending])'))) {
    const messageId = entry.dataset.entryId ?? '';
    const files = byMessage.get(messageId);
    const setAside = entry.hasAttribute('data-set-aside');
    const signature = JSON.stringify([busy, files?.files ?? 0, files?.problem ?? '', files?.restoredAt ?? 0, setAside]);
    const current = entry.querySelector<HTMLElement>(':scope > .turn-actions');
    if (current?.dataset.signature === signature) continue;
    const row = actionsRow(messageId, files, busy, setAside, handlers);
    row.dataset.signature = signature;
    if (current) current.replaceWith(row);
    else entry.appendChild(row);
  }
}
