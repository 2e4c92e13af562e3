import { renderSentAttachments } from './sentAttachments';
import { chatEntryKey, type ChatEntry, type ChatThinking } from '../../src/protocol/chat';
import { button, progressRing } from '../ui/controls';
import { append, h, lazyDetails } from '../ui/dom';
import { hiddenSummary } from '../../src/protocol/hiddenCharacters';
import { drawSliced, SLICE_CHARS } from './longText';
import { revealedNodes, revealHidden } from './revealHidden';
import { KeyedChildren } from '../ui/keyedChildren';
import { setPageButton } from '../ui/pageButton';
import { renderCompactionNotice } from './compactionNotice';
import { renderMarkdown, type MarkdownActions } from './markdown';
import { renderToolCard, type ToolCardActions } from './toolCard';
import { renderTodoCard } from './todoCard';
import { renderPlanCard, type PlanCardActions } from './planCard';
import { renderTurnUsage } from './turnUsage';
import { countOf, grouped } from '../../src/protocol/wording';

export interface EntryActions extends ToolCardActions, MarkdownActions, PlanCardActions {
  openNotices: ReadonlySet<string>;
  onToggleNotice: (id: string, open: boolean) => void;
  /** Assistant entries whose thinking the user expanded (collapsed by default). */
  openThinking: ReadonlySet<string>;
  onToggleThinking: (id: string, open: boolean) => void;
  /** Lets the model carry on after an answer was cut (sends "Continue"). */
  onContinue: () => void;
  onRetry: () => void;
  /** A turn held at the hard block: compact now and go on, or send it uncompacted. */
  onCompactAndContinue: () => void;
  onSendAnyway: () => void;
  onSelectModel: () => void;
  /** Drops the message kept while no model is configured. */
  onDiscardPending: () => void;
  /** Asks the host for the session's older messages (not read when the chat opened). */
  onLoadEarlier: () => void;
}

function tokenBadge(count: number | undefined): HTMLElement | null {
  return count === undefined ? null : h('span', { class: 'entry-tokens', title: 'Tokens this message takes in the context', attrs: { 'data-tokens': count }, text: countOf(count, 'token') });
}

/** Marks a message a rewind set aside: still shown, no longer sent to the model. */
function setAsideLabel(setAside: boolean | undefined): HTMLElement | null {
  return setAside ? h('span', { class: 'entry-state set-aside-label', title: 'A rewind took the conversation back to before this; the model no longer sees it (the transcript keeps it)', text: 'set aside' }) : null;
}

function noticeAction(entry: Extract<ChatEntry, { kind: 'notice' }>, actions: EntryActions): HTMLElement | null {
  if (entry.action === 'retry') return button('Retry', () => actions.onRetry(), { appearance: 'secondary', attrs: { 'data-action': 'retry' } });
  if (entry.action === 'continue') return button('Continue', () => actions.onContinue(), { appearance: 'secondary', attrs: { 'data-action': 'continue' } });
  if (entry.action === 'compact') {
    return h('span', { class: 'notice-actions' }, [
      button('Compact now', () => actions.onCompactAndContinue(), { attrs: { 'data-action': 'compact-now' } }),
      button('Send anyway', () => actions.onSendAnyway(), { appearance: 'secondary', attrs: { 'data-action': 'send-anyway' } }),
    ]);
  }
  if (entry.action === 'selectModel') {
    return h('span', { class: 'notice-actions' }, [
      button('Choose a model', () => actions.onSelectModel(), { attrs: { 'data-action': 'choose-model' } }),
      button('Discard', () => actions.onDiscardPending(), { appearance: 'secondary', attrs: { 'data-action': 'discard-pending' } }),
    ]);
  }
  return null;
}

/**
 * The model's thinking: one line ("Thinking · 1,234 tokens") that expands to the text. The text is
 * drawn only once expanded, a slice at a time, with invisible and direction-changing characters as
 * ⟨U+202E⟩ markers (as code blocks and approval cards show them) and a warning line when there are any.
 */
