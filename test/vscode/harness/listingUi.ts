import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import type { Frame, Page } from 'playwright-core';
import { findFrame, launchBrowser, runCommand } from './browser';
import { CODE_SERVER_ENTRY, startCodeServer } from './codeServer';
import { screenshotPath } from './screenshots';
import type { UiResult } from './uiTests';

const ROOT = resolve(__dirname, '..', '..', '..');

/** Packs the built extension into a .vsix, as a user would get it (dist/ must be built). */
function packExtension(dir: string): string {
  const vsix = join(dir, 'tally.vsix');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack-vsix.mjs'), vsix], { cwd: ROOT, stdio: 'ignore' });
  return vsix;
}

/** Whether every picture of a page (or webview frame) has loaded with a size. */
async function picturesLoaded(frame: Page | Frame, selector: string): Promise<Array<{ src: string; width: number }>> {
  await frame.waitForFunction((s) => Array.from(document.querySelectorAll<HTMLImageElement>(s)).every((img) => img.complete), selector, { timeout: 20_000 });
  return frame.$$eval(selector, (els) => (els as HTMLImageElement[]).map((img) => ({ src: img.getAttribute('src') ?? '', width: img.naturalWidth })));
}

/**
 * The installed package's own files at work: the demo run and the database engine ship
 * brotli-compressed, and the demo replay reads the one and stores its session with the other.
 */
async function demoFromThePackage(page: Page): Promise<UiResult> {
  const name = 'dark: the installed .vsix replays its demo run into its session store, and the inspector shows it';
  try {
    await runCommand(page, 'Tally: Open Demo Replay');
    const frame = await findFrame(page, '.seg[data-segment]', 120_000);
    await frame.waitForSelector('[data-request-index="10"]', { timeout: 60_000 });
    const tokens = await frame.$$eval('.seg[data-segment]', (els) => els.map((e) => Number(e.getAttribute('data-tokens'))));
    const total = tokens.reduce((a, b) => a + b, 0);
    if (total !== 32_000) throw new Error(`segments sum to ${total}, expected the demo's 32,000-token window`);
    return { name, ok: true };
  } catch (error) {
    await page.screenshot({ path: screenshotPath('installed-demo-failed-dark.png') }).catch(() => undefined);
    const notices = await page.$$eval('.notification-list-item-message', (els) => els.map((e) => e.textContent ?? '')).catch(() => []);
    return { name, ok: false, detail: `${error instanceof Error ? error.message : String(error)}${notices.length ? `; notifications: ${notices.join(' | ')}` : ''}` };
  }
}

/**
 * The extension as a user installs it: the .vsix installed into a fresh code-server (no development
 * path), opened at the plain address. Tally is in the activity bar, and its details page shows the
 * icon and the README with its picture loaded from the package. Screenshots in dark and light.
 */
export async function runListingUiTests(): Promise<UiResult[]> {
  const results: UiResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tally-listing-'));
  try {
    const vsix = packExtension(dir);
    for (const theme of ['dark', 'light'] as const) {
      const name = `${theme}: the installed .vsix loads at the plain address, and its details page shows the icon and the README's picture`;
      const themeDir = join(dir, theme);
      const workspace = join(themeDir, 'workspace');
      for (const folder of ['user-data', 'extensions', 'workspace']) mkdirSync(join(themeDir, folder), { recursive: true });
      execFileSync(process.execPath, [CODE_SERVER_ENTRY, '--user-data-dir', join(themeDir, 'user-data'), '--extensions-dir', join(themeDir, 'extensions'), '--install-extension', vsix, '--force'], { stdio: 'pipe' });
      const server = await startCodeServer({
        dir: themeDir,
        workspace,
        settings: { 'security.workspace.trust.enabled': false, 'workbench.colorTheme': theme === 'dark' ? 'Default Dark Modern' : 'Default Light Modern', 'extensions.autoCheckUpdates': false },
      });
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: theme });
        await page.goto(`${server.url}/`);
        await page.waitForSelector('.activitybar .action-item a[aria-label="Tally"]', { timeout: 90_000 });
        await page.waitForTimeout(2000);
        await page.locator('.activitybar .action-item a[aria-label^="Extensions"]').click();
        await page.waitForTimeout(3000);
        await page.keyboard.type('@installed tally', { delay: 50 });
        const row = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Tally' }).first();
        await row.waitFor({ timeout: 30_000 });
        await row.click();
        await page.waitForSelector('.extension-editor .header', { timeout: 30_000 });
        const icons = await picturesLoaded(page, '.extension-editor .header img.icon');
        if (icons.length !== 1 || icons[0].width !== 128 || /default/i.test(icons[0].src)) throw new Error(`the icon is not the extension's own 128-pixel picture: ${JSON.stringify(icons)}`);
        const readme = await findFrame(page, 'h1#tally, h1', 30_000);
        const title = (await readme.textContent('h1')) ?? '';
        if (title.trim() !== 'Tally') throw new Error(`the details page does not show the README (first heading "${title}")`);
        const pictures = await picturesLoaded(readme, 'img');
        if (pictures.length === 0 || pictures.some((p) => p.width === 0)) throw new Error(`a README picture did not load: ${JSON.stringify(pictures)}`);
        await page.mouse.move(1300, 880);
        await page.waitForTimeout(1000);
        await page.screenshot({ path: screenshotPath(`extension-page-${theme}.png`) });
        await readme.locator('img').first().scrollIntoViewIfNeeded();
        await page.waitForTimeout(500);
        await page.screenshot({ path: screenshotPath(`extension-page-picture-${theme}.png`) });
        results.push({ name, ok: true });
        if (theme === 'dark') results.push(await demoFromThePackage(page));
      } catch (error) {
        results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
      } finally {
        await browser.close();
        await server.stop();
      }
    }
  } catch (error) {
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    results.push({ name: 'the .vsix is packed and installed', ok: false, detail: `${error instanceof Error ? error.message : String(error)}${output ? `\n${output}` : ''}` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
