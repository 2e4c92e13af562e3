import type { Locator } from 'playwright-core';

/** WCAG relative luminance of an `rgb(…)`/`rgba(…)` colour as the browser computed it. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The contrast ratio between an element's text colour and the first opaque background behind it,
 * as a person sees it in the theme the page was opened with (WCAG: 4.5 is the minimum for text).
 */
export async function textContrast(element: Locator): Promise<number> {
  const { text, background } = await element.evaluate((e) => {
    let node: Element | null = e;
    let bg = 'rgb(255, 255, 255)';
    while (node) {
      const c = getComputedStyle(node).backgroundColor;
      if (c && !/rgba\(.*,\s*0\)$/.test(c) && c !== 'transparent') {
        bg = c;
        break;
      }
      node = node.parentElement;
    }
    return { text: getComputedStyle(e).color, background: bg };
  });
  const [hi, lo] = [luminance(text), luminance(background)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}
