/**
 * The children of one container drawn from a keyed list: an element is made again only when its
 * value changed, and moved only when it is out of place, so a long list that gained one row costs
 * one row (the toolkit's controls are expensive to create and to reconnect).
 */
export class KeyedChildren<T> {
  private rendered = new Map<string, { value: T; element: HTMLElement }>();

  constructor(
    readonly container: HTMLElement,
    private readonly keyOf: (value: T) => string,
    private readonly render: (value: T) => HTMLElement,
    /** Whether an element drawn for `a` still shows `b` (by default: the very same value). */
    private readonly same: (a: T, b: T) => boolean = Object.is,
  ) {}

  update(values: readonly T[]): void {
    const next = new Map<string, { value: T; element: HTMLElement }>();
    const elements: HTMLElement[] = [];
    for (const value of values) {
      const key = this.keyOf(value);
      const old = this.rendered.get(key);
      const element = old && !next.has(key) && this.same(old.value, value) ? old.element : this.render(value);
      next.set(key, { value, element });
      elements.push(element);
    }
    elements.forEach((element, i) => {
      const at = this.container.children[i];
      if (at !== element) this.container.insertBefore(element, at ?? null);
    });
    while (this.container.children.length > elements.length) this.container.lastElementChild?.remove();
    this.rendered = next;
  }
}
