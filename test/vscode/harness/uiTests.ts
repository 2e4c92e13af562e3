import { cpSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import type { Frame } from 'playwright-core';
import { findFrame, launchBrowser, runCommand } from './browser';
import { editApprovalInTheEditor } from './editApprovalUi';
import { sandboxRefusalInTheChat } from './commandSandboxUi';
import { forkFromTheInspector } from './forkUi';
import { restoreAndRewindInTheChat } from './rewindUi';
import { startCodeServer } from './codeServer';
import { checkModelPicker } from './modelPickerUi';
import { planModeInTheChat } from './planModeUi';
import { firstMessageAndToolFigures } from './firstMessageUi';
import { screenshotPath } from './screenshots';
import { makeWorkspace } from './workspace';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { startHttpServer } from '../../fakes/mcp/testServer';

const ROOT = resolve(__dirname, '..', '..', '..');

export interface UiResult {
  name: string;
  ok: boolean;
  detail?: string;
}

/** Reads the CSP a webview was really served with: default-src 'none', a nonce for scripts, nothing inline, and our bundle carrying that nonce. */
async function assertStrictCsp(frame: Frame, app: 'inspector' | 'chat'): Promise<void> {
  if (!(await frame.$(`#app[data-app="${app}"]`))) throw new Error(`the frame is not the ${app} webview`);
  const policies = await frame.$$eval('meta[http-equiv="Content-Security-Policy"]', (els) => els.map((m) => m.getAttribute('content') ?? ''));
  if (policies.length !== 1) throw new Error(`expected one CSP meta tag, found ${policies.length}`);
  const csp = policies[0];
  if (!/script-src 'nonce-[A-Za-z0-9+/=]{16,}'/.test(csp) || /unsafe-inline|unsafe-eval/.test(csp) || !/default-src 'none'/.test(csp)) throw new Error(`weak CSP: ${csp}`);
  // VS Code injects its own bootstrap script into every webview; ours is the bundle, loaded with the nonce.
  const nonce = /'nonce-([^']+)'/.exec(csp)![1];
  const ours = await frame.$$eval('script[src*="dist/webview/"]', (els) => els.map((e) => ({ src: e.getAttribute('src') ?? '', nonce: (e as HTMLScriptElement).nonce || e.getAttribute('nonce') })));
  if (ours.length !== 1 || ours[0].nonce !== nonce) throw new Error(`the bundle script does not carry the CSP nonce (${JSON.stringify(ours)})`);
  if (!ours[0].src.includes(`dist/webview/${app}.js`)) throw new Error(`unexpected bundle ${ours[0].src}`);
  // VS Code's own API shim (#_vscodeApiScript) is the only inline script a webview document may hold.
  const inline = await frame.$$eval('script:not([src]):not(#_vscodeApiScript)', (els) => els.length);
  if (inline !== 0) throw new Error(`${inline} inline script(s) of ours in the ${app} document`);
}

export type UiTheme = 'dark' | 'light' | 'high-contrast';

/** The VS Code settings that select a theme (high contrast is chosen explicitly, never auto-detected away). */
function themeSettings(theme: UiTheme): Record<string, unknown> {
  if (theme === 'high-contrast') return { 'workbench.colorTheme': 'Default High Contrast', 'window.autoDetectColorScheme': false, 'window.autoDetectHighContrast': false };
  return {
    'workbench.colorTheme': theme === 'dark' ? 'Default Dark Modern' : 'Default Light Modern',
    'workbench.preferredDarkColorTheme': 'Default Dark Modern',
    'workbench.preferredLightColorTheme': 'Default Light Modern',
    'window.autoDetectColorScheme': true,
  };
}

/** Scrolls every scrolled element of a webview to the top, so a screenshot shows its start. */
async function scrollToTop(frame: Frame | undefined): Promise<void> {
  await frame
    ?.evaluate(() => {
      window.scrollTo(0, 0);
      for (const el of Array.from(document.querySelectorAll('*'))) if (el.scrollTop) el.scrollTop = 0;
    })
    .catch(() => undefined);
}

