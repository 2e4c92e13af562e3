import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import type { ReadablePage } from '../../core/ports/webAccess';

/** What is left out of a page that Readability finds no article in. */
const NOT_CONTENT = 'script, style, noscript, template, nav, header, footer, aside, form, iframe, svg, canvas, button, dialog';

/**
 * Past this many elements Readability's scoring takes longer than parsing and converting together
 * (a 5 MB page: about three quarters of some 10 s, so it missed the reader's time limit on a busy
 * machine). Such a page keeps its body without navigation, scripts and styles instead: it is read
 * in one parse, and whole, for read_result to page through.
 */
export const MAX_SCORED_ELEMENTS = 15_000;

/**
 * An HTML page as markdown: Readability (Firefox's Reader View) picks the main content and title,
 * linkedom gives it a DOM without a browser, turndown writes the markdown from that DOM (no
 * second parse). A page with no article (a listing, a short page), or too large to score
 * (MAX_SCORED_ELEMENTS), keeps its body without navigation, scripts and styles.
 * Links and images point where they would in a browser (absolute, against the page's address).
 */
export function readablePage(html: string, url: string): ReadablePage {
  const document = parsed(html, url);
  const pageTitle = document.title?.trim() || undefined;
  const scored = document.querySelectorAll('*').length <= MAX_SCORED_ELEMENTS;
  let article: ReturnType<Readability['parse']> = null;
  if (scored) {
    try {
      article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200 }).parse();
    } catch {
      article = null;
    }
  }
  let root: unknown;
  if (article?.content && article.textContent?.trim()) root = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body;
  else {
    // Readability changes the document it scores: a page it found no article in is parsed again.
    const whole = scored ? parsed(html, url) : document;
    for (const element of Array.from(whole.querySelectorAll(NOT_CONTENT))) element.remove();
    root = whole.body ?? whole.documentElement;
  }
  const markdown = root ? markdownOf(root) : '';
  return { ...(article?.title?.trim() || pageTitle ? { title: article?.title?.trim() || pageTitle } : {}), markdown };
}

function parsed(html: string, url: string) {
  const { document } = parseHTML(html);
  for (const [selector, attribute] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const element of Array.from(document.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute);
      if (!value) continue;
      try {
        element.setAttribute(attribute, new URL(value, url).href);
      } catch {
        // Left as written: the page's own odd link.
      }
    }
  }
  return document;
}

function markdownOf(root: unknown): string {
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove(['script', 'style', 'noscript', 'template']);
  return turndown.turndown(root as TurndownService.Node).replace(/\n{3,}/g, '\n\n');
}
