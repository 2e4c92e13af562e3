import type { BudgetView } from '../../src/protocol/inspector';
import { h } from '../ui/dom';
import { percent, shortTokens, tokens } from '../ui/format';
import { segmentsFor, type Segment } from './segments';

function segmentTitle(s: Segment, contextWindow: number): string {
  return `${s.label}: ${tokens(s.tokens)} tokens (${percent(s.tokens / contextWindow)} of the ${tokens(contextWindow)}-token window)`;
}

function marker(kind: 'compact' | 'block', at: number, scale: number, label: string): HTMLElement {
  const el = h('div', { class: `marker marker-${kind}`, title: label, attrs: { 'data-marker': kind, 'data-tokens': at, role: 'img', 'aria-label': label } }, [
    h('span', { class: 'marker-label', text: kind === 'compact' ? 'compact' : 'block' }),
  ]);
  el.style.left = `${Math.min(100, (at / scale) * 100)}%`;
  return el;
}

/** The context window as one bar: who owns every token, plus the thresholds as markers. */
export function renderStackedBar(budget: BudgetView): HTMLElement {
  const { segments, scale } = segmentsFor(budget);
  const bar = h('div', { class: 'stacked-bar', attrs: { role: 'img', 'aria-label': `Context window: ${tokens(budget.used)} of ${tokens(budget.contextWindow)} tokens used` } });
  for (const s of segments) {
    const seg = h('div', {
      class: `seg seg-${s.name}${s.used ? ' seg-used' : ''}`,
      title: segmentTitle(s, budget.contextWindow),
      attrs: { 'data-segment': s.name, 'data-tokens': s.tokens, 'data-used': s.used },
    }, [h('span', { class: 'seg-label', text: `${s.label} ${shortTokens(s.tokens)}` })]);
    seg.style.width = `${s.share * 100}%`;
    if (s.share < 0.07) seg.classList.add('seg-narrow');
    bar.appendChild(seg);
  }
  const compactLabel = `Compaction threshold: ${tokens(budget.compactAtTokens)} tokens (${percent(budget.compactAtTokens / budget.effectiveWindow, 0)} of the effective window)`;
  const blockLabel = `Block threshold: ${tokens(budget.blockAtTokens)} tokens — no request is sent above this`;
  bar.appendChild(marker('compact', budget.compactAtTokens, scale, compactLabel));
  bar.appendChild(marker('block', budget.blockAtTokens, scale, blockLabel));
  return h('div', { class: 'bar-wrap' }, [bar]);
}

/** The same numbers as a table, so nothing depends on colour or hovering. */
export function renderLegend(budget: BudgetView): HTMLElement {
  const { segments } = segmentsFor(budget);
  const rows = segments.map((s) =>
    h('tr', { attrs: { 'data-legend': s.name } }, [
      h('td', {}, [h('span', { class: `swatch seg-${s.name}`, attrs: { 'aria-hidden': 'true' } }), s.label]),
      h('td', { class: 'num', text: tokens(s.tokens) }),
      h('td', { class: 'num', text: percent(s.tokens / budget.contextWindow) }),
    ]),
  );
  rows.push(
    h('tr', { class: 'legend-total' }, [
      h('td', { text: 'Used' }),
      h('td', { class: 'num', text: tokens(budget.used) }),
      h('td', { class: 'num', text: `${percent(budget.percent)} of effective` }),
    ]),
    h('tr', { class: 'legend-marker' }, [
      h('td', {}, [h('span', { class: 'swatch swatch-marker-compact', attrs: { 'aria-hidden': 'true' } }), 'Compaction threshold']),
      h('td', { class: 'num', text: tokens(budget.compactAtTokens) }),
      h('td', { class: 'num', text: percent(budget.compactAtTokens / budget.contextWindow) }),
    ]),
    h('tr', { class: 'legend-marker' }, [
      h('td', {}, [h('span', { class: 'swatch swatch-marker-block', attrs: { 'aria-hidden': 'true' } }), 'Block threshold']),
      h('td', { class: 'num', text: tokens(budget.blockAtTokens) }),
      h('td', { class: 'num', text: percent(budget.blockAtTokens / budget.contextWindow) }),
    ]),
  );
  return h('table', { class: 'legend' }, [
    h('thead', {}, [h('tr', {}, [h('th', { text: 'Owner' }), h('th', { class: 'num', text: 'Tokens' }), h('th', { class: 'num', text: 'Share of window' })])]),
    h('tbody', {}, rows),
  ]);
}
