import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { CommandSandboxState } from '../../src/core/ports/workspace';
import { NO_SANDBOX_NO_ALLOWANCE, outsideSandboxRequest, sandboxNote } from '../../src/core/tools/commandSandboxing';
import type { ChatState, ChatToolCallView } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, cspViolations, errorsIn, hostSends, posted, startHarness, type Harness } from './harness';

const SANDBOXED: CommandSandboxState = {
  sandboxed: true,
  by: 'bubblewrap',
  writable: ['/home/me/shop'],
  readOnlyInside: ['.git/config', '.git/hooks', '.vscode', '.tally'],
  hidden: ['~/.ssh', '~/.aws', '~/.npmrc', '~/.gnupg', '~/.config/Code/User/globalStorage'],
  network: false,
};
const NONE: CommandSandboxState = { sandboxed: false, reason: 'bubblewrap (bwrap) is not installed: install the bubblewrap package (Debian and Ubuntu: sudo apt install bubblewrap)', turnedOff: false };

function card(callId: string, command: string, approval: NonNullable<ChatToolCallView['approval']>): ChatToolCallView {
  return { callId, name: 'run_command', arguments: JSON.stringify({ command }), status: 'awaiting_approval', approval };
}

const sandboxed = card('c-in', 'npm test', { title: 'Run `npm test` in .', detail: 'npm test', kind: 'command', sandbox: sandboxNote(SANDBOXED), allowForSession: '`npm test` in the workspace folder while its scripts in package.json stay unchanged' });
const unsandboxed = card('c-none', 'npm test', { title: 'Run `npm test` in .', detail: 'npm test', kind: 'command', sandbox: sandboxNote(NONE), noAllowance: NO_SANDBOX_NO_ALLOWANCE });
const rerun = outsideSandboxRequest('npm install', '.', { what: 'network', sign: 'getaddrinfo EAI_AGAIN registry.npmjs.org' }, SANDBOXED);
const outside = card('c-out', 'npm install', { title: rerun.title, detail: rerun.detail, kind: 'command', sandbox: rerun.sandbox, approveLabel: rerun.approveLabel, allowForSession: rerun.allowForSession });

function stateWith(calls: ChatToolCallView[]): ChatState {
  return { ...chatState, busy: true, entries: [{ kind: 'assistant', id: 'a-s', text: 'Running the tests.', toolCalls: calls }] };
}

describe('approval cards say where a command runs: in the sandbox or not (headless Chromium)', function () {
  this.timeout(60_000);
  let harness: Harness;
  let page: Page;
  before(async () => (harness = await startHarness()));
  after(async () => harness?.close());
  beforeEach(async () => {
    page = await harness.open('chat', { width: 460, height: 1200 });
    await hostSends(page, { type: 'state', state: stateWith([sandboxed, unsandboxed, outside]) });
  });
  afterEach(async () => {
    assert.deepStrictEqual(await cspViolations(page), []);
    assert.deepStrictEqual(errorsIn(page), []);
    await page.close();
  });

  it('a sandboxed command says what it may touch, the whole of it one click away, and offers the allowance', async () => {
    const c = page.locator('.tool-card[data-call-id="c-in"]');
    const line = c.locator('.approval-sandbox');
    assert.strictEqual(await line.getAttribute('data-sandboxed'), 'true');
    assert.strictEqual(await line.locator('summary').textContent(), 'Sandboxed: writes only in the workspace folder and a private temporary folder, cannot read ~/.ssh, ~/.aws or 3 other secret paths, has no network.');
    assert.strictEqual(await c.locator('.approval-sandbox-detail').isVisible(), false);
    await line.locator('summary').click();
    const detail = (await c.locator('.approval-sandbox-detail').textContent()) ?? '';
    assert.match(detail, /Writable: \/home\/me\/shop, and a private temporary folder/);
    assert.match(detail, /Hidden: ~\/\.ssh, ~\/\.aws, ~\/\.npmrc, ~\/\.gnupg, ~\/\.config\/Code\/User\/globalStorage/);
    assert.strictEqual(await c.locator('[data-approve-session]').count(), 1);
  });

  it('with no sandbox the card says why, once, and offers no allowance', async () => {
    const c = page.locator('.tool-card[data-call-id="c-none"]');
    assert.strictEqual(await c.locator('.approval-sandbox').getAttribute('data-sandboxed'), 'false');
    assert.match((await c.locator('.approval-sandbox').textContent()) ?? '', /^⚠ No sandbox: bubblewrap \(bwrap\) is not installed: install the bubblewrap package .*; the command can change any file you can, read your secrets and use the network\.$/);
    assert.strictEqual(await c.locator('[data-approve-session]').count(), 0);
    assert.strictEqual(await c.locator('.approval-note').textContent(), `No "allow for this session" here: ${NO_SANDBOX_NO_ALLOWANCE}.`);
  });

  it('a command the sandbox stopped offers to run outside it, or the network for the session', async () => {
    const c = page.locator('.tool-card[data-call-id="c-out"]');
    assert.strictEqual(await c.locator('.approval-title').textContent(), 'Run again outside the sandbox: npm install in the workspace folder');
    assert.match((await c.locator('.approval-sandbox').textContent()) ?? '', /It failed in the sandbox; the sandbox may have stopped it: it has no network \(the output says “getaddrinfo EAI_AGAIN registry\.npmjs\.org”\)\. Outside it/);
    assert.strictEqual(await c.locator('[data-approve]').textContent(), 'Run outside the sandbox');
    assert.strictEqual(await c.locator('[data-approve-session]').textContent(), 'Allow network for sandboxed commands for this session');
    await c.locator('[data-approve-session]').click();
    assert.deepStrictEqual((await posted(page)).filter((m) => m.type === 'approval').at(-1), { type: 'approval', callId: 'c-out', approved: true, forSession: true });
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`reads well in the ${theme} theme: the sandbox line stands out from the card (screenshot)`, async () => {
      const themed = await harness.open('chat', { theme, width: 460, height: 1700 });
      try {
        await hostSends(themed, { type: 'state', state: stateWith([sandboxed, unsandboxed, outside]) });
        await themed.locator('.tool-card[data-call-id="c-in"] .approval-sandbox summary').click();
        for (const id of ['c-in', 'c-none', 'c-out']) {
          const ratio = await textContrast(themed.locator(`.tool-card[data-call-id="${id}"] .sandbox-text`));
          assert.ok(ratio >= 4.5, `the sandbox line of ${id} has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        }
        const borders = await themed.locator('.approval-sandbox').evaluateAll((els) => els.map((e) => getComputedStyle(e).borderLeftColor));
        assert.notStrictEqual(borders[0], borders[1], 'sandboxed and unsandboxed lines are marked apart');
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `approval-sandbox-${theme}.png`), fullPage: true });
      } finally {
        await themed.close();
      }
    });
  }
});
