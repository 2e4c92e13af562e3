/**
 * The composer's `/` list: typing `/` at the start of a message asks the host for every command
 * (built in, command and prompt files, MCP prompts) with its description and what it sends in
 * tokens; arrows move, Enter or Tab puts `/name ` in the input (Enter on a name typed in full sends
 * it), Escape closes. The host lists, counts and runs them; this only shows what it says.
 */
import type { ChatToHost } from '../../src/protocol/chat';
import type { ChatCommandItem } from '../../src/protocol/commands';
import { countOf } from '../../src/protocol/wording';
import type { TextInput } from '../ui/controls';
import { h, replace } from '../ui/dom';
import type { ComposerParts } from './composer';
import { popupListKey } from './popupListKeys';

/** `/` starting the message, and the name typed after it up to the caret. */
const TRIGGER = /^\/([A-Za-z0-9._-]{0,120})$/;

const KIND_NAMES: Record<ChatCommandItem['kind'], string> = { 'built-in': 'built in', workspace: 'workspace', prompts: 'prompt file', user: 'yours', mcp: 'MCP' };

export class CommandListComposer implements ComposerParts {
  readonly list = h('div', { class: 'command-list', attrs: { role: 'listbox', 'aria-label': 'Commands' } });
  private input?: TextInput;
  private queryId = 0;
  private open = false;
  private items: ChatCommandItem[] = [];
  private active = 0;

  constructor(private readonly post: (message: ChatToHost) => void) {
    this.list.hidden = true;
  }

  get above(): HTMLElement[] {
    return [this.list];
  }

  bind(input: TextInput): void {
    this.input = input;
    input.element.addEventListener('input', () => this.onInput());
    input.element.addEventListener('blur', () => window.setTimeout(() => this.close(), 150));
  }

  onKey(event: KeyboardEvent): boolean {
    // A name typed in full is what the user meant: Enter sends it, as it would with no list shown.
    if (event.key === 'Enter' && !event.shiftKey && this.typedInFull()) {
      this.close();
      return false;
    }
    return popupListKey(event, { hidden: this.list.hidden, items: this.items, active: this.active }, {
      moveTo: (index) => {
        this.active = index;
        this.render();
      },
      choose: (index) => this.choose(index),
      close: () => this.close(),
    });
  }

  onSent(): void {
    this.close();
  }

  /** The host's answer: shown when it answers the latest query and the list is still wanted. */
  showCommands(queryId: number, items: ChatCommandItem[]): void {
    if (queryId !== this.queryId || !this.open) return;
    this.items = items;
    this.active = Math.max(0, items.findIndex((i) => !i.unavailable));
    this.render();
  }

  private onInput(): void {
    const input = this.input;
    if (!input) return;
    const inner = (input.element as { control?: HTMLTextAreaElement }).control;
    const caret = inner?.selectionStart ?? input.value.length;
    const m = TRIGGER.exec(input.value.slice(0, caret));
    if (!m) return this.close();
    this.open = true;
    this.post({ type: 'commandQuery', queryId: ++this.queryId, query: m[1] });
  }

  private typedInFull(): boolean {
    const item = this.items[this.active];
    return !!item && !item.unavailable && this.input?.value === `/${item.name}`;
  }

  private choose(index: number): void {
    const item = this.items[index];
    if (!item || item.unavailable || !this.input) return;
    const text = this.input.value;
    const rest = text.replace(/^\/\S*\s?/, '');
    this.input.value = `/${item.name} ${rest}`;
    // The host costs the draft from its text: tell it, as typing would.
    this.input.element.dispatchEvent(new Event('input'));
    this.close();
    this.input.focus();
  }

  private close(): void {
    this.open = false;
    this.items = [];
    this.list.hidden = true;
    replace(this.list, []);
  }

  private render(): void {
    this.list.hidden = this.items.length === 0;
    replace(this.list, this.items.map((item, i) => {
      const cost = item.unavailable
        ? `cannot run: ${item.unavailable}`
        : [item.tokens !== undefined ? countOf(item.tokens, 'token') : item.kind === 'built-in' ? 'sends no message' : 'cost shown when it runs', item.attaches ? `+ ${countOf(item.attaches, 'file')}` : ''].filter(Boolean).join(' ');
      const title = [item.source, item.note].filter(Boolean).join(' · ');
      return h('div', {
        class: `command-option${i === this.active ? ' active' : ''}${item.unavailable ? ' unavailable' : ''}`,
        title,
        attrs: { role: 'option', 'aria-selected': String(i === this.active), 'aria-disabled': item.unavailable ? 'true' : undefined, 'data-command': item.name, 'data-kind': item.kind, 'data-tokens': item.tokens },
        on: { mousedown: (event) => {
          event.preventDefault();
          this.choose(i);
        } },
      }, [
        h('div', { class: 'command-option-head' }, [
          h('span', { class: 'command-option-name', text: `/${item.name}` }),
          item.argumentHint ? h('span', { class: 'command-option-args', text: item.argumentHint }) : null,
          h('span', { class: 'command-option-cost', text: cost }),
        ]),
        h('div', { class: 'command-option-detail' }, [
          h('span', { class: 'command-option-kind', text: KIND_NAMES[item.kind] }),
          h('span', { class: 'command-option-description', text: item.description ?? item.source }),
        ]),
      ]);
    }));
    this.list.querySelector('.active')?.scrollIntoView({ block: 'nearest' });
  }
}

/** Two composer parts as one: the first to use a key keeps it; the last part's line beside the buttons. */
export function bothParts(first: ComposerParts, second: ComposerParts): ComposerParts {
  return {
    above: [...first.above, ...second.above],
    beside: second.beside ?? first.beside,
    bind(input) {
      first.bind(input);
      second.bind(input);
    },
    onKey: (event) => first.onKey(event) || second.onKey(event),
    onSent() {
      first.onSent();
      second.onSent();
    },
  };
}
