/** Where a composer's pop-up list stands (the `/` commands, the `#` attachments). */
export interface PopupListState {
  hidden: boolean;
  items: ReadonlyArray<{ unavailable?: unknown }>;
  active: number;
}

/** What the list does when a key is its own. */
export interface PopupListActions {
  moveTo(index: number): void;
  choose(index: number): void;
  close(): void;
}

/**
 * The keys of a pop-up list: arrows move to the next item that can be chosen, Enter or Tab chooses,
 * Escape closes. A list with nothing to choose takes no key, so Enter still sends. Returns whether
 * the key was the list's.
 */
export function popupListKey(event: KeyboardEvent, list: PopupListState, actions: PopupListActions): boolean {
  const { items } = list;
  if (list.hidden || !items.some((i) => !i.unavailable)) return false;
  const move = (by: number) => {
    let next = list.active;
    do next = (next + by + items.length) % items.length;
    while (items[next].unavailable);
    actions.moveTo(next);
  };
  if (event.key === 'ArrowDown') move(1);
  else if (event.key === 'ArrowUp') move(-1);
  else if (event.key === 'Enter' || event.key === 'Tab') actions.choose(list.active);
  else if (event.key === 'Escape') actions.close();
  else return false;
  event.preventDefault();
  return true;
}
