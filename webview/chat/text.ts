import { h } from '../ui/dom';

/**
 * Assistant text as paragraphs and fenced code blocks. Everything becomes text nodes:
 * no markdown-to-HTML, so nothing the model writes can become markup.
 */
export function renderText(text: string): HTMLElement[] {
  const out: HTMLElement[] = [];
  const parts = text.split(/^```/m);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const newline = part.indexOf('\n');
      const lang = newline >= 0 ? part.slice(0, newline).trim() : '';
      const code = newline >= 0 ? part.slice(newline + 1) : part;
      out.push(h('pre', { class: 'code', attrs: { 'data-lang': lang || undefined } }, [h('code', { text: code.replace(/\n$/, '') })]));
    } else if (part.trim().length) {
      out.push(h('div', { class: 'text', text: part.replace(/^\n+|\n+$/g, '') }));
    }
  });
  return out;
}
