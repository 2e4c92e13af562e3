import { strict as assert } from 'assert';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** Lints `code` as if it were the file at `path` (relative to the repository), with the project's config. */
async function lintAs(path: string, code: string, rule = 'layers/imports'): Promise<LintMessage[]> {
  const { ESLint } = (await import('eslint')) as typeof import('eslint');
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result.messages.filter((m) => m.ruleId === rule);
}

const messagesOf = (messages: LintMessage[]) => messages.map((m) => m.message);

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
    assert.match(messages[0]?.message ?? '', /the core layer must not import from the config layer/);
  });

  it('lets the webview import only the protocol', async () => {
    const bad = await lintAs('webview/chat/planted.ts', "import type { Message } from '../../src/core/model/message';\nexport type M = Message;\n");
    assert.match(bad[0]?.message ?? '', /the webview layer must not import from the core layer/);
    const good = await lintAs('webview/chat/planted.ts', "import type { ChatState } from '../../src/protocol/chat';\nexport type S = ChatState;\n");
    assert.deepEqual(good, []);
  });

  it('allows Node built-ins in the Node adapters and vscode in the VS Code layer', async () => {
    assert.deepEqual(await lintAs('src/node/planted.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n"), []);
    assert.deepEqual(await lintAs('src/agents/planted.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n"), []);
  });

  it('keeps the views\' host logic free of vscode, Node and the VS Code layer', async () => {
    assert.match((await lintAs('src/host/chat/planted.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n"))[0]?.message ?? '', /the host layer must not import 'vscode'/);
    assert.match((await lintAs('src/host/chat/planted.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n"))[0]?.message ?? '', /the host layer must not import Node's 'fs'/);
    assert.match((await lintAs('src/host/chat/planted.ts', "import type { SessionController } from '../../lifecycle/sessionController';\nexport type C = SessionController;\n"))[0]?.message ?? '', /the host layer must not import from the lifecycle layer/);
    assert.deepEqual(await lintAs('src/host/chat/planted.ts', "import type { ChatState } from '../../protocol/chat';\nexport type S = ChatState;\n"), []);
  });

  it('gives each room of the VS Code layer its own arrows: lower rooms never import higher ones', async () => {
    const planted: Array<[string, string, RegExp]> = [
      ['src/config/planted.ts', "import type { SessionController } from '../lifecycle/sessionController';", /the config layer must not import from the lifecycle layer/],
      ['src/secrets/planted.ts', "import { readConfiguration } from '../config/readSettings';", /the secrets layer must not import from the config layer/],
      ['src/vscodeLm/planted.ts', "import { apiKeyFor } from '../secrets/apiKeys';", /the vscodeLm layer must not import from the secrets layer/],
      ['src/workspace/planted.ts', "import type { AgentFactory } from '../agents/agentFactory';", /the workspace layer must not import from the agents layer/],
      ['src/sandbox/planted.ts', "import type { AgentFactory } from '../agents/agentFactory';", /the sandbox layer must not import from the agents layer/],
      ['src/agents/planted.ts', "import type { SessionController } from '../lifecycle/sessionController';", /the agents layer must not import from the lifecycle layer/],
      ['src/lifecycle/planted.ts', "import type { ChatViewProvider } from '../views/chatViewProvider';", /the lifecycle layer must not import from the views layer/],
      ['src/attachments/planted.ts', "import type { ReadOnlyDocuments } from '../views/readOnlyDocuments';", /the attachments layer must not import from the views layer/],
      ['src/views/planted.ts', "import { selectModel } from '../commands/selectModel';", /the views layer must not import from the commands layer/],
      ['src/commands/planted.ts', "import { activate } from '../extension';", /the commands layer must not import from the extension layer/],
    ];
    for (const [path, line, expected] of planted) assert.match(messagesOf(await lintAs(path, `${line}\nexport const x = 1;\n`)).join('\n'), expected, path);
    // The arrows the code needs are there.
    assert.deepEqual(await lintAs('src/views/planted.ts', "import type { ChatAttachments } from '../attachments/chatAttachments';\nexport type A = ChatAttachments;\n"), []);
    assert.deepEqual(await lintAs('src/agents/planted.ts', "import { lmTools } from '../vscodeLm/lmTools';\nexport const t = lmTools;\n"), []);
    assert.deepEqual(await lintAs('src/agents/planted.ts', "import { sessionSandbox } from '../sandbox/sandboxSettings';\nexport const s = sessionSandbox;\n"), []);
  });

  it("keeps the rooms that need nothing of Node free of it, and every room's npm packages named", async () => {
    assert.match(messagesOf(await lintAs('src/config/planted.ts', "import { homedir } from 'os';\nexport const h = homedir;\n"))[0] ?? '', /the config layer must not import Node's 'os'/);
    assert.match(messagesOf(await lintAs('src/lifecycle/planted.ts', "import { join } from 'path';\nexport const j = join;\n"))[0] ?? '', /the lifecycle layer must not import Node's 'path'/);
    assert.match(messagesOf(await lintAs('src/commands/planted.ts', "import MarkdownIt from 'markdown-it';\nexport const m = MarkdownIt;\n"))[0] ?? '', /the commands layer must not import the package 'markdown-it'/);
  });

  it('refuses a source file in no layer (a new folder needs its line)', async () => {
    assert.deepEqual(messagesOf(await lintAs('src/newRoom/planted.ts', 'export const x = 1;\n')), ['src/newRoom/planted.ts belongs to no layer: give its folder a line in scripts/lint/layers.mjs']);
    assert.match(messagesOf(await lintAs('src/commands/planted.ts', "import { y } from '../newRoom/y';\nexport const x = y;\n"))[0] ?? '', /'..\/newRoom\/y' is in no layer/);
  });

  it('lets only the builder construct an agent', async () => {
    const code = "import { AgentSession } from '../agentSession';\nexport const make = (o: never) => new AgentSession(o);\n";
    assert.deepEqual(messagesOf(await lintAs('src/core/agent/subagents/planted.ts', code, 'layers/constructed-once')), ['only src/core/agent/build/buildAgent.ts constructs AgentSession: describe the agent (AgentBuild) and call buildAgent']);
    assert.equal((await lintAs('src/cli/planted.ts', "import { AgentSession } from '../core/agent/agentSession';\nexport const make = (o: never) => new AgentSession(o);\n", 'layers/constructed-once')).length, 1, 'not the command line either');
    assert.deepEqual(await lintAs('src/core/agent/build/buildAgent.ts', code, 'layers/constructed-once'), []);
  });

  it('refuses a file longer than 400 lines in src/, webview/ and test/', async () => {
    const long = Array.from({ length: 401 }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n';
    for (const path of ['src/core/model/planted.ts', 'webview/chat/planted.ts', 'test/unit/planted.test.ts']) {
      assert.deepEqual(messagesOf(await lintAs(path, long, 'max-lines')), ['File has too many lines (401). Maximum allowed is 400.'], path);
    }
    assert.deepEqual(await lintAs('src/core/model/planted.ts', long.split('\n').slice(1).join('\n'), 'max-lines'), []);
  });

  it('finds no violation in the source tree and no file over the limit', async function () {
    this.timeout(300_000);
    const { ESLint } = (await import('eslint')) as typeof import('eslint');
    const results = await new ESLint({ cwd: ROOT }).lintFiles(['src', 'webview', 'test']);
    const violations = results.flatMap((r) => r.messages.filter((m) => m.ruleId?.startsWith('layers/') || m.ruleId === 'max-lines').map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.message}`));
    assert.deepEqual(violations, []);
  });
});
