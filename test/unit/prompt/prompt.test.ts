import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { ToolDefinition } from '../../../src/core/model/tool';
import { loadInstructions, nodeInstructionsFs } from '../../../src/core/prompt/agentsMd';
import { searchTools, selectTools } from '../../../src/core/prompt/toolDeferral';

describe('AGENTS.md loading', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'tally-agents-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function layout() {
    const a = join(root, 'a');
    const b = join(root, 'b');
    mkdirSync(join(a, 'pkg', 'sub'), { recursive: true });
    mkdirSync(b);
    writeFileSync(join(root, 'user.md'), 'user rule');
    writeFileSync(join(a, 'AGENTS.md'), 'root rule A');
    writeFileSync(join(a, 'pkg', 'AGENTS.md'), 'pkg rule');
    writeFileSync(join(a, 'pkg', 'sub', 'AGENTS.md'), 'sub rule');
    writeFileSync(join(b, 'AGENTS.md'), 'root rule B');
    writeFileSync(join(a, 'pkg', 'sub', 'file.ts'), '');
    return { a, b };
  }

  it('merges user, every folder root, and nested files down to the active file, root → leaf', async () => {
    const { a, b } = layout();
    const report = await loadInstructions({ userFile: join(root, 'user.md'), workspaceFolders: [a, b], activeFile: join(a, 'pkg', 'sub', 'file.ts'), trusted: true });
    const order = ['user rule', 'root rule A', 'pkg rule', 'sub rule', 'root rule B'].map((t) => report.text.indexOf(t));
    assert.ok(order.every((p, i) => p >= 0 && (i === 0 || p > order[i - 1])), report.text);
    assert.deepEqual(report.files.map((f) => f.status), ['loaded', 'loaded', 'loaded', 'loaded', 'loaded']);
    assert.match(report.text, /## a\/pkg\/sub\/AGENTS\.md\nsub rule/);
  });

  it('loads nothing from an untrusted workspace, saying why', async () => {
    const { a, b } = layout();
    const report = await loadInstructions({ userFile: join(root, 'user.md'), workspaceFolders: [a, b], trusted: false });
    assert.equal(report.text, '## ~/AGENTS.md\nuser rule');
    assert.ok(report.files.filter((f) => f.path !== join(root, 'user.md')).every((f) => f.status === 'skipped' && f.reason === 'the workspace is not trusted'));
  });

  it('caps at 32 KiB with a marker, reading only what fits from a 10 MB file', async () => {
    const { a } = layout();
    writeFileSync(join(a, 'AGENTS.md'), 'x'.repeat(10 * 1024 * 1024));
    let largestRead = 0;
    const fs = { ...nodeInstructionsFs, readPrefix: (p: string, n: number) => ((largestRead = Math.max(largestRead, n)), nodeInstructionsFs.readPrefix(p, n)) };
    const report = await loadInstructions({ fs, workspaceFolders: [a], activeFile: join(a, 'pkg', 'sub', 'file.ts'), trusted: true });
    assert.ok(largestRead <= 32 * 1024);
    assert.match(report.text, /cut at the 32 KiB instructions cap: [\d]+ bytes not loaded/);
    assert.equal(report.files[0].status, 'cut');
    assert.deepEqual(report.files.slice(1).map((f) => f.reason), ['the 32 KiB cap was reached', 'the 32 KiB cap was reached']);
  });

  it('skips binary, unreadable and looping files with the reason', async () => {
    const { a } = layout();
    writeFileSync(join(a, 'AGENTS.md'), Buffer.from([0x41, 0, 0x42]));
    rmSync(join(a, 'pkg', 'AGENTS.md'));
    symlinkSync(join(a, 'pkg', 'AGENTS.md'), join(a, 'pkg', 'AGENTS.md.loop'));
    symlinkSync(join(a, 'pkg', 'AGENTS.md.loop'), join(a, 'pkg', 'AGENTS.md'));
    const fs = { ...nodeInstructionsFs, readPrefix: async (p: string, n: number) => { if (p.includes('sub')) throw Object.assign(new Error('denied'), { code: 'EACCES' }); return nodeInstructionsFs.readPrefix(p, n); } };
    const report = await loadInstructions({ fs, workspaceFolders: [a], activeFile: join(a, 'pkg', 'sub', 'file.ts'), trusted: true });
    assert.equal(report.text, '');
    const reasons = report.files.map((f) => f.reason ?? '');
    assert.ok(reasons.includes('binary file'));
    assert.ok(reasons.includes('unreadable (EACCES)'));
  });
});

describe('tool deferral', () => {
  const tool = (name: string, source: ToolDefinition['source'], size = 100): ToolDefinition => ({ name, description: `${name} ${'d'.repeat(size)}`, inputSchema: {}, source });
  const count = (defs: ToolDefinition[]) => defs.reduce((n, d) => n + d.description.length, 0);

  it('defers MCP first, then extension, then skill tools, least recently used first; built-ins never', () => {
    const tools = [tool('read_file', 'builtin', 400), tool('mcp_a', 'mcp'), tool('mcp_b', 'mcp'), tool('ext_a', 'extension'), tool('skill_a', 'skill')];
    const selection = selectTools({ tools, countTokens: count, effectiveWindow: 7_000, share: 0.1, lastUsed: new Map([['mcp_a', 5], ['mcp_b', 1]]), promoted: new Set() });
    assert.deepEqual(selection.deferred.map((t) => t.name), ['mcp_b', 'mcp_a', 'ext_a']);
    assert.ok(selection.active.some((t) => t.name === 'read_file'));
    assert.ok(selection.active.some((t) => t.name === 'tool_search'));
    assert.equal(selection.note, '[3 tools deferred to save context. Use tool_search to find them.]');
  });

  it('keeps promoted tools and finds deferred ones by keywords', () => {
    const tools = [tool('read_file', 'builtin', 400), tool('xcode_build', 'mcp'), tool('jira_search', 'mcp')];
    const selection = selectTools({ tools, countTokens: count, effectiveWindow: 5_000, share: 0.1, lastUsed: new Map(), promoted: new Set(['xcode_build']) });
    assert.deepEqual(selection.deferred.map((t) => t.name), ['jira_search']);
    assert.deepEqual(searchTools('search jira issues', selection.deferred).map((t) => t.name), ['jira_search']);
    const none = selectTools({ tools, countTokens: count, effectiveWindow: 1_000_000, share: 0.1, lastUsed: new Map(), promoted: new Set() });
    assert.equal(none.deferred.length, 0);
    assert.equal(none.note, undefined);
  });
});
