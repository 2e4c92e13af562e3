import { button } from '../ui/controls';
import { h } from '../ui/dom';

/**
 * The composer's plan-mode switch and the line that says, above the message box, which mode the
 * next message runs in. The host holds the mode; this shows it and asks to switch.
 */
export class PlanModeToggle {
  readonly button: HTMLElement;
  readonly line = h('div', { class: 'plan-mode-line', attrs: { role: 'status', 'data-plan-mode': 'off' } });
  private on = false;

  constructor(onSwitch: (on: boolean) => void) {
    this.button = button('Plan mode: off', () => onSwitch(!this.on), {
      appearance: 'secondary',
      title: 'Tally: Toggle Plan Mode',
      attrs: { 'data-action': 'plan-mode', 'aria-pressed': 'false' },
    });
    this.show(false);
  }

  show(on: boolean): void {
    this.on = on;
    this.button.textContent = on ? 'Plan mode: on' : 'Plan mode: off';
    this.button.setAttribute('aria-pressed', String(on));
    this.line.dataset.planMode = on ? 'on' : 'off';
    this.line.hidden = !on;
    this.line.textContent = on ? 'Plan mode is on: the agent only reads and searches, then proposes a plan.' : '';
  }
}
