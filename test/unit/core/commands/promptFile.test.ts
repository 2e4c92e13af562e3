import { strict as assert } from 'assert';
import { parsePromptFile, PromptFileError } from '../../../../src/core/commands/promptFile';
import { splitArguments, substituteArguments } from '../../../../src/core/commands/commandArguments';
import { fileReferences } from '../../../../src/core/commands/fileReferences';
import { parseCommandLine } from '../../../../src/core/commands/commandLine';

describe('command files: front matter', () => {
  it('reads a VS Code prompt file: description, model, agent (mode), tools as a list, and the body', () => {
    const file = parsePromptFile("---\ndescription: 'Review the change'\nmode: agent\nmodel: GPT-4o\ntools: ['codebase', \"search\"]\nargument-hint: file\n---\nReview #file:src/a.ts\n");
    assert.deepEqual(file, { description: 'Review the change', agent: 'agent', model: 'GPT-4o', tools: ['codebase', 'search'], argumentHint: 'file', body: 'Review #file:src/a.ts' });
  });

  it('reads block lists, comments and CRLF line ends; a file without front matter is all body', () => {
    assert.deepEqual(parsePromptFile('---\r\n# tools it wants\r\ntools:\r\n  - read\r\n  - edit\r\n---\r\nDo it'), { tools: ['read', 'edit'], body: 'Do it' });
    assert.deepEqual(parsePromptFile('Just text\n'), { body: 'Just text' });
  });

  it('refuses front matter it cannot read, naming the line', () => {
    assert.throws(() => parsePromptFile('---\ndescription: x\n'), (e: Error) => e instanceof PromptFileError && /no closing ---/.test(e.message));
    assert.throws(() => parsePromptFile('---\nnot a field\n---\nbody'), /line 2 is not "key: value"/);
    assert.throws(() => parsePromptFile('---\ndescription: |\n  long\n---\nbody'), /multi-line values/);
    assert.throws(() => parsePromptFile('---\ndescription: "open\n---\nbody'), /quoted value is not closed/);
    assert.throws(() => parsePromptFile('---\ndescription: [a, b]\n---\nbody'), /must be one value/);
  });
});

describe('command arguments', () => {
  it('keeps quoted groups together', () => {
    assert.deepEqual(splitArguments(`one "two words" 'three four' five`), ['one', 'two words', 'three four', 'five']);
  });

  it('fills $ARGUMENTS and $1…$9; a missing one is empty; $10 is not $1 followed by 0', () => {
    assert.equal(substituteArguments('Fix $1 in $2: $ARGUMENTS', 'bug "src/a b.ts"'), 'Fix bug in src/a b.ts: bug "src/a b.ts"');
    assert.equal(substituteArguments('[$3]', 'a'), '[]');
    assert.equal(substituteArguments('cost $10', 'a'), 'cost $10\n\na');
  });

  it('appends what was typed to a body that takes no arguments, so nothing typed is lost', () => {
    assert.equal(substituteArguments('Review the change.', 'focus on tests'), 'Review the change.\n\nfocus on tests');
    assert.equal(substituteArguments('Review the change.', ''), 'Review the change.');
  });

  it('reads /name and its arguments; a path or a leading space is not a command', () => {
    assert.deepEqual(parseCommandLine('/review  src/a.ts now'), { name: 'review', args: 'src/a.ts now' });
    assert.deepEqual(parseCommandLine('/mcp.docs.search x'), { name: 'mcp.docs.search', args: 'x' });
    assert.equal(parseCommandLine('/etc/hosts is wrong'), undefined);
    assert.equal(parseCommandLine('please /review'), undefined);
    assert.equal(parseCommandLine(' /review'), undefined);
  });
});

describe('command file references', () => {
  it('finds @path and #file:path once each, normalised; @words that are not paths are text', () => {
    const { files, refused } = fileReferences('See @src/a.ts and #file:./docs/x.md, again @src/a.ts. Ask @team; mail me@host.org');
    assert.deepEqual(files.map((f) => f.path), ['src/a.ts', 'docs/x.md']);
    assert.deepEqual(refused, []);
  });

  it('refuses absolute, home and climbing paths with a reason', () => {
    const { files, refused } = fileReferences('@/etc/passwd @~/.ssh/id_rsa @../secret.txt @a/../../b.txt @a/../ok.txt');
    assert.deepEqual(files.map((f) => f.path), ['ok.txt']);
    assert.deepEqual(refused.map((r) => r.written), ['/etc/passwd', '~/.ssh/id_rsa', '../secret.txt', 'a/../../b.txt']);
    assert.ok(refused.every((r) => /workspace/.test(r.reason)));
  });
});
