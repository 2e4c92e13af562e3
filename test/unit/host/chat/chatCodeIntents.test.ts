/** The intents behind a reply's code blocks and links: checked before the host inserts, copies or opens anything. */
import { strict as assert } from 'assert';
import { chatHandlers, type ChatWorkbench } from '../../../../src/host/chat/chatIntents';
import type { ChatToHost } from '../../../../src/protocol/chat';
import { receiveWebviewMessage } from '../../../../src/protocol/receive';
import { parseChatMessage } from '../../../../src/protocol/validate';

const refused = (m: unknown) => 'error' in (parseChatMessage(m) as object);

describe('chat code and link intents', () => {
  it('accepts http, https and mailto links and refuses every other scheme', () => {
    for (const url of ['https://nodejs.org/api/path.html', 'http://127.0.0.1:8080/x', 'mailto:dev@example.com']) assert.deepStrictEqual(parseChatMessage({ type: 'openLink', url }), { type: 'openLink', url });
    for (const url of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'file:///etc/passwd', 'command:workbench.action.terminal.new', 'vscode://x', 'data:text/html,<b>', 'not a url', '', 'https://x/'.padEnd(2050, 'a')]) {
      assert.ok(refused({ type: 'openLink', url }), `refuses ${url.slice(0, 40)}`);
    }
    assert.ok(refused({ type: 'openLink', url: 'https://a.b', extra: 1 }), 'refuses extra keys');
  });

  it('accepts code up to 1 MB for Copy and Insert at cursor, and refuses an empty insert or a non-string', () => {
    const code = 'x'.repeat(1024 * 1024);
    assert.deepStrictEqual(parseChatMessage({ type: 'insertCode', code }), { type: 'insertCode', code });
    assert.ok(refused({ type: 'insertCode', code: `${code}x` }));
    assert.ok(refused({ type: 'insertCode', code: '' }));
    assert.ok(refused({ type: 'copyCode', code: 42 }));
    assert.deepStrictEqual(parseChatMessage({ type: 'retry' }), { type: 'retry' });
    assert.ok(refused({ type: 'retry', text: 'again' }));
  });

  it('routes each intent to the workbench and a refused link never reaches it', async () => {
    const calls: string[] = [];
    const workbench: ChatWorkbench = {
      insertAtCursor: async (t) => void calls.push(`insert ${t}`),
      copyToClipboard: async (t) => void calls.push(`copy ${t}`),
      openExternal: async (u) => void calls.push(`open ${u}`),
      askModal: async (message) => void calls.push(`asked ${message}`),
    };
    const warnings: string[] = [];
    const handlers = chatHandlers({ sessions: { retry: async () => void calls.push('retry') } as never, workbench, executeCommand: async () => undefined, sendState: async () => undefined, showEarlier: async () => undefined });
    const inbox = { source: 'chat', parse: parseChatMessage, log: { warn: (l: string) => warnings.push(l) }, handlers, onError: () => undefined };
    const messages: unknown[] = [
      { type: 'insertCode', code: 'a()' },
      { type: 'copyCode', code: 'b()' },
      { type: 'openLink', url: 'https://example.com' },
      { type: 'openLink', url: 'javascript:alert(1)' },
      { type: 'retry' },
    ];
    for (const m of messages) await receiveWebviewMessage<ChatToHost>(m, inbox);
    assert.deepStrictEqual(calls, ['insert a()', 'copy b()', 'open https://example.com', 'retry']);
    assert.strictEqual(warnings.length, 1);
    assert.match(warnings[0], /openLink: "url" must be an http, https or mailto link/);
  });

  describe('Insert at cursor with invisible or direction-changing characters', () => {
    // Reads as `if (role != "user") {`; the override and isolates hide what it compares with.
    const trojan = 'if (role != "user\u202E \u2066// admin\u2069 \u2066") {';

    async function insertWith(code: string, answer: string | undefined): Promise<{ inserted: string[]; asked: Array<{ message: string; detail: string; choices: string[] }> }> {
      const inserted: string[] = [];
      const asked: Array<{ message: string; detail: string; choices: string[] }> = [];
      const workbench: ChatWorkbench = {
        insertAtCursor: async (t) => void inserted.push(t),
        copyToClipboard: async () => undefined,
        openExternal: async () => undefined,
        askModal: async (message, detail, choices) => {
          asked.push({ message, detail, choices });
          return answer;
        },
      };
      const handlers = chatHandlers({ sessions: {} as never, workbench, executeCommand: async () => undefined, sendState: async () => undefined, showEarlier: async () => undefined });
      await receiveWebviewMessage<ChatToHost>({ type: 'insertCode', code }, { source: 'chat', parse: parseChatMessage, log: { warn: () => undefined }, handlers, onError: (e) => assert.fail(String(e)) });
      return { inserted, asked };
    }

    it('asks first, naming how many characters and which, and Cancel inserts nothing', async () => {
      const { inserted, asked } = await insertWith(trojan, undefined);
      assert.deepStrictEqual(inserted, [], 'nothing is inserted without an answer');
      assert.strictEqual(asked.length, 1);
      assert.strictEqual(asked[0].message, 'This code contains 4 invisible or direction-changing characters (U+202E, U+2066, U+2069). Insert anyway?');
      assert.deepStrictEqual(asked[0].choices, ['Insert without them', 'Insert anyway']);
    });

    it('"Insert without them" inserts the code without those characters; "Insert anyway" inserts it exactly', async () => {
      assert.deepStrictEqual((await insertWith(trojan, 'Insert without them')).inserted, ['if (role != "user // admin ") {']);
      assert.deepStrictEqual((await insertWith(trojan, 'Insert anyway')).inserted, [trojan]);
    });

    it('plain code (tabs, newlines, accents, emoji) is inserted without a question', async () => {
      const plain = 'const café = "naïve";\n\tif (x) return "✓ 日本";';
      assert.deepStrictEqual(await insertWith(plain, undefined), { inserted: [plain], asked: [] });
    });
  });
});
