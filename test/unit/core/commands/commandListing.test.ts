import { strict as assert } from 'assert';
import { CommandCatalog, type CommandFileReader } from '../../../../src/core/commands/commandCatalog';
import type { CommandFileText } from '../../../../src/core/commands/commandFiles';

/** Prompt files in memory, as a reader returns them; `files` can be changed between reads. */
function reader(count: number) {
  const files: CommandFileText[] = Array.from({ length: count }, (_, i) => ({ scope: 'prompts', path: `.github/prompts/p${i}.prompt.md`, fileName: `p${i}.prompt.md`, text: `---\ndescription: Prompt ${i}\n---\nDo task ${i} for $ARGUMENTS.` }));
  const read: CommandFileReader = { read: async () => files.map((f) => ({ ...f })) };
  return { files, read };
}

describe('the / list of many command files', () => {
  it('counts each command\'s text once while its file and the counter stay the same, and again when either changes', async () => {
    const { files, read } = reader(200);
    const catalog = new CommandCatalog(read, () => true);
    const counted: string[] = [];
    const words = (text: string) => (counted.push(text), text.split(/\s+/).filter(Boolean).length);

    const p7 = (list: Awaited<ReturnType<CommandCatalog['list']>>) => list.find((c) => c.name === 'p7')!;
    const first = await catalog.list(words);
    assert.equal(first.length, 201);
    assert.equal(counted.length, 200);
    assert.equal(p7(first).tokens, 5); // 'Do task 7 for .'
    const again = await catalog.list(words);
    assert.deepEqual(again, first);
    assert.equal(counted.length, 200, 'the second list counted again');

    files[7] = { ...files[7]!, text: '---\ndescription: Prompt 7, edited\n---\nDo the edited task now, with care.' };
    const edited = await catalog.list(words);
    assert.equal(p7(edited).description, 'Prompt 7, edited');
    assert.equal(p7(edited).tokens, 7);
    assert.ok(counted.includes('Do the edited task now, with care.'));

    // Another session's counter (another model) counts every text again.
    const before = counted.length;
    const characters = (text: string) => (counted.push(text), text.length);
    const other = await catalog.list(characters);
    assert.equal(counted.length - before, 200);
    assert.equal(p7(other).tokens, 'Do the edited task now, with care.'.length);
  });

  it('a workspace that stops being trusted drops its files from the list at once', async () => {
    const { read } = reader(3);
    let trusted = true;
    const catalog = new CommandCatalog(read, () => trusted);
    assert.equal((await catalog.list((t) => t.length)).length, 4);
    trusted = false;
    assert.deepEqual((await catalog.list((t) => t.length)).map((c) => c.name), ['compact']);
  });
});
