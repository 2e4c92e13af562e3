/** A reply's code with Trojan-Source characters: shown with markers and a warning, never reordered silently. */
import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatState } from '../../src/protocol/chat';
import { chatState } from './fixtures';
import { textContrast } from './contrast';
import { ARTIFACTS, cspViolations, hostSends, posted, usePage } from './harness';

// Looks like `if (role != "user") {` once the override reorders it; really compares with "user⁦ // admin⁩".
const TROJAN = 'if (role != "user\u202E \u2066// admin\u2069 \u2066") {\n  grant();\n}';
const reply = `Here is the check:\n\n\`\`\`js\n${TROJAN}\n\`\`\`\n\nAnd \`zero\u200Bwidth\` inline, then a plain block:\n\n\`\`\`bash\nnpm test\n\`\`\``;

const state: ChatState = { ...chatState, busy: false, entries: [{ kind: 'assistant', id: 'a-trojan', text: reply, toolCalls: [] }] };

describe('chat code blocks show invisible and direction-changing characters (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', state, { width: 460, height: 700 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('marks a bidi override in a code block visibly, with a warning, and leaves no live control character', async () => {
    const block = page.locator('[data-entry-id="a-trojan"] .code-block').first();
    const shown = (await block.locator('pre.code code').textContent()) ?? '';
    assert.strictEqual(shown, 'if (role != "user⟨U+202E⟩ ⟨U+2066⟩// admin⟨U+2069⟩ ⟨U+2066⟩") {\n  grant();\n}');
    assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(shown), 'no live bidi character is left in what is rendered');
    assert.strictEqual(await block.locator('.hidden-char').count(), 4);
    assert.strictEqual(await block.locator('.hidden-char').first().getAttribute('title'), 'U+202E: bidirectional control characters');
    const warning = (await block.locator('.code-warning').textContent()) ?? '';
    assert.match(warning, /4 invisible or direction-changing characters \(U\+202E, U\+2066, U\+2069\)/);
    assert.match(warning, /Copy copies the exact text/);
    assert.strictEqual(await page.locator('[data-entry-id="a-trojan"] .code-block').nth(1).locator('.code-warning').count(), 0, 'a plain block has no warning');
    assert.strictEqual(await page.locator('[data-entry-id="a-trojan"] p code').textContent(), 'zero⟨U+200B⟩width', 'inline code is marked too');
  });

  it('Copy and Insert at cursor send the exact code (the host warns before inserting)', async () => {
    const block = page.locator('[data-entry-id="a-trojan"] .code-block').first();
    await block.locator('vscode-button[data-action="copy-code"]').click();
    await block.locator('vscode-button[data-action="insert-code"]').click();
    assert.deepStrictEqual(await posted(page), [
      { type: 'copyCode', code: TROJAN },
      { type: 'insertCode', code: TROJAN },
    ]);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`is readable in the ${theme} theme: the warning and the markers stand out at 4.5:1 or more (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 900 });
      try {
        await hostSends(themed, { type: 'state', state });
        const entry = themed.locator('[data-entry-id="a-trojan"]');
        for (const [what, selector] of [['the warning', '.code-warning'], ['a marker', '.hidden-char']] as const) {
          const ratio = await textContrast(entry.locator(selector).first());
          assert.ok(ratio >= 4.5, `${what} has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        }
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.locator('[data-entry-id="a-trojan"]').screenshot({ path: path.join(ARTIFACTS, `code-hidden-${theme}.png`) });
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
