import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { loadInstructions, nodeInstructionsFs } from '../../../../src/node/prompt/agentsMd';
import { skillText } from '../../../../src/node/prompt/skillFiles';
import { searchTools, selectTools } from '../../../../src/core/prompt/toolDeferral';
import { runOptions, testRegistry } from '../../../support/toolRegistry';

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
    assert.deepEqual(report.files.find((f) => f.path === join(a, 'pkg', 'AGENTS.md')), { path: join(a, 'pkg', 'AGENTS.md'), bytes: 0, status: 'skipped', reason: 'symlink loop (ELOOP)' });
  });

  it('terminates on folder symlink loops between the root and the active file, loading each file once and reporting the loop', async () => {
    const { a, b } = layout();
    // A folder cycle: a/pkg/loop -> a/pkg, the active file reached through it three times.
    symlinkSync(join(a, 'pkg'), join(a, 'pkg', 'loop'));
    const cycle = await loadInstructions({ workspaceFolders: [a], activeFile: join(a, 'pkg', 'loop', 'loop', 'loop', 'file.ts'), trusted: true });
    assert.equal(cycle.text, '## a/AGENTS.md\nroot rule A\n\n## a/pkg/AGENTS.md\npkg rule');
    assert.deepEqual(
      cycle.files.map((f) => [f.path, f.status, f.reason]),
      [
        [join(a, 'AGENTS.md'), 'loaded', undefined],
        [join(a, 'pkg', 'AGENTS.md'), 'loaded', undefined],
        [join(a, 'pkg', 'loop', 'AGENTS.md'), 'skipped', 'already loaded (the same file through a link)'],
        [join(a, 'pkg', 'loop', 'loop', 'AGENTS.md'), 'skipped', 'already loaded (the same file through a link)'],
        [join(a, 'pkg', 'loop', 'loop', 'loop', 'AGENTS.md'), 'skipped', 'already loaded (the same file through a link)'],
      ],
    );
    // A loop that never resolves: a/x -> a/y -> a/x (the active file was open before the links changed),
    // and in the other folder an AGENTS.md that links to itself.
    symlinkSync(join(a, 'y'), join(a, 'x'));
    symlinkSync(join(a, 'x'), join(a, 'y'));
    rmSync(join(b, 'AGENTS.md'));
    symlinkSync(join(b, 'AGENTS.md'), join(b, 'AGENTS.md'));
    const loop = await loadInstructions({ workspaceFolders: [a, b], activeFile: join(a, 'x', 'sub', 'file.ts'), trusted: true });
    assert.equal(loop.text, '## a/AGENTS.md\nroot rule A');
    assert.deepEqual(
      loop.files.map((f) => [f.path, f.status, f.reason]),
      [
        [join(a, 'AGENTS.md'), 'loaded', undefined],
        [join(a, 'x', 'AGENTS.md'), 'skipped', 'symlink loop (ELOOP)'],
        [join(a, 'x', 'sub', 'AGENTS.md'), 'skipped', 'symlink loop (ELOOP)'],
        [join(b, 'AGENTS.md'), 'skipped', 'symlink loop (ELOOP)'],
      ],
    );
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

describe('session prompt', () => {
  const { getTokenCounter } = require('../../../../src/core/accounting/tokenizer');
  const { SessionPrompt } = require('../../../../src/core/prompt/sessionPrompt');
  const { withSettings } = require('../../../../src/core/settings');
  const { parseSkill } = require('../../../../src/core/prompt/skills');
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-skills-'));
    mkdirSync(join(root, 'review'));
    writeFileSync(join(root, 'review', 'SKILL.md'), '---\nname: code-review\ndescription: Review a diff for bugs\n---\n# Steps\nRead every hunk twice.');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const skill = () => ({ name: 'code-review', description: 'Review a diff for bugs', path: join(root, 'review', 'SKILL.md'), origin: 'user' });
  const make = (tools: ToolDefinition[] = []) =>
    new SessionPrompt({ counter: getTokenCounter(), settings: withSettings(), tools: () => tools, instructions: async () => 'Use tabs.', skills: async () => [skill()], skillText });

  it('orders sections static → dynamic with breakpoints, and is byte-identical for the same inputs', async () => {
    const prompt = make();
    const a = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0.1 });
    const b = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0.85 });
    assert.equal(JSON.stringify(a.system), JSON.stringify(b.system), 'the context status does not touch the system prompt');
    assert.match(a.system[0].text, /^You are Tally/);
    assert.match(a.system[1].text, /^Project instructions \(AGENTS\.md\):\nUse tabs\./);
    assert.match(a.system[2].text, /- code-review: Review a diff for bugs/);
    assert.deepEqual(a.system.map((s: { cacheBreakpoint?: boolean }) => Boolean(s.cacheBreakpoint)), [false, true, true]);
    assert.deepEqual(a.sections.dynamic, []);
    assert.match(b.sections.dynamic[0].text, /^\[Context: 85% used\. You can call compact_context/);
    assert.ok(a.fixed.skills > 0 && a.fixed.system > 0);
  });

  it('activating a skill brings its text in, counted under skills', async () => {
    const prompt = make();
    const before = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0 });
    const r = await testRegistry({ tools: prompt.tools() }).run({ id: 'c', name: 'activate_skill', arguments: '{"name":"code-review"}' }, runOptions());
    assert.match(String(r.output), /is active/);
    const after = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0 });
    assert.match(after.system[after.system.length - 1].text, /## Skill: code-review\n---[\s\S]*Read every hunk twice\./);
    assert.ok(after.fixed.skills > before.fixed.skills);
    assert.deepEqual(parseSkill('First paragraph here.\n\nMore.', 'folder'), { name: 'folder', description: 'First paragraph here.' });
  });

  it('defers tools past the share and promotes what tool_search finds', async () => {
    const big = (name: string): ToolDefinition => ({ name, description: `${name} ${'word '.repeat(300)}`, inputSchema: {}, source: 'mcp' });
    const prompt = make([{ name: 'read_file', description: 'read', inputSchema: {}, source: 'builtin' }, big('jira_search'), big('xcode_build')]);
    const p1 = await prompt.prepare({ effectiveWindow: 6_000, percentUsed: 0 });
    assert.ok(p1.tools.some((t: ToolDefinition) => t.name === 'tool_search'));
    assert.match(p1.sections.dynamic[0].text, /tools? deferred to save context/);
    const found = await testRegistry({ tools: prompt.tools() }).run({ id: 'c', name: 'tool_search', arguments: '{"query":"jira"}' }, runOptions());
    assert.match(String(found.output), /jira_search/);
    const p2 = await prompt.prepare({ effectiveWindow: 6_000, percentUsed: 0 });
    assert.ok(p2.tools.some((t: ToolDefinition) => t.name === 'jira_search'), 'the found tool is active next time');
  });

  it('a prompt with nothing changed since the last one reuses its sections and tools: none is counted again', async () => {
    const real = getTokenCounter();
    const counted: string[] = [];
    const counter = { encoding: real.encoding, count: (text: string) => (counted.push(text), real.count(text)), countAsync: (text: string) => real.countAsync(text), load: () => real.load() };
    const tools: ToolDefinition[] = [{ name: 'read_file', description: 'Read a file.', inputSchema: { properties: { path: { type: 'string' } } }, source: 'builtin' }];
    let instructions = 'Use tabs.';
    const prompt = new SessionPrompt({ counter, settings: withSettings(), tools: () => tools, instructions: async () => instructions, skills: async () => [skill()], skillText });
    const a = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0.1 });
    assert.ok(counted.length > 0);
    counted.length = 0;
    const b = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0.1 });
    assert.deepEqual(counted, [], 'nothing is counted again');
    a.sections.system.forEach((s: unknown, i: number) => assert.equal(b.sections.system[i], s, `system section ${i} is the same object`));
    a.sections.tools.forEach((t: unknown, i: number) => assert.equal(b.sections.tools[i], t, `tool section ${i} is the same object`));
    // What changed is counted again, and only that: the instructions' new text, the context note.
    instructions = 'Use spaces.';
    const c = await prompt.prepare({ effectiveWindow: 100_000, percentUsed: 0.9 });
    assert.equal(counted.length, 2, counted.join(' | '));
    assert.match(counted[0], /Use spaces\./);
    assert.match(counted[1], /Context: 90% used/);
    assert.equal(c.sections.system[0], a.sections.system[0]);
    assert.notEqual(c.sections.system[1], a.sections.system[1]);
    assert.match(c.system[1].text, /Use spaces\./);
    assert.equal(c.sections.tools[0], a.sections.tools[0]);
  });
});
