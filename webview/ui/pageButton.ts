import { button } from './controls';
import { replaceIfChanged } from './dom';
import { countOf, grouped } from '../../src/protocol/wording';

/** "Show 30 older requests", or with more than a page left "Show 200 older requests (1,234 more)". */
export function nextPageLabel(left: number, page: number, what: string, leftWord = 'more'): string {
  if (left <= 0) return '';
  return left <= page ? `Show ${countOf(left, what)}` : `Show ${countOf(page, what)} (${grouped(left)} ${leftWord})`;
}

/**
 * Puts in `slot` the button that draws a list's next page (nothing for an empty label). It is made
 * again only when its label changes, so `onClick` must read the list's state when it runs.
 */
export function setPageButton(slot: HTMLElement, label: string, action: string, onClick: () => void): void {
  replaceIfChanged(slot, label, () => (label ? [button(label, onClick, { appearance: 'secondary', attrs: { 'data-action': action } })] : []));
}
