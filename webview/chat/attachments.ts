/**
 * The composer's attachments: the completion list after `#` or `@`, the chips above the input
 * (label, tokens, ×), the cost line beside the buttons, and files dropped on the chat. The host
 * reads, counts and keeps every attachment; this only shows what it says and posts intents.
 */
import { imageFiles, postImages } from './pastedImages';
import type { AttachCompletion, ChatAttachmentView, ComposerCost, ImageToDownscale } from '../../src/protocol/attachments';
import { downscaledCopy } from './downscaleImage';
import type { ChatToHost } from '../../src/protocol/chat';
import type { TextInput } from '../ui/controls';
import { countOf } from '../../src/protocol/wording';
import { h, replace } from '../ui/dom';
import type { ComposerParts } from './composer';
import { popupListKey } from './popupListKeys';

const fmt = (n: number) => n.toLocaleString('en-US');
/** `#` or `@` starting a word, and what follows it up to the caret. */
const TRIGGER = /(?:^|\s)([#@])([^\s#@]{0,200})$/;
const DRAFT_DELAY_MS = 250;

interface Trigger {
  start: number;
  end: number;
  query: string;
}

export class AttachmentComposer implements ComposerParts {
  readonly chips = h('div', { class: 'attach-chips', attrs: { role: 'list', 'aria-label': 'Attachments' } });
  readonly list = h('div', { class: 'attach-list', attrs: { role: 'listbox', 'aria-label': 'Attach' } });
  readonly beside = h('div', { class: 'composer-cost', attrs: { 'aria-live': 'polite' } });
  private input?: TextInput;
  private queryId = 0;
  private trigger?: Trigger;
  private items: AttachCompletion[] = [];
  private active = 0;
  private draftTimer?: number;
  /** What the chips and the cost line show now: the host sends them on every refresh, they are redrawn only when they change (focus stays on a chip). */
  private shown = '';

  constructor(private readonly post: (message: ChatToHost) => void) {
    this.list.hidden = true;
  }

  get above(): HTMLElement[] {
    return [this.list, this.chips];
  }

  bind(input: TextInput): void {
    this.input = input;
    input.element.addEventListener('input', () => this.onInput());
    input.element.addEventListener('paste', (event) => {
      const images = imageFiles((event as ClipboardEvent).clipboardData);
      if (!images.length) return;
      event.preventDefault();
      postImages(images, this.post);
    });
    input.element.addEventListener('blur', () => window.setTimeout(() => this.close(), 150));
  }

  onKey(event: KeyboardEvent): boolean {
    return popupListKey(event, { hidden: this.list.hidden, items: this.items, active: this.active }, {
      moveTo: (index) => {
        this.active = index;
        this.renderList();
      },
      choose: (index) => this.choose(index),
      close: () => this.close(),
    });
  }

  onSent(): void {
    this.close();
    this.postDraftNow('');
  }

  /** The host's answer to a query: shown when it answers the latest one. */
  showCompletions(queryId: number, items: AttachCompletion[]): void {
    if (queryId !== this.queryId || !this.trigger) return;
    this.items = items;
    this.active = Math.max(0, items.findIndex((i) => !i.unavailable));
    this.renderList();
  }

  /** The chips and the cost line the host sent; `restore`: a send failed, its text comes back. */
  showComposer(attachments: ChatAttachmentView[], cost: ComposerCost | undefined, restore?: string): void {
    const signature = JSON.stringify([attachments, cost]);
    if (signature !== this.shown) {
      this.shown = signature;
      replace(this.chips, attachments.map((a) => this.chip(a)));
      this.chips.hidden = attachments.length === 0;
      replace(this.beside, cost ? [h('span', { class: 'cost-text', text: cost.text }), cost.note ? h('span', { class: 'cost-note', text: ` · ${cost.note}` }) : null] : []);
    }
    if (restore !== undefined && this.input && !this.input.value.trim()) {
      this.input.value = restore;
      this.postDraftNow(restore);
    }
  }

  /** Files dropped anywhere on the chat: their addresses go to the host, which checks each. */
  acceptDrops(target: HTMLElement): void {
    target.addEventListener('dragover', (event) => {
      if (!event.dataTransfer) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    });
    target.addEventListener('drop', (event) => {
      const data = event.dataTransfer;
      if (!data) return;
      event.preventDefault();
      const raw = data.getData('application/vnd.code.uri-list') || data.getData('text/uri-list');
      const uris = raw.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).slice(0, 50);
      if (uris.length) this.post({ type: 'dropUris', uris });
      // Images from outside the workspace (the desktop, a browser) come as files, not addresses.
      else postImages(imageFiles(data), this.post);
    });
  }

  private chip(a: ChatAttachmentView): HTMLElement {
    const detail = a.error
      ? a.error
      : [a.tokens !== undefined ? countOf(a.tokens, 'token') : '', a.smaller ? `${fmt(a.smaller.tokens)} at ${a.smaller.width}×${a.smaller.height}` : '', a.inContext ? 'already in context' : '', a.stored ? `stored, ${fmt(a.stored.sentLines)} of ${countOf(a.stored.lines, 'line')} sent` : ''].filter(Boolean).join(' · ');
    const open = h('button', {
      class: 'attach-chip-open',
      title: a.error ? a.error : 'Open the exact text that will be sent',
      attrs: { type: 'button', 'data-action': 'open-attachment' },
      on: { click: () => this.post({ type: 'openAttachment', id: a.id }) },
    }, [h('span', { class: 'attach-chip-label', text: a.label }), h('span', { class: 'attach-chip-detail', text: detail })]);
    if (a.error) open.setAttribute('disabled', '');
    const remove = h('button', {
      class: 'attach-chip-remove',
      title: `Remove ${a.label}`,
      text: '×',
      attrs: { type: 'button', 'aria-label': `Remove ${a.label}`, 'data-action': 'remove-attachment' },
      on: { click: () => this.post({ type: 'removeAttachment', id: a.id }) },
    });
    const shrink = a.smaller && !a.error ? this.shrinkButton(a, a.smaller) : undefined;
    return h('div', { class: `attach-chip${a.error ? ' attach-chip-error' : ''}${a.inContext ? ' attach-chip-in-context' : ''}`, attrs: { role: 'listitem', 'data-id': a.id, 'data-tokens': a.tokens } }, shrink ? [open, shrink, remove] : [open, remove]);
  }

  /** Sends the image at its smaller size: the host gives its bytes, this webview scales them down. */
  private shrinkButton(a: ChatAttachmentView, smaller: NonNullable<ChatAttachmentView['smaller']>): HTMLElement {
    const what = `Send a ${smaller.width}×${smaller.height} copy instead: ${countOf(smaller.tokens, 'token')}${a.tokens !== undefined ? ` rather than ${fmt(a.tokens)}` : ''}`;
    return h('button', {
      class: 'attach-chip-shrink',
      title: what,
      text: 'Shrink',
      attrs: { type: 'button', 'aria-label': what, 'data-action': 'downscale-image' },
      on: { click: () => this.post({ type: 'downscaleImage', id: a.id }) },
    });
  }

  /** The host's answer to "Shrink": scales the bytes down here and gives the copy back for the host to check. */
  downscale(request: ImageToDownscale): void {
    downscaledCopy(request).then(
      (copy) => this.post({ type: 'downscaledImage', id: request.id, ...copy }),
      (error: unknown) => this.showDownscaleError(request.id, error instanceof Error ? error.message : String(error)),
    );
  }

  private showDownscaleError(id: string, why: string): void {
    const detail = this.chips.querySelector(`.attach-chip[data-id="${CSS.escape(id)}"] .attach-chip-detail`);
    if (detail) detail.textContent = `could not be scaled down here (${why}); the original is sent`;
  }

  private onInput(): void {
    const input = this.input;
    if (!input) return;
    const text = input.value;
    this.scheduleDraft(text);
    const inner = (input.element as { control?: HTMLTextAreaElement }).control;
    const caret = inner?.selectionStart ?? text.length;
    const m = TRIGGER.exec(text.slice(0, caret));
    if (!m) return this.close();
    const start = caret - m[2].length - 1;
    this.trigger = { start, end: caret, query: m[2] };
    this.post({ type: 'attachQuery', queryId: ++this.queryId, query: m[2] });
  }

  private choose(index: number): void {
    const item = this.items[index];
    if (!item || item.unavailable || !this.input || !this.trigger) return;
    const text = this.input.value;
    // The typed `#query` leaves the message: the chip stands for it.
    const next = text.slice(0, this.trigger.start) + text.slice(this.trigger.end);
    this.input.value = next;
    this.scheduleDraft(next);
    this.post({ type: 'attach', target: item.target });
    this.close();
    this.input.focus();
  }

  private close(): void {
    this.trigger = undefined;
    this.items = [];
    this.list.hidden = true;
    replace(this.list, []);
  }

  private renderList(): void {
    this.list.hidden = this.items.length === 0;
    replace(this.list, this.items.map((item, i) => {
      const row = h('div', {
        class: `attach-option${i === this.active ? ' active' : ''}${item.unavailable ? ' unavailable' : ''}`,
        attrs: { role: 'option', 'aria-selected': String(i === this.active), 'aria-disabled': item.unavailable ? 'true' : undefined, 'data-kind': item.target.kind },
        on: { mousedown: (event) => {
          event.preventDefault();
          this.choose(i);
        } },
      }, [
        h('span', { class: 'attach-option-kind', text: KIND_NAMES[item.target.kind] }),
        h('span', { class: 'attach-option-label', text: item.label }),
        h('span', { class: 'attach-option-detail', text: item.unavailable ? `not available: ${item.unavailable}` : item.detail ?? '' }),
      ]);
      return row;
    }));
    this.list.querySelector('.active')?.scrollIntoView({ block: 'nearest' });
  }

  private scheduleDraft(text: string): void {
    if (this.draftTimer !== undefined) window.clearTimeout(this.draftTimer);
    this.draftTimer = window.setTimeout(() => this.postDraftNow(text), DRAFT_DELAY_MS);
  }

  private postDraftNow(text: string): void {
    if (this.draftTimer !== undefined) window.clearTimeout(this.draftTimer);
    this.draftTimer = undefined;
    this.post({ type: 'draft', text });
  }
}

const KIND_NAMES: Record<AttachCompletion['target']['kind'], string> = {
  file: 'file',
  folder: 'folder',
  selection: 'selection',
  problems: 'problems',
  image: 'image',
  diff: 'changes',
  terminal: 'terminal',
  resource: 'MCP resource',
  url: 'web page',
};
