import type { Page } from 'playwright-core';
import { runCommand } from './browser';
import { screenshotPath } from './screenshots';
import { FakeLocalModelServer } from '../../fakes/modelListServers';

/**
 * Select Model in the real VS Code, as a person uses it: the palette, the provider list, the
 * server address, then the models a local (fake) Ollama lists with their windows; the
 * confirmation names the window the server loaded the model with. Screenshot of the model list.
 * It changes the user's model settings, so it runs last.
 */
export async function checkModelPicker(page: Page, theme: string, check: (name: string, body: () => Promise<void>) => Promise<void>): Promise<void> {
  const ollama = await new FakeLocalModelServer({
    flavour: 'ollama',
    defaultWindow: 4_096,
    models: [
      { id: 'qwen2.5-coder:14b', arch: 'qwen2', trainedWindow: 32_768 },
      { id: 'llama3.1:8b', arch: 'llama', trainedWindow: 131_072, numCtx: 16_384 },
      { id: 'devstral:24b', arch: 'llama', trainedWindow: 131_072, numCtx: 65_536 },
    ],
  }).start();
  try {
    await check(`${theme}: Select Model lists a local server's models with their windows and confirms the window the server serves`, async () => {
      await page.keyboard.press('Escape');
      await runCommand(page, 'Tally: Select Model');
      const input = page.locator('.quick-input-widget input');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'OpenAI-compatible server' }).first().waitFor({ timeout: 20_000 });
      await input.fill('OpenAI-compatible');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'server address' }).waitFor({ timeout: 20_000 });
      await input.fill(ollama.url);
      await page.keyboard.press('Enter');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'window 16,384 tokens' });
      await row.first().waitFor({ timeout: 30_000 });
      for (const text of ['qwen2.5-coder:14b', 'window 65,536 tokens', 'Other model']) {
        if (!(await page.locator('.quick-input-list', { hasText: text }).count())) throw new Error(`the model list lacks "${text}"`);
      }
      await page.waitForTimeout(500);
      await page.screenshot({ path: screenshotPath(`model-picker-${theme}.png`) });
      await input.fill('qwen2.5-coder');
      await page.keyboard.press('Enter');
      const toast = page.locator('.notifications-toasts', { hasText: 'Tally will use qwen2.5-coder:14b' });
      await toast.first().waitFor({ timeout: 60_000 });
      const text = (await toast.first().textContent()) ?? '';
      if (!/window 4,096 tokens \(reported by the server\)/.test(text)) throw new Error(`the confirmation does not name the served window: ${text}`);
    });
  } finally {
    await ollama.close();
  }
}
