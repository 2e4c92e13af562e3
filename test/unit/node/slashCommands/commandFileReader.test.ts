import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { lstat, readdir, readFile } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { CommandCatalog } from '../../../../src/core/commands/commandCatalog';
import { NodeCommandFileReader, type CommandFileSystem } from '../../../../src/node/slashCommands/commandFileReader';

const count = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The real file system, counting each call and how many lstat calls were in flight at once. */
function countingFiles() {
  const calls = { readdir: 0, lstat: 0, readFile: 0, lstatInFlight: 0, mostLstatInFlight: 0 };
  const files: CommandFileSystem = {
    readdir: (folder) => (calls.readdir++, readdir(folder)),
    lstat: async (file) => {
      calls.lstat++;
      calls.mostLstatInFlight = Math.max(calls.mostLstatInFlight, ++calls.lstatInFlight);
      try {
        return await lstat(file, { bigint: true });
      } finally {
        calls.lstatInFlight--;
      }
    },
    readFile: (file) => (calls.readFile++, readFile(file, 'utf8')),
  };
  return { calls, files };
}

describe('command files read from disk', () => {
  let root: string;
  let prompts: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-command-files-'));
    prompts = join(root, 'ws', '.github', 'prompts');
    mkdirSync(prompts, { recursive: true });
    for (let i = 0; i < 200; i++) writeFileSync(join(prompts, `p${String(i).padStart(3, '0')}.prompt.md`), `---\ndescription: Prompt ${i}\n---\nDo task ${i} for $ARGUMENTS.\n`);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('with 200 prompt files, the / list and a command read every file at once, and only the ones that changed again', async () => {
    const { calls, files } = countingFiles();
    const catalog = new CommandCatalog(new NodeCommandFileReader(() => ({ workspace: join(root, 'ws'), userFolder: join(root, 'user') }), files), () => true);
    const first = await catalog.list(count);
    assert.equal(first.length, 201);
    assert.equal(calls.readFile, 200);
    assert.ok(calls.mostLstatInFlight > 1, `the files were looked at one after another (${calls.mostLstatInFlight} at once)`);

    const run = await catalog.expand('/p007 the parser');
    assert.equal(run.kind === 'message' && run.text.trim(), 'Do task 7 for the parser.');
    assert.equal(calls.readFile, 200, 'unchanged files were read again');

    // An edit shows at the next list, whether its size changed or only its time.
    writeFileSync(join(prompts, 'p001.prompt.md'), '---\ndescription: Prompt one, edited\n---\nDo the edited task.\n');
    writeFileSync(join(prompts, 'p002.prompt.md'), '---\ndescription: Prompt 9\n---\nDo task 9 for $ARGUMENTS.\n');
    const touched = new Date('2100-01-01T00:00:00Z');
    utimesSync(join(prompts, 'p002.prompt.md'), touched, touched);
    rmSync(join(prompts, 'p003.prompt.md'));
    const after = await catalog.list(count);
    assert.equal(calls.readFile, 202);
    const byName = new Map(after.map((c) => [c.name, c]));
    assert.equal(byName.get('p001')?.description, 'Prompt one, edited');
    assert.equal(byName.get('p002')?.description, 'Prompt 9');
    assert.equal(byName.has('p003'), false);
    assert.deepEqual(after.slice(1, 4).map((c) => c.name), ['p000', 'p001', 'p002']);
  });
});
