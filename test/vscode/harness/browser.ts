import type { Browser, Frame, Page } from 'playwright-core';

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * Opens the command palette and runs a command by its title, as a person would. Waits until the
 * palette's highlighted entry is that command: right after start-up the extension's commands may
 * not be registered yet, and Enter would run whatever else matched.
 */
export async function runCommand(page: Page, title: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    const offered = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title });
    try {
      // Under load the palette can miss F1 (pressed while a webview held the focus) or be hidden
      // once open (a quick pick closed just before): short limits send it round again.
      await input.waitFor({ state: 'visible', timeout: 8_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      await offered.first().waitFor({ state: 'visible', timeout: 3_000 });
      await page.keyboard.press('Enter');
      return;
    } catch {
      await page.keyboard.press('Escape');
      if (Date.now() > deadline) throw new Error(`the command palette never offered "${title}"`);
      await page.waitForTimeout(1_000);
    }
  }
}

/** Finds the webview frame (nested iframes) holding `selector`. */
export async function findFrame(page: Page, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.$(selector)) return frame;
      } catch {
        // detached frame
      }
    }
    await page.waitForTimeout(300);
  }
  throw new Error(`no frame contains ${selector}`);
}
