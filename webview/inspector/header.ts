import type { InspectorState } from '../../src/protocol/inspector';
import { h } from '../ui/dom';
import { percent, tokens } from '../ui/format';

/** Session, model, replay label, window warnings and the forecast. */
export function renderHeader(state: InspectorState): HTMLElement {
  const b = state.budget;
  const facts: HTMLElement[] = [];
  const fact = (label: string, value: string, key: string) =>
    facts.push(h('div', { class: 'fact', attrs: { 'data-fact': key } }, [h('span', { class: 'fact-label', text: label }), h('span', { class: 'fact-value', text: value })]));
  if (state.model) fact('Model', state.model, 'model');
  if (b) {
    fact('Used', `${tokens(b.used)} of ${tokens(b.effectiveWindow)} (${percent(b.percent)})`, 'used');
    fact('Window', `${tokens(b.contextWindow)} (${tokens(b.maxOutputTokens)} reserved for output)`, 'window');
    if (b.calibration) {
      fact('Calibration', `×${b.calibration.factor.toFixed(3)} ± ${b.calibration.error.toFixed(3)} (${b.calibration.samples} samples)`, 'calibration');
    }
  }
  if (state.averageTurnTokens !== undefined) fact('Average turn', `${tokens(state.averageTurnTokens)} tokens`, 'average-turn');
  if (state.turnsRemaining !== undefined) fact('Turns until compaction', `≈ ${tokens(state.turnsRemaining)}`, 'turns-remaining');

  return h('header', { class: 'inspector-header' }, [
    h('div', { class: 'title-row' }, [
      h('h1', { text: state.session?.title ?? 'No session' }),
      state.replayLabel ? h('span', { class: 'replay-label', attrs: { 'data-replay': 'true' }, text: `Replay of a recorded run: ${state.replayLabel}` }) : null,
    ]),
    b?.warning ? h('div', { class: 'warning-line', attrs: { role: 'alert', 'data-warning': 'window' } }, [h('span', { class: 'codicon-text', text: '⚠ ' }), b.warning]) : null,
    h('div', { class: 'facts' }, facts),
  ]);
}
