import { formatShare, type WindowFigures } from '../../src/protocol/inspector';
import { h } from '../ui/dom';
import { shortTokens, tokens } from '../ui/format';
import { segmentsFor, type Segment } from './segments';
import { countOf } from '../../src/protocol/wording';

/** Every share the bar and the legend show is a share of the effective window. */
function shareText(s: Segment, f: WindowFigures): string {
  return s.name === 'reserve' ? `reserved for the reply, outside the ${tokens(f.effectiveWindow)}-token effective window` : `${formatShare(s.tokens / f.effectiveWindow)} of the ${tokens(f.effectiveWindow)}-token effective window`;
}

function segmentTitle(s: Segment, f: WindowFigures): string {
  return `${s.label}: ${countOf(s.tokens, 'token')} (${shareText(s, f)})`;
}

function marker(kind: 'compact' | 'block', at: number, scale: number, label: string): HTMLElement {
  const el = h('div', { class: `marker marker-${kind}`, title: label, attrs: { 'data-marker': kind, 'data-tokens': at, role: 'img', 'aria-label': label } }, [
    h('span', { class: 'marker-label', text: kind === 'compact' ? 'compact' : 'block' }),
  ]);
  el.style.left = `${Math.min(100, (at / scale) * 100)}%`;
  return el;
}

/**
 * Shows a segment's label only where it fits whole ("Tool results 12K"); elsewhere none: the legend
 * and the tooltip say it. Never a clipped label like "Summari…".
 */
export function fitSegmentLabels(bar: HTMLElement): void {
  for (const seg of Array.from(bar.querySelectorAll<HTMLElement>('.seg'))) {
    const label = seg.querySelector<HTMLElement>('.seg-label');
    if (!label) continue;
    const room = seg.clientWidth - 8;
    seg.classList.remove('seg-narrow');
    let fitted = false;
    for (const text of [label.dataset.full ?? '']) {
      label.textContent = text;
      if (text && room > 0 && label.scrollWidth <= room) {
        fitted = true;
        break;
      }
    }
    if (!fitted) {
      label.textContent = '';
      seg.classList.add('seg-narrow');
    }
  }
}

/** The context window as one bar: who owns every token, plus the thresholds as markers. */
export function renderStackedBar(f: WindowFigures): HTMLElement {
  const { segments, scale } = segmentsFor(f);
  const bar = h('div', { class: 'stacked-bar', attrs: { role: 'img', 'aria-label': `Context window: ${f.text.used}` } });
  // Drawn to scale: an owner with no tokens has no segment (the legend still lists it).
  for (const s of segments.filter((x) => x.tokens > 0)) {
    const seg = h('div', {
      class: `seg seg-${s.name}${s.used ? ' seg-used' : ''}`,
      title: segmentTitle(s, f),
      attrs: { 'data-segment': s.name, 'data-tokens': s.tokens, 'data-used': s.used },
    }, [h('span', { class: 'seg-label', attrs: { 'data-full': `${s.label} ${shortTokens(s.tokens)}` }, text: `${s.label} ${shortTokens(s.tokens)}` })]);
    seg.style.width = `${s.share * 100}%`;
    bar.appendChild(seg);
  }
  bar.appendChild(marker('compact', f.compactAt, scale, `Compaction threshold: ${f.text.compactAt}`));
  bar.appendChild(marker('block', f.blockAt, scale, `Block threshold: ${f.text.blockAt}. No request is sent above this.`));
  // Labels are fitted once the bar is laid out, and again when the panel is resized.
  requestAnimationFrame(() => fitSegmentLabels(bar));
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => fitSegmentLabels(bar)).observe(bar);
  return h('div', { class: 'bar-wrap' }, [bar]);
}

/** The same numbers as a table, so nothing depends on colour or hovering. */
export function renderLegend(f: WindowFigures): HTMLElement {
  const { segments } = segmentsFor(f);
  const share = (n: number) => formatShare(n / f.effectiveWindow);
  const rows = segments.map((s) =>
    h('tr', { attrs: { 'data-legend': s.name } }, [
      h('td', {}, [h('span', { class: `swatch seg-${s.name}`, attrs: { 'aria-hidden': 'true' } }), s.label]),
      h('td', { class: 'num', text: tokens(s.tokens) }),
      h('td', { class: 'num', text: s.name === 'reserve' ? 'outside' : share(s.tokens) }),
    ]),
  );
  rows.push(
    h('tr', { class: 'legend-total', attrs: { 'data-legend': 'used' } }, [
      h('td', { text: 'Context now' }),
      h('td', { class: 'num', text: tokens(f.used) }),
      h('td', { class: 'num', text: share(f.used) }),
    ]),
    h('tr', { class: 'legend-marker', attrs: { 'data-legend': 'compact-at' } }, [
      h('td', {}, [h('span', { class: 'swatch swatch-marker-compact', attrs: { 'aria-hidden': 'true' } }), 'Compaction threshold']),
      h('td', { class: 'num', text: tokens(f.compactAt) }),
      h('td', { class: 'num', text: formatShare(f.compactShare) }),
    ]),
    h('tr', { class: 'legend-marker', attrs: { 'data-legend': 'block-at' } }, [
      h('td', {}, [h('span', { class: 'swatch swatch-marker-block', attrs: { 'aria-hidden': 'true' } }), 'Block threshold']),
      h('td', { class: 'num', text: tokens(f.blockAt) }),
      h('td', { class: 'num', text: formatShare(f.blockShare) }),
    ]),
  );
  return h('table', { class: 'legend' }, [
    h('thead', {}, [h('tr', {}, [h('th', { text: 'Owner' }), h('th', { class: 'num', text: 'Tokens' }), h('th', { class: 'num', text: `Share of the effective window (${tokens(f.effectiveWindow)})` })])]),
    h('tbody', {}, rows),
  ]);
}
