/**
 * FAST (under the toolkit) probes `:focus-visible` support at import time by appending a <style>
 * element to <head>. The webview CSP allows no inline styles, so the probe is blocked, reported as
 * a violation, and wrongly concludes "unsupported". While the toolkit's modules load, a <style>
 * created by script gets a constructable stylesheet instead: the probe's insertRule then answers
 * truthfully and nothing inline ever reaches the document. `endFocusProbeShim` restores the DOM API.
 * Import this module before the toolkit.
 */
const realCreateElement = document.createElement;

function createElementForProbe(this: Document, tagName: string, options?: ElementCreationOptions): HTMLElement {
  if (typeof tagName === 'string' && tagName.toLowerCase() === 'style') {
    const standIn = realCreateElement.call(this, 'template', options);
    Object.defineProperty(standIn, 'sheet', { value: new CSSStyleSheet() });
    return standIn;
  }
  return realCreateElement.call(this, tagName, options);
}

document.createElement = createElementForProbe as typeof document.createElement;

export function endFocusProbeShim(): void {
  if (document.createElement === (createElementForProbe as unknown)) document.createElement = realCreateElement;
}
