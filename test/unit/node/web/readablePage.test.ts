import { strict as assert } from 'assert';
import { MAX_SCORED_ELEMENTS, readablePage } from '../../../../src/node/web/readablePage';

/** A page with a long article and, outside it, a short reader comment that Reader View leaves out. */
function pageWithComment(paragraphs: number): string {
  const article = Array.from({ length: paragraphs }, (_, i) => `<p>Paragraph ${i} explains how the request body is streamed to the server, one block at a time. See <a href="/ref/${i}">reference ${i}</a>.</p>`).join('');
  return [
    '<!doctype html><html><head><title>Streaming bodies</title><script>var tracking = 1;</script></head><body>',
    '<nav><a href="/home">Home</a></nav>',
    `<article><h1>Streaming bodies</h1>${article}</article>`,
    '<div class="comments"><p>Reader comment: thanks.</p></div>',
    '<footer>Footer links</footer></body></html>',
  ].join('');
}

describe('readable pages', function () {
  this.timeout(60_000);

  it('a page of ordinary size is read as Reader View reads it: the article, without what is around it', () => {
    const page = readablePage(pageWithComment(40), 'https://docs.example/guide');
    assert.equal(page.title, 'Streaming bodies');
    assert.match(page.markdown, /Paragraph 39 explains/);
    assert.match(page.markdown, /\[reference 3\]\(https:\/\/docs\.example\/ref\/3\)/);
    assert.doesNotMatch(page.markdown, /Reader comment|Footer links|tracking/);
  });

  it('a page too large to score is read whole in one pass: all its text, links absolute, without navigation, scripts or footer', () => {
    // Two elements a paragraph: past the bound that Readability's scoring is skipped at.
    const paragraphs = Math.ceil(MAX_SCORED_ELEMENTS / 2) + 100;
    const page = readablePage(pageWithComment(paragraphs), 'https://docs.example/guide');
    assert.equal(page.title, 'Streaming bodies');
    assert.match(page.markdown, /^# Streaming bodies/m);
    assert.match(page.markdown, new RegExp(`Paragraph ${paragraphs - 1} explains`));
    assert.match(page.markdown, /\[reference 3\]\(https:\/\/docs\.example\/ref\/3\)/);
    assert.match(page.markdown, /Reader comment: thanks\./);
    assert.doesNotMatch(page.markdown, /Footer links|tracking|\(https:\/\/docs\.example\/home\)/);
  });
});