function thinkingBlock(id: string, thinking: ChatThinking, actions: EntryActions): HTMLElement {
  const size = thinking.tokens !== undefined ? countOf(thinking.tokens, 'token') : undefined;
  const redacted = thinking.redacted ? countOf(thinking.redacted, 'redacted block') : undefined;
  const notKept = thinking.notKeptChars ? 'the rest not kept' : undefined;
  const label = thinking.streaming ? 'Thinking…' : 'Thinking';
  const summary = [h('span', { class: 'thinking-label', text: label }), ...[size, redacted, notKept].filter(Boolean).map((text) => h('span', { class: 'thinking-size', text: ` · ${text}` }))];
  const body = () => [
    thinking.text ? thinkingText(id, thinking.text) : null,
    thinking.notKeptChars ? h('p', { class: 'thinking-redacted', text: `The model thought ${countOf(thinking.notKeptChars, 'more character')} than Tally keeps of one reply's thinking: they were read but not kept (not shown, counted or sent back to the model).` }) : null,
    thinking.redacted ? h('p', { class: 'thinking-redacted', text: 'Part of the thinking came encrypted: it is sent back to the model as it came but cannot be shown.' }) : null,
  ];
  return lazyDetails(summary, body, { open: actions.openThinking.has(id), class: `thinking${thinking.streaming ? ' streaming' : ''}`, attrs: { 'data-thinking': id }, onToggle: (open) => actions.onToggleThinking(id, open) });
}

function thinkingText(id: string, text: string): HTMLElement {
  const warning = h('div', { class: 'code-warning thinking-warning', attrs: { role: 'note' } });
  const found = new Map<string, number>();
  const box = h('div', { class: 'thinking-text' });
  let lastSummary: ReturnType<typeof hiddenSummary> | undefined;
  const note = (summary: ReturnType<typeof hiddenSummary>) => {
    for (const point of summary.codePoints) found.set(point, (found.get(point) ?? 0) + 1);
    if (!summary.count) return;
    const total = Number(box.dataset.hiddenChars ?? 0) + summary.count;
    box.dataset.hiddenChars = String(total);
    warning.textContent = `⚠ This thinking contains ${countOf(total, 'invisible or direction-changing character')} (${[...found.keys()].join(', ')}), shown as ⟨U+…⟩ markers.`;
    if (!warning.parentNode) box.before(warning);
  };
  drawSliced(text, {
    key: `thinking:${id}`,
    kind: 'plain',
    into: box,
    // A slice drawn before and reused still counts its hidden characters in the warning.
    carry: { save: () => lastSummary, restore: (saved) => note(saved as ReturnType<typeof hiddenSummary>) },
    draw: (slice) => {
      note((lastSummary = hiddenSummary(slice)));
      const span = h('span', { class: 'thinking-slice' });
      append(span, revealedNodes(revealHidden(slice, { collapseBlankLines: false }).parts));
      return span;
    },
  });
  return h('div', { class: 'thinking-body' }, [warning.textContent ? warning : null, box]);
}

/** A user's message, drawn a slice at a time when it is long. */
function userText(id: string, text: string): HTMLElement {
  const box = h('div', { class: 'text' });
  if (text.length <= SLICE_CHARS) {
    box.textContent = text;
    return box;
  }
  return drawSliced(text, { key: `user:${id}`, kind: 'plain', into: box, draw: (slice) => document.createTextNode(slice) });
}

