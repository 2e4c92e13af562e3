import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { button } from '../ui/controls';
import { append, h } from '../ui/dom';
import { hiddenSummary } from '../../src/protocol/hiddenCharacters';
import { drawSliced, SLICE_CHARS } from './longText';
import { revealedNodes, revealHidden } from './revealHidden';
import { countOf } from '../../src/protocol/wording';

/** Links the chat will ask the host to open; anything else stays plain text. */
export function isOpenableUrl(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url.trim());
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
md.validateLink = isOpenableUrl;

// Table alignment comes out as a style attribute, which the webview's CSP refuses: use a class.
md.core.ruler.push('align_as_class', (state) => {
  const walk = (tokens: Token[]) => {
    for (const token of tokens) {
      const style = token.attrGet('style');
      if (style) {
        const align = /text-align:\s*(left|right|center)/.exec(style)?.[1];
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
        if (align) token.attrJoin('class', `align-${align}`);
      }
      if (token.children) walk(token.children);
    }
  };
  walk(state.tokens);
});

// An image would be a request the CSP blocks: show it as a link to the picture instead.
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx];
  const src = token.attrGet('src') ?? '';
  const alt = md.utils.escapeHtml(token.content || 'image');
  return isOpenableUrl(src) ? `<a href="${md.utils.escapeHtml(src)}">🖼 ${alt}</a>` : alt;
};

export interface MarkdownActions {
  onCopy: (code: string) => void;
  onInsert: (code: string) => void;
  /** Links open through the host; the webview itself never navigates. */
  onOpenLink: (url: string) => void;
}

/** Sets an element's text to `text` with its hidden characters as ⟨U+…⟩ markers (every line kept). */
function revealIn(el: Element, text: string): void {
  const { parts, findings } = revealHidden(text, { collapseBlankLines: false });
  el.textContent = findings.length ? '' : text;
  if (findings.length) append(el, revealedNodes(parts));
}

/**
 * A fenced block with Copy and Insert at cursor. Characters that are invisible or reorder the
 * text show as markers with a warning line; Copy copies the exact text (markers are not part of
 * it) and Insert at cursor sends it to the host, which asks before inserting such characters.
 */
function codeBlock(pre: HTMLPreElement, actions: MarkdownActions): HTMLElement {
  const codeEl = pre.querySelector('code');
  const code = (codeEl?.textContent ?? pre.textContent ?? '').replace(/\n$/, '');
  const lang = /(?:^|\s)language-([^\s]+)/.exec(codeEl?.className ?? '')?.[1] ?? '';
  const found = hiddenSummary(code);
  revealIn(codeEl ?? pre, code);
  pre.className = 'code';
  if (lang) pre.setAttribute('data-lang', lang);
  const warning = found.count
    ? h('div', {
        class: 'code-warning',
        attrs: { role: 'note' },
        text: `⚠ This code contains ${countOf(found.count, 'invisible or direction-changing character')} (${found.codePoints.join(', ')}), shown as ⟨U+…⟩ markers. Copy copies the exact text, those characters included; Insert at cursor asks first.`,
      })
    : null;
  return h('div', { class: 'code-block', attrs: found.count ? { 'data-hidden-chars': found.count } : {} }, [
    h('div', { class: 'code-head' }, [
      h('span', { class: 'code-lang', text: lang || 'text' }),
      button('Copy', () => actions.onCopy(code), { appearance: 'secondary', title: found.count ? 'Copy the exact code, invisible characters included' : 'Copy the code', attrs: { 'data-action': 'copy-code' } }),
      button('Insert at cursor', () => actions.onInsert(code), { appearance: 'secondary', title: 'Insert the code at the cursor in the active editor', attrs: { 'data-action': 'insert-code' } }),
    ]),
    warning,
    pre,
  ]);
}

/**
 * Assistant text as markdown. Raw HTML is off (the model's `<script>` is text), links are limited to
 * http, https and mailto, and the HTML is parsed into an inert template before it is adopted, so
 * nothing runs or loads while it is built. Unclosed fences (a reply still streaming) render as code.
 * A text longer than one slice is drawn a slice at a time (longText.ts), `key` keeping how many
 * slices it shows; link definitions of earlier slices serve the later ones.
 */
export function renderMarkdown(text: string, actions: MarkdownActions, key = ''): HTMLElement {
  const root = h('div', { class: 'markdown' });
  root.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest?.('a');
    if (!link) return;
    event.preventDefault();
    const href = link.getAttribute('data-href');
    if (href) actions.onOpenLink(href);
  });
  if (text.length <= SLICE_CHARS) {
    root.appendChild(markdownNodes(text, actions, {}));
    return root;
  }
  const env: { references?: Record<string, unknown> } = {};
  // Without a key two bodies could share their slices: each is drawn anew.
  const carry = key ? { save: () => (env.references ? { ...env.references } : undefined), restore: (saved: unknown) => void (env.references = saved ? { ...(saved as Record<string, unknown>) } : undefined) } : undefined;
  return drawSliced(text, { key: `md:${key}`, kind: 'markdown', into: root, draw: (slice) => markdownNodes(slice, actions, env), ...(carry ? { carry } : { reuse: false }) });
}

/** One text's markdown as nodes; `env` carries link definitions from one slice to the next. */
function markdownNodes(text: string, actions: MarkdownActions, env: object): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = md.render(text, env);
  const root = template.content;
  // The newlines markdown-it writes between blocks are not content.
  for (const node of Array.from(root.childNodes)) if (node.nodeType === Node.TEXT_NODE && !node.textContent?.trim()) node.remove();
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const placeholder = document.createComment('code');
    pre.replaceWith(placeholder);
    placeholder.replaceWith(codeBlock(pre, actions));
  }
  // Inline code is shown with the same markers (it has no actions, so no warning line).
  for (const code of Array.from(root.querySelectorAll(':not(pre) > code'))) revealIn(code, code.textContent ?? '');
  for (const a of Array.from(root.querySelectorAll('a'))) {
    const href = a.getAttribute('href') ?? '';
    if (!isOpenableUrl(href)) {
      a.replaceWith(document.createTextNode(a.textContent ?? ''));
      continue;
    }
    a.setAttribute('data-href', href);
    a.title = href;
  }
  for (const table of Array.from(root.querySelectorAll('table'))) {
    const wrap = h('div', { class: 'table-wrap' });
    table.replaceWith(wrap);
    wrap.appendChild(table);
  }
  return root;
}
