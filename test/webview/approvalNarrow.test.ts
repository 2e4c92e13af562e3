import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { ChatState, ChatToolCallView } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { ARTIFACTS, errorsIn, hostSends, startHarness, type Harness } from './harness';

const npm: ChatToolCallView = {
  callId: 'c-npm',
  name: 'run_command',
  arguments: JSON.stringify({ command: 'npm test' }),
  status: 'awaiting_approval',
  approval: { title: 'Run `npm test` in sub', detail: 'npm test', kind: 'command', runs: 'npm runs these scripts from sub/package.json:\ntest: mocha', allowForSession: '`npm test` in sub while its scripts in sub/package.json stay unchanged' },
};
const edit: ChatToolCallView = { callId: 'c-edit', name: 'edit_file', arguments: '{}', status: 'awaiting_approval', approval: { title: 'Edit src/components/settings/AdvancedSettingsPanel.tsx (+12 −3)', detail: '--- a\n+++ b\n-x\n+y', kind: 'edit' } };

const state: ChatState = { ...chatState, busy: true, entries: [{ kind: 'assistant', id: 'a-x', text: 'Running it.', toolCalls: [npm, edit] }] };

/**
 * Every approval card stays usable in a narrow sidebar: each button is whole inside its card, its
 * label is not cut, and no button lies over another.
 */
describe('approval cards in a narrow sidebar (headless Chromium, screenshots)', function () {
  this.timeout(60_000);
  let harness: Harness;
  before(async () => (harness = await startHarness()));
  after(async () => harness?.close());

  for (const theme of ['dark', 'light'] as const) {
    for (const width of [170, 250, 300]) {
      it(`at ${width} px in the ${theme} theme, every button is whole, readable and clickable`, async () => {
        const page = await harness.open('chat', { theme, width, height: 1100 });
        try {
          await hostSends(page, { type: 'state', state });
          for (const id of ['c-npm', 'c-edit']) {
            const card = page.locator(`.tool-card[data-call-id="${id}"] .approval`);
            const box = (await card.boundingBox())!;
            const buttons = card.locator('.actions vscode-button');
            const boxes = [];
            for (let i = 0; i < (await buttons.count()); i++) {
              const button = buttons.nth(i);
              const b = (await button.boundingBox())!;
              const label = (await button.textContent())?.trim();
              assert.ok(b.x >= box.x - 0.5 && b.x + b.width <= box.x + box.width + 0.5, `${id} "${label}" at ${width} px lies inside its card (${b.x}..${b.x + b.width} in ${box.x}..${box.x + box.width})`);
              const cut = await button.evaluate((e) => {
                const control = (e.shadowRoot?.querySelector('.control') as HTMLElement | null) ?? (e as HTMLElement);
                const text = document.createRange();
                text.selectNodeContents(e);
                const label = text.getBoundingClientRect();
                const bounds = control.getBoundingClientRect();
                // The label's text lies inside the button's face, and nothing in the face scrolls.
                return label.right > bounds.right + 1 || label.left < bounds.left - 1 || control.scrollWidth > control.clientWidth + 1;
              });
              assert.ok(!cut, `${id} "${label}" at ${width} px shows its whole label`);
              for (const other of boxes) assert.ok(b.y >= other.y + other.height - 0.5 || b.x >= other.x + other.width - 0.5 || b.x + b.width <= other.x + 0.5, `${id} "${label}" overlaps another button`);
              boxes.push(b);
              await button.click({ trial: true });
            }
            assert.equal(boxes.length, id === 'c-npm' ? 3 : 2);
          }
          assert.deepStrictEqual(errorsIn(page), []);
          mkdirSync(ARTIFACTS, { recursive: true });
          await page.screenshot({ path: path.join(ARTIFACTS, `approval-narrow-${width}-${theme}.png`), fullPage: true });
        } finally {
          await page.close();
        }
      });
    }
  }
});