/** "context now 3,612" in the chat meter and "3,612 of 119,808 tokens …" in the inspector header: the same number. */
async function contextNowShown(chat: Frame, inspector: Frame): Promise<{ chat: string; inspector: string }> {
  const chatText = (await chat.textContent('[data-meter="last-and-now"]')) ?? '';
  const inspectorText = (await inspector.textContent('[data-fact="used"] .fact-value')) ?? '';
  return { chat: /context now ([\d,]+)/.exec(chatText)?.[1] ?? chatText, inspector: /^([\d,]+) of/.exec(inspectorText)?.[1] ?? inspectorText };
}

/** Drives the real VS Code as a person would: palette → demo replay → inspector; screenshots per theme. */
export async function runUiTests(theme: UiTheme): Promise<UiResult[]> {
  const results: UiResult[] = [];
  // TALLY_VSCODE_GREP picks checks by title here too (each depends on those before it only for what it opens itself).
  const grep = process.env.TALLY_VSCODE_GREP ? new RegExp(process.env.TALLY_VSCODE_GREP) : undefined;
  const check = async (name: string, body: () => Promise<void>) => {
    if (grep && !grep.test(name)) return;
    try {
      await body();
      results.push({ name, ok: true });
    } catch (error) {
      results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
  };
  const dir = mkdtempSync(join(tmpdir(), 'tally-ui-'));
  const workspace = makeWorkspace(dir);
  // Another extension's tool beside Tally (test/vscode/markerTool), for the tool picker to list.
  cpSync(join(ROOT, 'test', 'vscode', 'markerTool'), join(dir, 'extensions', 'tally-test.marker-tool-0.0.1'), { recursive: true });
  // A scripted model behind the real OpenAI wire format: six commands with large outputs, then a reply.
  const model = await new FakeOpenAIServer({ apiKey: undefined }).start();
  for (let i = 0; i < 6; i++) model.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command: `yes step-${i} | head -c 20000` }) } }], usage: null });
  const markdownReply = [
    '[scripted model] Hello: **six commands ran**, each printing its step name.',
    '',
    '| Step | Output |',
    '| :-- | --: |',
    '| `step-0` | 20,000 bytes |',
    '| `step-5` | 20,000 bytes |',
    '',
    'To run one again:',
    '',
    '```bash',
    'yes step-0 | head -c 20000',
    '```',
    '',
    '- the outputs were truncated in the context',
    '- the full outputs are offloaded, see [the docs](https://code.visualstudio.com/api)',
  ].join('\n');
  model.enqueue({ type: 'reply', parts: [{ text: markdownReply }], usage: { input: 9_000, output: 180, cacheRead: 4_096 }, chunkChars: 6 });
  // An MCP server of Tally's own (the SDK's server over streamable HTTP), for the tool picker to group under it.
  const mcp = await startHttpServer();
  const server = await startCodeServer({
    dir,
    workspace,
    settings: { 'tally.mcp.servers': { notes: { type: 'http', url: mcp.url } }, 'tally.baseUrl': model.url, 'tally.model': 'scripted-model', 'tally.approval.commands': 'always', 'security.workspace.trust.enabled': false, ...themeSettings(theme), 'tally.provider': 'openai-compatible' },
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: theme === 'light' ? 'light' : 'dark' });
    const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${ROOT}`]];
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await page.waitForTimeout(3000);
    await firstMessageAndToolFigures(page, theme, check);
    await check(`${theme}: the inspector opens from the palette on the demo replay, and its bar segments sum to the window`, async () => {
      await runCommand(page, 'Tally: Open Demo Replay');
      const frame = await findFrame(page, '.seg[data-segment]', 120_000);
      // The inspector may still show the session before it (it is reused): wait for the replay's own view.
      await frame.waitForSelector('[data-replay="true"]', { timeout: 120_000 });
      await page.waitForTimeout(500);
      const tokens = await frame.$$eval('.seg[data-segment]', (els) => els.map((e) => Number(e.getAttribute('data-tokens'))));
      const total = tokens.reduce((a, b) => a + b, 0);
      if (total !== 32_000) throw new Error(`segments sum to ${total}, expected the 32,000-token window`);
      const label = await frame.textContent('body');
      if (!/Replay/i.test(label ?? '')) throw new Error('the replay is not labelled as a replay');
    });
    await check(`${theme}: the inspector is served with a strict CSP (nonce, no inline script)`, async () => {
      await assertStrictCsp(await findFrame(page, '.seg[data-segment]'), 'inspector');
    });
    await check(`${theme}: selecting a request lists what it carried`, async () => {
      const frame = await findFrame(page, '[data-request-index]');
      await frame.click('[data-request-index="10"]');
      await frame.waitForSelector('.item', { timeout: 20_000 });
    });
    await check(`${theme}: expanding an offloaded result shows its content`, async () => {
      const frame = await findFrame(page, 'details.blob[data-ref-id] summary');
      await frame.click('details.blob[data-ref-id] summary');
      const text = await frame.waitForSelector('[data-blob-text]', { timeout: 20_000 });
      if (!((await text.textContent()) ?? '').trim()) throw new Error('the offloaded content is empty');
    });
    await check(`${theme}: the compaction preview then Confirm adds a history row`, async () => {
      const frame = await findFrame(page, '[data-action="preview"]');
      const before = await frame.$$eval('details.compaction', (els) => els.length);
      await frame.click('[data-action="preview"]');
      await frame.waitForSelector('[data-action="confirm"]:not([disabled])', { timeout: 30_000 });
      await frame.click('[data-action="confirm"]');
      await frame.waitForFunction((n) => document.querySelectorAll('details.compaction').length === n + 1, before, { timeout: 30_000 });
    });
    // The picture shows the stacked bar and the request timeline: the top of the inspector.
    await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
    await scrollToTop(await findFrame(page, '.seg[data-segment]').catch(() => undefined));
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath(`inspector-${theme}.png`) });
    await check(`${theme}: the chat panel streams a markdown reply (bold, table, link, code block with Copy and Insert at cursor, turn figures)`, async () => {
      await runCommand(page, 'Tally: New Session');
      await page.waitForTimeout(1500);
      await runCommand(page, 'Tally: Focus on Chat View');
      const frame = await findFrame(page, '.composer-input', 60_000);
      await frame.locator('.composer-input textarea').fill('Run the six steps.');
      await frame.locator('.composer-input textarea').press('Enter');
      await frame.waitForSelector('[data-kind="assistant"]:has-text("six commands ran")', { timeout: 90_000 });
      await frame.waitForSelector('[data-kind="usage"] [data-field="cached"]', { timeout: 30_000 });
      // The streaming entry is redrawn per frame and then replaced by the stored message: take the stored one, not an element the stream left behind.
      const reply = await frame.waitForSelector('[data-kind="assistant"]:not(.streaming):has-text("six commands ran")', { timeout: 30_000 });
      if ((await reply.$$eval('.markdown strong', (els) => els.map((e) => e.textContent))).join() !== 'six commands ran') throw new Error('bold text is not rendered');
      if ((await reply.$$('.markdown table td')).length !== 4) throw new Error('the table is not rendered');
      if ((await reply.$eval('.code-block .code-lang', (e) => e.textContent)) !== 'bash') throw new Error('the code block has no language label');
      if ((await reply.$$('.code-block vscode-button[data-action="copy-code"], .code-block vscode-button[data-action="insert-code"]')).length !== 2) throw new Error('the code block lacks Copy / Insert at cursor');
      if ((await reply.$$('.markdown a[data-href="https://code.visualstudio.com/api"]')).length !== 1) throw new Error('the link is not rendered');
      await page.screenshot({ path: screenshotPath(`chat-${theme}.png`) });
    });
    await check(`${theme}: after a live turn the chat meter and the inspector header show the same context figure, and the inspector shows the live session`, async () => {
      const chat = await findFrame(page, '[data-meter="last-and-now"]', 30_000);
      await runCommand(page, 'Tally: Open Context Inspector');
      const inspector = await findFrame(page, '[data-fact="used"]', 60_000);
      let shown = await contextNowShown(chat, inspector);
      for (let i = 0; i < 40 && shown.chat !== shown.inspector; i++) {
        await page.waitForTimeout(250);
        shown = await contextNowShown(chat, inspector);
      }
      if (!/^[\d,]+$/.test(shown.chat) || shown.chat !== shown.inspector) throw new Error(`chat meter says ${shown.chat}, inspector header says ${shown.inspector}`);
      const offloaded = await inspector.$$eval('.blob-tool', (els) => els.map((e) => e.textContent ?? ''));
      if (!offloaded.length || !offloaded.every((t) => /^run_command yes step-\d/.test(t))) throw new Error(`offloaded results are not named by tool and command: ${JSON.stringify(offloaded)}`);
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
      await scrollToTop(inspector);
      await page.waitForTimeout(500);
      await page.screenshot({ path: screenshotPath(`inspector-live-${theme}.png`) });
    });
    await check(`${theme}: /compact in the chat shows a compaction notice, then the chat meter and the inspector header still agree`, async () => {
      const frame = await findFrame(page, '.composer-input', 60_000);
      await frame.locator('.composer-input textarea').fill('/compact');
      await frame.locator('.composer-input textarea').press('Enter');
      await frame.waitForSelector('[data-kind="compaction"]', { timeout: 60_000 });
      const inspector = await findFrame(page, '[data-fact="used"]', 30_000);
      let shown = await contextNowShown(frame, inspector);
      for (let i = 0; i < 40 && shown.chat !== shown.inspector; i++) {
        await page.waitForTimeout(250);
        shown = await contextNowShown(frame, inspector);
      }
      if (shown.chat !== shown.inspector) throw new Error(`after /compact the chat meter says ${shown.chat}, the inspector header ${shown.inspector}`);
      // The notice says the compaction's "after" in the same figure the meter and the header show now.
      const notice = (await frame.textContent('[data-kind="compaction"] summary')) ?? '';
      const after = /→ ([\d,]+) tokens/.exec(notice)?.[1];
      if (after !== shown.inspector) throw new Error(`the compaction notice says "${notice}", the inspector header ${shown.inspector}`);
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
      await scrollToTop(inspector);
      await page.waitForTimeout(500);
      await page.screenshot({ path: screenshotPath(`compacted-${theme}.png`) });
    });
    await check(`${theme}: Fork from request #N in the inspector opens the fork in the chat, which says where it was forked as the inspector's history does`, async () => {
      await forkFromTheInspector(page, { action: screenshotPath(`fork-action-${theme}.png`), forked: screenshotPath(`fork-opened-${theme}.png`) });
    });
    await check(`${theme}: the chat view is served with a strict CSP (nonce, no inline script)`, async () => {
      await assertStrictCsp(await findFrame(page, '.composer-input'), 'chat');
    });
    await check(`${theme}: a provider error (401) stays in the chat as an error entry until the next turn, which then works`, async () => {
      const frame = await findFrame(page, '.composer-input', 60_000);
      const errors = '[data-kind="notice"].notice-error';
      const before = await frame.$$eval(errors, (els) => els.length);
      if (before !== 0) throw new Error(`${before} error entries before the failing turn`);
      model.enqueue({ type: 'error', status: 401, body: { error: { message: 'Incorrect API key provided: scripted-401.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } });
      await frame.locator('.composer-input textarea').fill('This request will fail.');
      await frame.locator('.composer-input textarea').press('Enter');
      await frame.waitForSelector(`${errors}:has-text("Incorrect API key provided")`, { timeout: 60_000 });
      // The turn is over (its live state is gone) and several refreshes later the error is still shown.
      await page.waitForTimeout(1500);
      const still = await frame.$$eval(errors, (els) => els.map((e) => e.textContent ?? ''));
      if (still.length !== 1 || !/HTTP 401.*Incorrect API key provided/.test(still[0])) throw new Error(`the error entry did not stay: ${JSON.stringify(still)}`);
      if ((await frame.getAttribute(errors, 'role')) !== 'alert') throw new Error('the error entry is not announced as an alert');
      model.enqueue({ type: 'reply', parts: [{ text: 'Back on track after the error.' }], usage: null });
      await frame.locator('.composer-input textarea').fill('Try again.');
      await frame.locator('.composer-input textarea').press('Enter');
      await frame.waitForSelector('[data-kind="assistant"]:has-text("Back on track after the error")', { timeout: 60_000 });
      await frame.waitForFunction((selector) => document.querySelectorAll(selector).length === 0, errors, { timeout: 10_000 });
    });
    await check(`${theme}: a command the sandbox stopped offers to run it outside the sandbox, on a card that always asks; Deny keeps it inside`, async () => {
      await sandboxRefusalInTheChat(page, model, screenshotPath(`command-sandbox-${theme}.png`));
    });
    await check(`${theme}: an edit waiting for approval opens the diff editor with Accept and Reject; Accept in its title bar writes the file`, async () => {
      await editApprovalInTheEditor(page, model, workspace, screenshotPath(`edit-approval-${theme}.png`));
    });
    await check(`${theme}: Restore files shows the diff and a confirmation and puts the file back; Rewind to here asks, rewinds and puts the message in the composer`, async () => {
      await restoreAndRewindInTheChat(page, workspace, { restore: screenshotPath(`restore-confirm-${theme}.png`), rewind: screenshotPath(`rewind-confirm-${theme}.png`), after: screenshotPath(`rewind-done-${theme}.png`) });
    });
    await check(`${theme}: Configure Tools lists each tool with its cost and source, the built-in ones picked`, async () => {
      await page.keyboard.press('Escape');
      await runCommand(page, 'Tally: Configure Tools…');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'read_file' });
      await row.first().waitFor({ timeout: 30_000 });
      const rowText = (await row.first().textContent()) ?? '';
      if (!/[\d,]+ tokens · built-in/.test(rowText)) throw new Error(`the read_file row shows no cost and source: ${rowText}`);
      if (await page.locator('.quick-input-list', { hasText: '_internal' }).count()) throw new Error('an internal tool is listed');
      if ((await row.first().getAttribute('aria-checked')) !== 'true') throw new Error('read_file is not picked by default');
      await page.waitForTimeout(500);
      await page.screenshot({ path: screenshotPath(`tool-picker-${theme}.png`) });
      await page.locator('.quick-input-widget input').fill('tally_test_write_marker');
      const marker = page.locator('.quick-input-list .monaco-list-row', { hasText: 'tally_test_write_marker' });
      await marker.first().waitFor({ timeout: 10_000 });
      const markerText = (await marker.first().textContent()) ?? '';
      if (!/tokens · tally-test\.marker-tool/.test(markerText)) throw new Error(`another extension's tool is not listed with its cost and source: ${markerText}`);
      if ((await marker.first().getAttribute('aria-checked')) === 'true') throw new Error('another extension\'s tool is picked by default');
      await page.locator('.quick-input-widget input').fill('mcp_notes');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'mcp_notes_echo' }).first().waitFor({ timeout: 10_000 });
      // A filtered quick pick drops its separators: the row names its server as its source.
      const listed = (await page.locator('.quick-input-list .monaco-list-row', { hasText: 'mcp_notes_echo' }).first().textContent()) ?? '';
      if (!/[\d,]+ tokens · notes/.test(listed)) throw new Error(`the MCP server's tool does not name its server: ${listed.slice(0, 300)}`);
      await page.waitForTimeout(500);
      await page.screenshot({ path: screenshotPath(`tool-picker-mcp-${theme}.png`) });
      await page.keyboard.press('Escape');
    });
    await check(`${theme}: plan mode from the palette plans with reads only; the plan's card is edited in place and approved, and the next request carries the edited plan with every tool`, async () => {
      await planModeInTheChat(page, model, { proposed: screenshotPath(`plan-card-${theme}.png`), approved: screenshotPath(`plan-approved-${theme}.png`) });
    });
    await checkModelPicker(page, theme, check);
  } finally {
    await browser.close();
    await model.close();
    await mcp.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