export function renderEntry(entry: ChatEntry, actions: EntryActions): HTMLElement {
  switch (entry.kind) {
    case 'user':
      return h('div', { class: `entry user${entry.pending ? ' pending' : ''}${entry.setAside ? ' set-aside' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'user', 'data-pending': entry.pending, 'data-set-aside': entry.setAside } }, [
        h('div', { class: 'entry-head' }, [h('span', { class: 'entry-role', text: 'You' }), entry.pending ? h('span', { class: 'entry-state', text: 'not sent yet' }) : null, setAsideLabel(entry.setAside), tokenBadge(entry.tokens)]),
        renderSentAttachments(entry.attachments),
        userText(entry.id, entry.text),
      ]);
    case 'assistant':
      return h('div', { class: `entry assistant${entry.streaming ? ' streaming' : ''}${entry.setAside ? ' set-aside' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'assistant', 'data-set-aside': entry.setAside } }, [
        h('div', { class: 'entry-head' }, [h('span', { class: 'entry-role', text: 'Tally' }), setAsideLabel(entry.setAside), tokenBadge(entry.tokens)]),
        entry.thinking ? thinkingBlock(entry.id, entry.thinking, actions) : null,
        // The answer that ended a plan-mode turn is the plan: its card shows it (as the user last edited it).
        entry.plan ? renderPlanCard(entry.id, entry.plan, actions) : entry.text ? h('div', { class: 'entry-body' }, [renderMarkdown(entry.text, actions, entry.id)]) : null,
        ...entry.toolCalls.map((call) => renderToolCard(call, actions)),
      ]);
    case 'compaction':
      return renderCompactionNotice(entry.record, actions.openNotices.has(entry.id), (open) => actions.onToggleNotice(entry.id, open), entry.headline);
    case 'notice':
      return h('div', { class: `entry notice notice-${entry.level}${entry.busy ? ' busy' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'notice', 'data-busy': entry.busy, role: entry.level === 'error' ? 'alert' : 'status' } }, [
        entry.busy ? progressRing('Working') : null,
        h('span', { class: 'notice-level', text: entry.level === 'error' ? 'Error: ' : entry.level === 'warning' ? 'Warning: ' : '' }),
        h('span', { class: 'notice-text', text: entry.text }),
        noticeAction(entry, actions),
      ]);
    case 'usage':
      return renderTurnUsage(entry.id, entry.usage);
    case 'todos':
      return renderTodoCard(entry);
  }
}

/** How many of the latest entries are drawn at first; "Show earlier" draws more. */
export const ENTRIES_PAGE = 200;

/**
 * Draws the latest entries and redraws only those whose object changed: the host sends unchanged
 * entries once, so identity tells what is new. Older entries are drawn on request, a page at a
 * time, so a chat of 10,000 messages costs what a short one does.
 */
export class EntryList {
  readonly element = h('div', { class: 'entries', attrs: { role: 'log', 'aria-live': 'polite' } });
  private readonly list = h('div', { class: 'entry-items' });
  private readonly earlier = h('div', { class: 'entries-earlier' });
  private readonly drawn = new KeyedChildren<ChatEntry>(this.list, chatEntryKey, (entry) => renderEntry(entry, this.actions));
  private shown = ENTRIES_PAGE;
  private last: readonly ChatEntry[] = [];
  private earlierUnloaded = false;
  /** "Show earlier messages" was pressed: the key of the first entry then. Once earlier ones arrive, they are drawn. */
  private loadingEarlier?: string;

  constructor(private readonly actions: EntryActions) {
    this.element.append(this.earlier, this.list);
  }

  /** `earlierUnloaded`: the host holds older messages back until asked. */
  render(entries: readonly ChatEntry[], earlierUnloaded = false): void {
    this.last = entries;
    this.earlierUnloaded = earlierUnloaded;
    if (this.loadingEarlier !== undefined) {
      const before = entries.findIndex((entry) => chatEntryKey(entry) === this.loadingEarlier);
      if (before > 0 || !earlierUnloaded) {
        this.loadingEarlier = undefined;
        this.shown += Math.min(Math.max(before, 0), ENTRIES_PAGE);
      }
    }
    const from = Math.max(0, entries.length - this.shown);
    this.drawn.update(entries.slice(from));
    if (from > 0) setPageButton(this.earlier, `Show earlier (${grouped(from)} more)`, 'show-earlier', () => this.showEarlier());
    else setPageButton(this.earlier, this.earlierUnloaded ? 'Show earlier messages' : '', 'load-earlier', () => this.loadEarlier());
  }

  private loadEarlier(): void {
    this.loadingEarlier = this.last.length ? chatEntryKey(this.last[0]) : '';
    this.actions.onLoadEarlier();
  }

  private showEarlier(): void {
    this.shown += ENTRIES_PAGE;
    this.render(this.last, this.earlierUnloaded);
  }
}
