import type { InspectorState } from '../../src/protocol/inspector';
import { h } from '../ui/dom';
import { tokens } from '../ui/format';
import { countOf } from '../../src/protocol/wording';

/** "The provider counts 8.2% more tokens than Tally's own count (± 1.4%, over 9 requests)". */
export function calibrationWords(factor: number, error: number, samples: number): string {
  const over = Math.abs(factor - 1) * 100;
  // One request gives no spread to speak of: it is named rather than shown as "± 0.0%".
  const spread = samples < 2 ? `from ${countOf(samples, 'request')} so far` : `± ${(error * 100).toFixed(1)}%, over ${countOf(samples, 'request')}`;
  if (over < 0.05) return `The provider counts the same tokens as Tally's own count (${spread})`;
  const direction = factor > 1 ? 'more tokens' : 'fewer tokens';
  return `The provider counts ${over.toFixed(1)}% ${direction} than Tally's own count (${spread})`;
}

/**
 * Session, model, replay label, window warnings and the forecast. The window numbers are the
 * host's figures, as the status bar and the chat meter show them, each with its denominator.
 */
export function renderHeader(state: InspectorState): HTMLElement {
  const f = state.figures;
  const facts: HTMLElement[] = [];
  const fact = (label: string, value: string, key: string, title?: string) =>
    facts.push(h('div', { class: 'fact', title, attrs: { 'data-fact': key } }, [h('span', { class: 'fact-label', text: label }), h('span', { class: 'fact-value', text: value })]));
  if (state.model) fact('Model', state.model, 'model');
  if (f) {
    const now = f.text.estimate ? `${f.text.used} · ${f.text.estimate}` : f.text.used;
    fact('Context now', now, 'used', f.basis === 'reported' ? "What the next request would carry: the provider's last reported count plus Tally's estimate of what changed since" : "What the next request would carry, by Tally's estimate: the provider has not reported a count yet");
    if (f.lastRequest) {
      const reported = f.lastRequest.reported !== undefined;
      fact(`Last request (#${f.lastRequest.requestIndex})`, f.text.lastRequest ?? countOf(f.lastRequest.tokens, 'token'), 'last-request', `What the last request sent carried${reported ? ', as the provider reported it' : ", by Tally's estimate (the provider reported no count)"}; the context now differs after a compaction or new messages`);
    }
    fact('Effective window', f.text.effectiveWindow, 'effective-window');
    fact('Compaction at', f.text.compactAt, 'compact-at');
    fact('Block at', f.text.blockAt, 'block-at', 'No request is sent above this: compaction must run first');
  }
  if (state.calibration) {
    const c = state.calibration;
    fact('Estimate vs provider', `${calibrationWords(c.factor, c.error, c.samples)} · ×${c.factor.toFixed(3)} ± ${c.error.toFixed(3)}`, 'calibration', "Tally counts tokens itself before each request and corrects its count by this factor, learned from the provider's reported counts");
  }
  const over = state.forecastTurns !== undefined ? ` over the last ${countOf(state.forecastTurns, 'turn')}` : '';
  if (state.averageRequestGrowth !== undefined) fact('Average turn', `${countOf(state.averageRequestGrowth, 'token')}${over}`, 'average-turn', 'What one of your messages and the work it started (every request of the turn) added to the context, on average');
  if (state.requestsUntilCompaction !== undefined) fact('Turns until compaction', `≈ ${tokens(state.requestsUntilCompaction)}`, 'turns-remaining', `Assumes each next turn adds the average turn${over}; a turn that reads large files reaches the threshold sooner`);

  const warning = f?.warning;
  return h('header', { class: 'inspector-header' }, [
    h('div', { class: 'title-row' }, [
      h('h1', { text: state.session?.title ?? 'No session' }),
      state.replayLabel ? h('span', { class: 'replay-label', attrs: { 'data-replay': 'true' }, text: `Replay of a recorded run: ${state.replayLabel}` }) : null,
    ]),
    warning ? h('div', { class: 'warning-line', attrs: { role: 'alert', 'data-warning': 'window' } }, [h('span', { class: 'codicon-text', text: '⚠ ' }), warning]) : null,
    h('div', { class: 'facts' }, facts),
  ]);
}
