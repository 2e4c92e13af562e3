import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { findFrame, launchBrowser, runCommand } from './browser';
import { startCodeServer } from './codeServer';
import { makeWorkspace } from './workspace';

const ROOT = resolve(__dirname, '..', '..', '..');

export interface UiResult {
  name: string;
  ok: boolean;
  detail?: string;
}

/** Drives the real VS Code as a person would: palette → demo replay → inspector; screenshots per theme. */
export async function runUiTests(theme: 'dark' | 'light'): Promise<UiResult[]> {
  const results: UiResult[] = [];
  const check = async (name: string, body: () => Promise<void>) => {
    try {
      await body();
      results.push({ name, ok: true });
    } catch (error) {
      results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
  };
  const dir = mkdtempSync(join(tmpdir(), 'tally-ui-'));
  const workspace = makeWorkspace(dir);
  const server = await startCodeServer({
    dir,
    workspace,
    settings: { 'security.workspace.trust.enabled': false, 'workbench.colorTheme': theme === 'dark' ? 'Default Dark Modern' : 'Default Light Modern', 'workbench.preferredDarkColorTheme': 'Default Dark Modern', 'workbench.preferredLightColorTheme': 'Default Light Modern', 'window.autoDetectColorScheme': true, 'tally.provider': 'openai-compatible' },
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: theme });
    const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${ROOT}`]];
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await page.waitForTimeout(3000);
    await check(`${theme}: the inspector opens from the palette on the demo replay, and its bar segments sum to the window`, async () => {
      await runCommand(page, 'Tally: Open Demo Replay');
      const frame = await findFrame(page, '.seg[data-segment]', 120_000);
      await page.waitForTimeout(1500);
      const tokens = await frame.$$eval('.seg[data-segment]', (els) => els.map((e) => Number(e.getAttribute('data-tokens'))));
      const total = tokens.reduce((a, b) => a + b, 0);
      if (total !== 32_000) throw new Error(`segments sum to ${total}, expected the 32,000-token window`);
      const label = await frame.textContent('body');
      if (!/Replay/i.test(label ?? '')) throw new Error('the replay is not labelled as a replay');
    });
    await check(`${theme}: selecting a request lists what it carried`, async () => {
      const frame = await findFrame(page, '[data-request-index]');
      await frame.click('[data-request-index="10"]');
      await frame.waitForSelector('.item', { timeout: 20_000 });
    });
    mkdirSync(join(ROOT, 'docs', 'screenshots'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'docs', 'screenshots', `inspector-${theme}.png`) });
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
