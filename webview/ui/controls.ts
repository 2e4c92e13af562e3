/**
 * The only module that touches @vscode/webview-ui-toolkit (unmaintained upstream): everything
 * else asks for "a button" or "a text field" here, so the toolkit can be swapped in one place.
 */
import { endFocusProbeShim } from './focusProbeShim';
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeProgressRing,
  vsCodeTextArea,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';
import { custom, h, type Child } from './dom';

// The toolkit's modules have run their import-time probes by now.
endFocusProbeShim();

let registered = false;

/** Registers the toolkit's custom elements; safe to call more than once. */
export function registerControls(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(
    vsCodeButton(),
    vsCodeDropdown(),
    vsCodeOption(),
    vsCodeProgressRing(),
    vsCodeTextArea(),
    vsCodeTextField(),
  );
}

export interface ButtonOptions {
  appearance?: 'primary' | 'secondary' | 'icon';
  title?: string;
  disabled?: boolean;
  class?: string;
  attrs?: Record<string, string>;
}

export function button(label: string, onClick: (event: MouseEvent) => void, opts: ButtonOptions = {}): HTMLElement {
  const el = custom('vscode-button', {
    class: opts.class,
    title: opts.title,
    attrs: { appearance: opts.appearance ?? 'primary', 'aria-label': opts.appearance === 'icon' ? (opts.title ?? label) : undefined, ...opts.attrs },
  }, [label]);
  if (opts.disabled) el.setAttribute('disabled', '');
  el.addEventListener('click', (event) => {
    if (el.hasAttribute('disabled')) return;
    onClick(event);
  });
  return el;
}

export function setDisabled(control: HTMLElement, disabled: boolean): void {
  if (disabled) control.setAttribute('disabled', '');
  else control.removeAttribute('disabled');
}

export interface TextInput {
  element: HTMLElement;
  get value(): string;
  set value(text: string);
  focus(): void;
}

function textInput(tag: 'vscode-text-field' | 'vscode-text-area', opts: { placeholder?: string; label?: string; maxLength?: number; class?: string; rows?: number }): TextInput {
  const element = custom(tag, {
    class: opts.class,
    attrs: { placeholder: opts.placeholder, maxlength: opts.maxLength, rows: opts.rows, resize: tag === 'vscode-text-area' ? 'vertical' : undefined, 'aria-label': opts.label ?? opts.placeholder },
  }, opts.label ? [opts.label] : []);
  const control = element as HTMLElement & { value: string };
  return {
    element,
    get value() {
      return control.value ?? '';
    },
    set value(text: string) {
      control.value = text;
      // The toolkit copies the value to its inner input on the next frame; keystrokes typed
      // before then would land in the old text, so update the inner input now too.
      const inner = (element as { control?: HTMLInputElement | HTMLTextAreaElement }).control;
      if (inner && inner.value !== text) inner.value = text;
    },
    focus: () => element.focus(),
  };
}

export function textField(opts: { placeholder?: string; label?: string; maxLength?: number; class?: string } = {}): TextInput {
  return textInput('vscode-text-field', opts);
}

export function textArea(opts: { placeholder?: string; label?: string; maxLength?: number; class?: string; rows?: number } = {}): TextInput {
  return textInput('vscode-text-area', opts);
}

/**
 * A short text label such as "truncated"; `kind` selects a theme colour in CSS. Not the toolkit's
 * <vscode-tag>/<vscode-badge>: their template carries a style attribute, which the webview CSP blocks.
 */
export function badge(text: string, kind?: string): HTMLElement {
  return h('span', { class: 'badge', attrs: { 'data-badge': kind ?? text } }, [text]);
}

export function progressRing(label?: string): HTMLElement {
  return custom('vscode-progress-ring', { attrs: { 'aria-label': label ?? 'Working' } });
}

export interface DropdownOption {
  value: string;
  label: string;
  title?: string;
}

export function dropdown(options: DropdownOption[], selected: string | undefined, onChange: (value: string) => void, opts: { label?: string; class?: string } = {}): HTMLElement {
  const children: Child[] = options.map((o) =>
    custom('vscode-option', { title: o.title, attrs: { value: o.value, selected: o.value === selected } }, [o.label]),
  );
  const el = custom('vscode-dropdown', { class: opts.class, attrs: { 'aria-label': opts.label } }, children);
  el.addEventListener('change', () => {
    const value = (el as HTMLElement & { value: string }).value;
    if (typeof value === 'string') onChange(value);
  });
  return el;
}
