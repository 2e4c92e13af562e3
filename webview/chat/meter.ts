import type { ChatMeter } from '../../src/protocol/chat';
import { h } from '../ui/dom';
import { percent, shortTokens } from '../ui/format';
import { countOf } from '../../src/protocol/wording';
import { COUNTING, type MeterCounting } from '../../src/protocol/meterCounting';

/** ok below 80% of the compaction threshold, near up to it, over past it. */
export function meterLevel(m: ChatMeter): 'ok' | 'near' | 'over' {
  if (m.used >= m.compactAt) return 'over';
  if (m.used >= m.compactAt * 0.8) return 'near';
  return 'ok';
}

/**
 * How full the context is now, with the compaction threshold marked; clicking opens the inspector.
 * Every number and text comes from the host's window figures, the ones the status bar and the
 * inspector show. The last request's size is named as such, since it is not the context now.
 */
export function renderMeter(meter: ChatMeter | undefined, onOpen: () => void, counting?: MeterCounting): HTMLElement {
  if (!meter && counting) return renderCounting(counting, onOpen);
  if (!meter) return h('div', { class: 'meter empty' });
  const level = meterLevel(meter);
  const fill = h('div', { class: 'meter-fill' });
  fill.style.width = `${Math.min(100, Math.max(0, meter.usedShare * 100))}%`;
  const mark = h('div', { class: 'meter-mark', attrs: { 'data-marker': 'compact', 'data-tokens': meter.compactAt } });
  mark.style.left = `${Math.min(100, meter.compactShare * 100)}%`;
  const estimate = meter.text.estimate ? ` (${meter.text.estimate})` : '';
  const last = meter.lastRequest ? ` The last request (#${meter.lastRequest.requestIndex}) carried ${meter.text.lastRequest ?? countOf(meter.lastRequest.tokens, 'token')}.` : '';
  const label = `Context now: ${meter.text.used}${estimate}. Compaction threshold: ${meter.text.compactAt}.${last} Click to open the inspector.`;
  return h('div', { class: 'meter-wrap' }, [
    h('button', { class: `meter level-${level}`, title: label, attrs: { type: 'button', 'data-level': level, 'data-used': meter.used, 'aria-label': label }, on: { click: onOpen } }, [
      h('div', { class: 'meter-track' }, [fill, mark]),
      h('span', { class: 'meter-text', text: `${percent(meter.usedShare, 0)} · ${shortTokens(meter.used)}/${shortTokens(meter.effectiveWindow)}` }),
    ]),
    h('div', { class: 'meter-detail', attrs: { 'data-meter': 'last-and-now' }, text: meter.text.lastAndNow }),
    meter.warning ? h('div', { class: 'meter-warning', attrs: { role: 'status' }, text: meter.warning }) : null,
  ]);
}

/**
 * The meter while the session's context is read: an empty track that says so, no share and no
 * window figure (they would change once counted); the last request's stored figure when there is one.
 */
function renderCounting(counting: MeterCounting, onOpen: () => void): HTMLElement {
  const last = counting.lastRequest ? ` The last request (#${counting.lastRequest.requestIndex}) carried ${counting.text.lastRequest ?? countOf(counting.lastRequest.tokens, 'token')}.` : '';
  const label = `Counting the context of this session.${last} Click to open the inspector.`;
  return h('div', { class: 'meter-wrap' }, [
    h('button', { class: 'meter counting', title: label, attrs: { type: 'button', 'data-level': 'counting', 'aria-label': label, 'aria-busy': 'true' }, on: { click: onOpen } }, [
      h('div', { class: 'meter-track' }, [h('div', { class: 'meter-counting' })]),
      h('span', { class: 'meter-text', text: COUNTING }),
    ]),
    h('div', { class: 'meter-detail', attrs: { 'data-meter': 'last-and-now' }, text: counting.text.lastAndNow }),
  ]);
}
