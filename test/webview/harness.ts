/**
 * Serves a Tally webview bundle the way VS Code does (same CSP, nonce'd script, only local files)
 * from 127.0.0.1 and opens it in headless Chromium. A stub `acquireVsCodeApi` records what the page
 * posts on `window.__posted`; CSP violations are collected on `window.__csp`.
 */
import { randomBytes } from 'crypto';
import { existsSync, readFileSync } from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { THEMES, type ThemeName } from './themes';

const ROOT = path.resolve(__dirname, '../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'webview');
const CHROMIUM = process.env.TALLY_CHROMIUM ?? '/usr/bin/chromium';

const STUB = `(() => {
  window.__posted = [];
  window.__csp = [];
  window.__state = undefined;
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__csp.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
  });
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => window.__state,
      setState: (s) => { window.__state = JSON.parse(JSON.stringify(s)); },
    };
  };
})();`;

function page(app: 'inspector' | 'chat', theme: ThemeName, origin: string): string {
  const nonce = randomBytes(16).toString('base64');
  // The host's policy (src/views/webviewHtml.ts) with this server as the webview's cspSource.
  const csp = [`default-src 'none'`, `style-src ${origin}`, `font-src ${origin}`, `img-src ${origin} data:`, `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="/theme/${theme}.css">
<link rel="stylesheet" href="/media/webview/common.css">
<link rel="stylesheet" href="/media/webview/${app}.css">
<title>test</title>
</head>
<body class="vscode-${theme}">
<div id="app" data-app="${app}"></div>
<script nonce="${nonce}" src="/stub.js"></script>
<script nonce="${nonce}" src="/dist/webview/${app}.js"></script>
</body>
</html>`;
}

function themeCss(theme: ThemeName): string {
  return `:root {\n${Object.entries(THEMES[theme]).map(([k, v]) => `  --vscode-${k}: ${v};`).join('\n')}\n}\n`;
}

const pageErrors = new WeakMap<Page, string[]>();

/** Uncaught exceptions in the page so far. */
export function errorsIn(p: Page): string[] {
  return pageErrors.get(p) ?? [];
}

export interface Harness {
  browser: Browser;
  origin: string;
  open(app: 'inspector' | 'chat', opts?: { theme?: ThemeName; width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

async function launchHarness(root = ROOT): Promise<Harness> {
  for (const bundle of ['inspector', 'chat']) {
    const file = path.join(root, 'dist', 'webview', `${bundle}.js`);
    if (!existsSync(file)) throw new Error(`${file} is missing: run node scripts/build.mjs first`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set TALLY_CHROMIUM)`);
  let origin = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const asked = url.searchParams.get('theme');
    const theme: ThemeName = asked === 'light' || asked === 'high-contrast' ? asked : 'dark';
    if (url.pathname === '/inspector.html' || url.pathname === '/chat.html') return send('text/html', page(url.pathname === '/chat.html' ? 'chat' : 'inspector', theme, origin));
    if (url.pathname === '/stub.js') return send('text/javascript', STUB);
    const themeFile = /^\/theme\/(dark|light|high-contrast)\.css$/.exec(url.pathname);
    if (themeFile) return send('text/css', themeCss(themeFile[1] as ThemeName));
    const allowed = /^\/(dist\/webview\/(inspector|chat)\.js|media\/webview\/(common|inspector|chat)\.css)$/.exec(url.pathname);
    if (allowed) {
      const file = path.join(root, url.pathname);
      return send(file.endsWith('.css') ? 'text/css' : 'text/javascript', readFileSync(file));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    browser,
    origin,
    async open(app, opts = {}) {
      const p = await browser.newPage({ viewport: { width: opts.width ?? 1100, height: opts.height ?? 900 } });
      const errors: string[] = [];
      pageErrors.set(p, errors);
      p.on('pageerror', (error) => errors.push(error.message));
      await p.goto(`${origin}/${app}.html?theme=${opts.theme ?? 'dark'}`);
      await p.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
      return p;
    },
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A harness serving another checkout's built bundles (`root` holds dist/webview and media/), e.g. an older build to compare with. */
export function startHarnessAt(root: string): Promise<Harness> {
  return launchHarness(root);
}

let shared: Promise<Harness> | undefined;

/**
 * The page server and the browser. Under mocha every suite of a run shares one, closed after the
 * run's last test (a root hook): launching Chromium once per file cost more than most tests; each
 * page is still a fresh browser context. Outside mocha the caller closes its own.
 */
export function startHarness(): Promise<Harness> {
  if (typeof after !== 'function') return launchHarness();
  shared ??= launchHarness();
  return shared.then((harness) => ({ ...harness, close: async () => undefined }));
}

if (typeof after === 'function') {
  after(async () => {
    const harness = await shared?.catch(() => undefined);
    shared = undefined;
    await harness?.close();
  });
}

/** Sends a host → webview message the way VS Code delivers it (a window `message` event). */
export async function hostSends(p: Page, message: unknown): Promise<void> {
  await p.evaluate((m) => window.postMessage(m, '*'), message);
  // Let the page handle it and FAST flush its render queue.
  await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
}

/**
 * Clicks a control below a long list. Rows are laid out only once near the viewport
 * (`content-visibility: auto`), so scrolling to the control resizes the rows around it for a frame
 * or two: a click aimed before that lands on a row instead. Scroll, let two frames pass, then click.
 */
export async function clickWhenSettled(control: Locator): Promise<void> {
  await control.scrollIntoViewIfNeeded();
  await control.page().evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await control.click();
}

export async function posted(p: Page): Promise<Array<Record<string, unknown>>> {
  return p.evaluate(() => (window as unknown as { __posted: Array<Record<string, unknown>> }).__posted);
}

export async function clearPosted(p: Page): Promise<void> {
  await p.evaluate(() => {
    (window as unknown as { __posted: unknown[] }).__posted.length = 0;
  });
}

export async function cspViolations(p: Page): Promise<unknown[]> {
  return p.evaluate(() => (window as unknown as { __csp: unknown[] }).__csp);
}

/** Fails when `page` saw a CSP violation or an uncaught error. */
async function assertCleanPage(page: Page): Promise<void> {
  const violations = await cspViolations(page);
  const errors = errorsIn(page);
  if (violations.length) throw new Error(`CSP violations: ${JSON.stringify(violations)}`);
  if (errors.length) throw new Error(`uncaught errors in the page: ${errors.join('; ')}`);
}

/**
 * Mocha hooks for suites that open their own pages: `open` opens one as the harness does; after
 * each test every page it opened that is still open is checked (no CSP violation, no uncaught
 * error) and closed.
 */
export function useHarness(): { harness(): Harness; open: Harness['open'] } {
  let harness: Harness;
  const opened: Page[] = [];
  before(async () => {
    harness = await startHarness();
  });
  afterEach(async () => {
    for (const page of opened.splice(0)) {
      if (page.isClosed()) continue;
      try {
        await assertCleanPage(page);
      } finally {
        await page.close();
      }
    }
  });
  return {
    harness: () => harness,
    async open(app, opts) {
      const page = await harness.open(app, opts);
      opened.push(page);
      return page;
    },
  };
}

/**
 * Mocha hooks for a suite of page tests: a fresh page per test that has received `state` (unless
 * it is undefined; and whose posts are cleared, unless `clearPosted: false`), and after each test
 * no CSP violation and no error.
 */
export function usePage(app: 'inspector' | 'chat', state: unknown, opts: { width?: number; height?: number; clearPosted?: boolean } = {}): { harness(): Harness; page(): Page } {
  const pages = useHarness();
  let page: Page;
  beforeEach(async () => {
    page = await pages.open(app, opts);
    if (state === undefined) return;
    await hostSends(page, { type: 'state', state });
    if (opts.clearPosted !== false) await clearPosted(page);
  });
  return { harness: pages.harness, page: () => page };
}
