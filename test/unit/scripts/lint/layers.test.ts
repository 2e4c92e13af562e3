import { strict as assert } from 'assert';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** Lints `code` as if it were the file at `path` (relative to the repository), with the project's config. */
async function lintAs(path: string, code: string): Promise<LintMessage[]> {
  const { ESLint } = (await import('eslint')) as typeof import('eslint');
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result.messages.filter((m) => m.ruleId === 'layers/imports');
}

describe('layers, as the build enforces them', () => {
  it('refuses vscode in the core', async () => {
    const messages = await lintAs('src/core/compaction/planted.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n");
    assert.deepEqual(messages.map((m) => m.message), ["the core layer must not import 'vscode'"]);
  });

  it('refuses fs in a compaction strategy', async () => {
    const messages = await lintAs('src/core/compaction/strategies/planted.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n");
    assert.equal(messages.length, 1);
    assert.match(messages[0].message, /the core layer must not import Node's 'fs'/);
  });

  it('refuses node: specifiers and require() as well', async () => {
    const messages = await lintAs('src/core/model/planted.ts', "import { join } from 'node:path';\nconst cp = require('child_process');\nexport { join, cp };\n");
    assert.equal(messages.length, 2);
  });

  it('refuses the core reaching up into the VS Code layer', async () => {
    const messages = await lintAs('src/core/context/planted.ts', "import { readConfiguration } from '../../config/readSettings';\nexport const x = readConfiguration;\n");
    assert.match(messages[0]?.message ?? '', /the core layer must not import from the vscode layer/);
  });

  it('lets the webview import only the protocol', async () => {
    const bad = await lintAs('webview/chat/planted.ts', "import type { Message } from '../../src/core/model/message';\nexport type M = Message;\n");
    assert.match(bad[0]?.message ?? '', /the webview layer must not import from the core layer/);
    const good = await lintAs('webview/chat/planted.ts', "import type { ChatState } from '../../src/protocol/chat';\nexport type S = ChatState;\n");
    assert.deepEqual(good, []);
  });

  it('allows Node built-ins in the Node adapters and vscode in the VS Code layer', async () => {
    assert.deepEqual(await lintAs('src/node/planted.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n"), []);
    assert.deepEqual(await lintAs('src/session/planted.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n"), []);
  });

  it('keeps the views\' host logic free of vscode, Node and the VS Code layer', async () => {
    assert.match((await lintAs('src/host/chat/planted.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n"))[0]?.message ?? '', /the host layer must not import 'vscode'/);
    assert.match((await lintAs('src/host/chat/planted.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n"))[0]?.message ?? '', /the host layer must not import Node's 'fs'/);
    assert.match((await lintAs('src/host/chat/planted.ts', "import type { SessionController } from '../../session/sessionController';\nexport type C = SessionController;\n"))[0]?.message ?? '', /the host layer must not import from the vscode layer/);
    assert.deepEqual(await lintAs('src/host/chat/planted.ts', "import type { ChatState } from '../../protocol/chat';\nexport type S = ChatState;\n"), []);
  });

  it('finds no violation in the source tree: core, node, protocol, cli and webview stay in their lanes', async function () {
    this.timeout(120_000);
    const { ESLint } = (await import('eslint')) as typeof import('eslint');
    const results = await new ESLint({ cwd: ROOT }).lintFiles(['src', 'webview']);
    const violations = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'layers/imports').map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.message}`));
    assert.deepEqual(violations, []);
  });
});
