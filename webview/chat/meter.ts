import type { ChatMeter } from '../../src/protocol/chat';
import { h } from '../ui/dom';
import { percent, shortTokens, tokens } from '../ui/format';

/** ok below 80% of the compaction threshold, near up to it, over past it. */
export function meterLevel(m: ChatMeter): 'ok' | 'near' | 'over' {
  if (m.used >= m.compactAt) return 'over';
  if (m.used >= m.compactAt * 0.8) return 'near';
  return 'ok';
}

/** How full the context is, with the compaction threshold marked; clicking opens the inspector. */
export function renderMeter(meter: ChatMeter | undefined, onOpen: () => void): HTMLElement {
  if (!meter) return h('div', { class: 'meter empty' });
  const level = meterLevel(meter);
  const fill = h('div', { class: 'meter-fill' });
  fill.style.width = `${Math.min(100, Math.max(0, meter.percent * 100))}%`;
  const mark = h('div', { class: 'meter-mark', attrs: { 'data-marker': 'compact' } });
  const compactShare = meter.effectiveWindow > 0 ? meter.compactAt / meter.effectiveWindow : 1;
  mark.style.left = `${Math.min(100, compactShare * 100)}%`;
  const label = `Context ${percent(meter.percent, 0)} used: ${tokens(meter.used)} of ${tokens(meter.effectiveWindow)} tokens; compaction at ${tokens(meter.compactAt)}. Click to open the inspector.`;
  return h('div', { class: 'meter-wrap' }, [
    h('button', { class: `meter level-${level}`, title: label, attrs: { type: 'button', 'data-level': level, 'aria-label': label }, on: { click: onOpen } }, [
      h('div', { class: 'meter-track' }, [fill, mark]),
      h('span', { class: 'meter-text', text: `${percent(meter.percent, 0)} · ${shortTokens(meter.used)}/${shortTokens(meter.effectiveWindow)}` }),
    ]),
    meter.warning ? h('div', { class: 'meter-warning', attrs: { role: 'status' }, text: meter.warning }) : null,
  ]);
}
