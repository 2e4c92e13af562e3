import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CommandCatalog, CommandError } from '../../../../src/core/commands/commandCatalog';
import type { McpPromptSource } from '../../../../src/core/mcp/promptSource';
import { NodeCommandFileReader } from '../../../../src/node/slashCommands/commandFileReader';

/** Words as tokens: enough to tell texts apart by size. */
const count = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('slash commands from files on disk', () => {
  let root: string;
  let workspace: string;
  let user: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };
  const catalog = (trusted: boolean, mcp?: McpPromptSource) => new CommandCatalog(new NodeCommandFileReader(() => ({ workspace, userFolder: user })), () => trusted, mcp);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-commands-'));
    workspace = join(root, 'ws');
    user = join(root, 'home', 'commands');
    write(join(workspace, '.tally', 'commands', 'review.md'), '---\ndescription: Review the workspace way\n---\nReview $ARGUMENTS with @src/a.ts');
    write(join(workspace, '.github', 'prompts', 'review.prompt.md'), '---\ndescription: Review the prompt-file way\n---\nReview');
    write(join(workspace, '.github', 'prompts', 'plan.prompt.md'), "---\ndescription: 'Plan a change'\nmodel: GPT-4o\ntools: ['codebase']\n---\nPlan $1 then $2");
    write(join(workspace, '.github', 'prompts', 'notes.md'), 'not a prompt file: wrong suffix');
    write(join(user, 'review.md'), '---\ndescription: Review my way\n---\nMy review');
    write(join(user, 'fix.md'), 'Fix the failing test, one short paragraph only.');
    write(join(user, 'compact.md'), 'taken');
    write(join(user, 'broken.md'), '---\ndescription: x\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a trusted workspace lists built-ins, then its own commands over prompt files over the user\'s, with their token cost', async () => {
    const list = await catalog(true).list(count);
    const byName = new Map(list.map((c) => [c.name, c]));
    assert.deepEqual(list.map((c) => c.name), ['compact', 'review', 'plan', 'broken', 'fix']);
    const review = byName.get('review')!;
    assert.equal(review.source, '.tally/commands/review.md');
    assert.equal(review.description, 'Review the workspace way');
    assert.equal(review.note, 'overrides .github/prompts/review.prompt.md, ~/.tally/commands/review.md');
    assert.equal(review.attaches, 1);
    assert.equal(review.tokens, count('Review  with @src/a.ts'));
    assert.equal(byName.get('fix')!.tokens, 8);
    assert.match(byName.get('plan')!.note!, /asks for model GPT-4o; tools codebase/);
    assert.match(byName.get('broken')!.unavailable!, /no closing ---/);
    // The user's compact.md cannot take the built-in's name: the built-in stays, once.
    assert.equal(list.filter((c) => c.name === 'compact').length, 1);
    assert.equal(byName.get('compact')!.note, '~/.tally/commands/compact.md not used: the name is built in');
  });

  it('an untrusted workspace offers only the user\'s commands (a repository cannot add or replace one)', async () => {
    const list = await catalog(false).list(count);
    assert.deepEqual(list.map((c) => c.name), ['compact', 'broken', 'fix', 'review']);
    assert.equal(list[3].source, '~/.tally/commands/review.md');
    const run = await catalog(false).expand('/review now');
    assert.equal(run.kind === 'message' && run.text, 'My review\n\nnow');
  });

  it('expands a message into the command\'s text with its arguments, its source and its file references', async () => {
    const run = await catalog(true).expand('/plan "the parser" tests');
    assert.deepEqual(run, { kind: 'message', name: 'plan', text: 'Plan the parser then tests', source: '.github/prompts/plan.prompt.md', attach: [], refused: [] });
    const review = await catalog(true).expand('/review @../outside.txt');
    assert.ok(review.kind === 'message');
    assert.deepEqual(review.attach.map((f) => f.path), ['src/a.ts']);
    assert.deepEqual(review.refused.map((r) => r.written), ['../outside.txt']);
    assert.deepEqual(await catalog(true).expand('/compact keep the plan'), { kind: 'built-in', name: 'compact' });
    assert.deepEqual(await catalog(true).expand('no command here'), { kind: 'none' });
  });

  it('a command that cannot run says why: unknown, broken front matter, a link, a file gone since the list', async () => {
    await assert.rejects(catalog(true).expand('/nope'), (e: Error) => e instanceof CommandError && /no command \/nope.*start it with a space/.test(e.message));
    await assert.rejects(catalog(true).expand('/broken'), /\/broken \(~\/.tally\/commands\/broken.md\) cannot run: its front matter/);
    symlinkSync(join(root, 'home'), join(user, 'linked.md'));
    await assert.rejects(catalog(true).expand('/linked'), /symbolic link/);
    rmSync(join(user, 'fix.md'));
    await assert.rejects(catalog(true).expand('/fix'), /no command \/fix/);
  });

  it('MCP prompts join the same list and run with their arguments in order', async () => {
    const asked: unknown[] = [];
    const mcp: McpPromptSource = {
      listPrompts: async () => [{ server: 'docs', name: 'search', command: 'mcp.docs.search', description: 'Search the docs', arguments: [{ name: 'query', required: true }, { name: 'limit', required: false }] }],
      getPrompt: async (server, name, args) => {
        asked.push({ server, name, args });
        return { messages: [{ role: 'user', text: `Search for ${args.query}` }] };
      },
    };
    const list = await catalog(true, mcp).list(count);
    assert.deepEqual(list.at(-1), { name: 'mcp.docs.search', kind: 'mcp', source: 'MCP server docs', description: 'Search the docs', argumentHint: 'query [limit]' });
    const run = await catalog(true, mcp).expand('/mcp.docs.search "token counts" 5');
    assert.ok(run.kind === 'message' && run.text === 'Search for token counts' && run.source === 'MCP server docs, prompt search');
    assert.deepEqual(asked, [{ server: 'docs', name: 'search', args: { query: 'token counts', limit: '5' } }]);
    await assert.rejects(catalog(true, mcp).expand('/mcp.docs.search'), /needs query/);
  });
});
