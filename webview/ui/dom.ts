/**
 * A tiny DOM builder. Host-provided text only ever becomes text nodes or attribute values,
 * never markup (the CSP forbids inline style attributes too, so there is no `style` option).
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string | number | boolean | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  applyProps(el, props);
  append(el, children);
  return el;
}

/** Same, for custom elements (the toolkit's `vscode-*` tags). */
export function custom(tag: string, props: Props = {}, children: Child[] = []): HTMLElement {
  const el = document.createElement(tag);
  applyProps(el, props);
  append(el, children);
  return el;
}

function applyProps(el: HTMLElement, props: Props): void {
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  if (props.title !== undefined) el.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, handler] of Object.entries(props.on ?? {})) {
    if (handler) el.addEventListener(name, handler as EventListener);
  }
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces all children of `parent` (nothing is touched when they are already those children). */
export function replace(parent: Node, children: Child[]): void {
  const nodes = children.filter((child): child is Node => child instanceof Node);
  if (nodes.length === children.length && nodes.length === parent.childNodes.length && nodes.every((node, i) => parent.childNodes[i] === node)) return;
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/** Replaces the children of `slot` with `children()`, unless what it shows is still `signature`. */
export function replaceIfChanged(slot: HTMLElement, signature: string, children: () => Child[]): void {
  if (slot.dataset.shows === signature) return;
  slot.dataset.shows = signature;
  replace(slot, children());
}

/** A <details> element that reports its open state (so re-renders can keep it). */
export function details(summary: Child[], body: Child[], opts: { open: boolean; class?: string; onToggle?: (open: boolean) => void; attrs?: Props['attrs'] }): HTMLDetailsElement {
  const el = h('details', { class: opts.class, attrs: opts.attrs }, [h('summary', {}, summary), ...body]);
  el.open = opts.open;
  el.addEventListener('toggle', () => opts.onToggle?.(el.open));
  return el;
}

/**
 * A <details> whose body is built only once it is open (at once when it starts open): a collapsed
 * block costs nothing to draw however large what it would show.
 */
export function lazyDetails(summary: Child[], body: () => Child[], opts: { open: boolean; class?: string; onToggle?: (open: boolean) => void; attrs?: Props['attrs'] }): HTMLDetailsElement {
  const el = h('details', { class: opts.class, attrs: opts.attrs }, [h('summary', {}, summary)]);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    append(el, body());
  };
  if (opts.open) build();
  el.open = opts.open;
  el.addEventListener('toggle', () => {
    if (el.open) build();
    opts.onToggle?.(el.open);
  });
  return el;
}
