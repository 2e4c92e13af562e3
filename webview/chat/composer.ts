import { button, textArea, type TextInput } from '../ui/controls';
import { h } from '../ui/dom';

const MAX_BYTES = 100 * 1024;

export interface Composer {
  element: HTMLElement;
  setBusy(busy: boolean): void;
  /** Puts text in the box to edit (a rewound message), the cursor at its end. */
  setText(text: string): void;
}

/** What another part adds to the composer: elements above the input, a line beside the buttons, a first look at keys. */
export interface ComposerParts {
  above: HTMLElement[];
  beside?: HTMLElement;
  bind(input: TextInput): void;
  /** True when the key was used (an open completion list takes Enter and the arrows). */
  onKey(event: KeyboardEvent): boolean;
  onSent(): void;
}

/** The input box: Enter sends, Shift+Enter is a newline; Cancel replaces Send while a turn runs. */
export function createComposer(onSend: (text: string) => void, onCancel: () => void, parts?: ComposerParts): Composer {
  const input = textArea({ placeholder: 'Ask Tally… (Enter to send, Shift+Enter for a new line, # to attach, / for commands)', label: 'Message', rows: 3, class: 'composer-input' });
  let busy = false;
  const note = h('div', { class: 'composer-note', attrs: { 'aria-live': 'polite' } });

  const send = () => {
    if (busy) return;
    const text = input.value;
    if (text.trim().length === 0) return;
    if (new TextEncoder().encode(text).length > MAX_BYTES) {
      note.textContent = 'This message is longer than 100 KB; attach the content as a file instead.';
      return;
    }
    note.textContent = '';
    onSend(text);
    input.value = '';
    parts?.onSent();
  };
  parts?.bind(input);
  input.element.addEventListener('keydown', (event: KeyboardEvent) => {
    if (parts?.onKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  const sendButton = button('Send', send, { attrs: { 'data-action': 'send' } });
  const cancelButton = button('Cancel', onCancel, { appearance: 'secondary', attrs: { 'data-action': 'cancel' } });
  cancelButton.hidden = true;
  const element = h('div', { class: 'composer' }, [...(parts?.above ?? []), input.element, h('div', { class: 'composer-actions' }, [note, parts?.beside, sendButton, cancelButton])]);
  return {
    element,
    setBusy(value) {
      busy = value;
      sendButton.hidden = busy;
      cancelButton.hidden = !busy;
    },
    setText(text) {
      input.value = text;
      input.focus();
    },
  };
}
