import type { CompactionEventRecord } from '../../src/protocol/records';
import type { CompactionView } from '../../src/protocol/inspector';
import { badge, button } from '../ui/controls';
import { details, h } from '../ui/dom';
import { compactionDelta, compactionSaved } from '../../src/protocol/inspector';
import { duration, time, tokens } from '../ui/format';
import { removedHeading, renderRemovedPage, type MoreRemoved } from './removedItems';
import { countOf } from '../../src/protocol/wording';
import { forkEntryText, isForkEntry } from '../../src/protocol/forkEntry';

export const TRIGGER_LABELS: Record<CompactionEventRecord['trigger'], string> = {
  auto: 'automatic',
  blocked: 'blocked request',
  manual: 'manual',
  overflow: 'overflow recovery',
  tool: 'model tool call',
  rewind: 'rewind',
  fork: 'fork',
  restore: 'files restored',
};

export interface HistoryActions {
  onToggle(id: string, open: boolean): void;
  onOpenSummary(id: string): void;
  /** Asks for a page more of a compaction's removed items, from `offset`. */
  onShowRemoved(id: string, offset: number): void;
}

/** Compactions, newest first, each expandable to its summary and removed items (`more`: those asked for past the first, by id). */
/** Why the automatic loop stopped after this run, and what was left that no compaction can take out. */
function autoStoppedText(stop: NonNullable<CompactionView['autoStopped']>): string {
  const { pinned, latestTurn, system, tools: toolTokens } = stop.left;
  return `stopped: ${countOf(stop.runs, 'run')} in a row freed less than ${countOf(stop.leastTokens, 'token')} each (this one ${tokens(stop.freedTokens)}). ` +
    `Left: pinned items ${tokens(pinned)}, the latest turn ${tokens(latestTurn)}, system prompt ${tokens(system)}, tools ${tokens(toolTokens)}. ` +
    `Starts again at ${countOf(stop.resumeAtTokens, 'token')}, or when you compact by hand.`;
}

export function renderCompactionHistory(records: CompactionView[], open: ReadonlySet<string>, more: ReadonlyMap<string, MoreRemoved>, actions: HistoryActions): HTMLElement {
  const { onToggle, onOpenSummary } = actions;
  if (records.length === 0) return h('p', { class: 'empty', text: 'No compactions yet.' });
  const newestFirst = [...records].sort((a, b) => b.startedAt - a.startedAt);
  return h('div', { class: 'compactions' }, newestFirst.map((r) =>
    details(
      [
        h('span', { class: 'when', text: time(r.startedAt) }),
        badge(TRIGGER_LABELS[r.trigger] ?? r.trigger, `trigger-${r.trigger}`),
        badge(r.status, `status-${r.status}`),
        r.originalSummary !== undefined ? badge('summary edited by you', 'edited') : null,
        r.autoStopped ? badge('automatic compaction stopped', 'auto-stopped') : null,
        ...(isForkEntry(r)
          ? [h('span', { class: 'delta', attrs: { 'data-field': 'fork' }, text: forkEntryText(r) })]
          : [
              h('span', { class: 'delta', text: compactionDelta(r) }),
              h('span', { class: 'delta', text: `${tokens(r.messagesBefore)} → ${countOf(r.messagesAfter, 'message')}` }),
              h('span', { class: 'muted', text: duration(r.durationMs) }),
            ]),
      ],
      [
        h('dl', { class: 'props' }, [
          // A fork compacts nothing: its before and after are the two sessions' counts of the same items.
          ...(isForkEntry(r) ? [] : [h('dt', { text: 'Strategies' }), h('dd', { text: r.strategies.length ? r.strategies.join(' → ') : 'none' }), h('dt', { text: 'Saved' }), h('dd', { text: compactionSaved(r) })]),
          r.focus ? h('dt', { text: 'Focus' }) : null, r.focus ? h('dd', { text: r.focus }) : null,
          r.step?.files?.length ? h('dt', { text: 'Files restored' }) : null,
          r.step?.files?.length ? h('dd', { attrs: { 'data-files-restored': r.step.files.length }, text: r.step.files.join(', ') }) : null,
          r.error ? h('dt', { text: 'Error' }) : null, r.error ? h('dd', { class: 'error-text', text: r.error }) : null,
          r.summaryNotes?.length ? h('dt', { text: 'Summary check' }) : null,
          r.summaryNotes?.length ? h('dd', { attrs: { 'data-field': 'summary-check' }, text: r.summaryNotes.join('; ') }) : null,
          r.autoStopped ? h('dt', { text: 'Automatic compaction' }) : null,
          r.autoStopped ? h('dd', { attrs: { 'data-field': 'auto-stopped' }, text: autoStoppedText(r.autoStopped) }) : null,
        ]),
        r.summary
          ? h('div', { class: 'summary' }, [
              h('div', { class: 'summary-head' }, [
                h('h4', { text: 'Summary' }),
                r.originalSummary !== undefined ? h('span', { class: 'muted', attrs: { 'data-summary': 'edited' }, text: 'edited by you' }) : null,
                button('Open in editor', () => onOpenSummary(r.id), { appearance: 'secondary', attrs: { 'data-open-summary': r.id } }),
              ]),
              h('pre', { class: 'summary-text', text: r.summary }),
              r.originalSummary !== undefined
                ? h('details', { class: 'original-summary' }, [
                    h('summary', { text: 'The summary Tally proposed, before your edit' }),
                    h('pre', { class: 'summary-text', attrs: { 'data-summary': 'original' }, text: r.originalSummary }),
                  ])
                : null,
            ])
          : null,
        removedHeading(r),
        renderRemovedPage(r.id, r, more.get(r.id), (offset) => actions.onShowRemoved(r.id, offset)),
      ],
      { open: open.has(r.id), class: 'compaction', attrs: { 'data-compaction-id': r.id }, onToggle: (isOpen) => onToggle(r.id, isOpen) },
    ),
  ));
}
