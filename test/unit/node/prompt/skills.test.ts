import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { loadSkills, nodeSkillsFs } from '../../../../src/node/prompt/skillFiles';

describe('skills discovery', () => {
  let root: string;
  let ws: string;
  let user: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-skills-discovery-'));
    ws = join(root, 'ws');
    user = join(root, 'user-skills');
    const skill = (dir: string, name: string, description: string) => {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nSteps for ${name}.`);
    };
    skill(join(ws, '.tally', 'skills'), 'ws-deploy', 'Deploy this repo');
    skill(user, 'user-review', 'Review a diff');
    skill(user, 'user-zeta', 'Last one alphabetically');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('skips a broken or unreadable SKILL.md with the reason and still loads the other skills', async () => {
    mkdirSync(join(user, 'is-a-folder', 'SKILL.md'), { recursive: true });
    mkdirSync(join(user, 'dangling'));
    symlinkSync(join(root, 'nowhere.md'), join(user, 'dangling', 'SKILL.md'));
    mkdirSync(join(user, 'loop'));
    symlinkSync(join(user, 'loop', 'SKILL.md'), join(user, 'loop', 'SKILL.md'));
    mkdirSync(join(user, 'binary'));
    writeFileSync(join(user, 'binary', 'SKILL.md'), Buffer.from([0x41, 0, 0x42]));
    mkdirSync(join(user, 'io-error'));
    writeFileSync(join(user, 'io-error', 'SKILL.md'), 'fine on disk, fails to read');
    mkdirSync(join(user, 'no-skill-here')); // a folder without SKILL.md is simply not a skill
    // A read failure after stat (EACCES for a non-root user, EIO, a file removed meanwhile) used to reject discovery.
    const fs = {
      ...nodeSkillsFs,
      readPrefix: async (path: string, n: number) => {
        if (path.includes('io-error')) throw Object.assign(new Error('i/o error'), { code: 'EIO' });
        return nodeSkillsFs.readPrefix(path, n);
      },
    };
    const report = await loadSkills({ workspaceFolders: [ws], userSkillsFolder: user, trusted: true, fs });
    assert.deepEqual(report.skills.map((s) => s.name), ['ws-deploy', 'user-review', 'user-zeta']);
    assert.deepEqual(report.skipped, [
      { path: join(user, 'binary', 'SKILL.md'), reason: 'binary file' },
      { path: join(user, 'dangling', 'SKILL.md'), reason: 'dangling symbolic link (ENOENT)' },
      { path: join(user, 'io-error', 'SKILL.md'), reason: 'unreadable (EIO)' },
      { path: join(user, 'is-a-folder', 'SKILL.md'), reason: 'not a regular file' },
      { path: join(user, 'loop', 'SKILL.md'), reason: 'symlink loop (ELOOP)' },
    ]);
    assert.deepEqual((await loadSkills({ workspaceFolders: [ws], userSkillsFolder: user, trusted: true, fs })).skills.map((s) => s.name), ['ws-deploy', 'user-review', 'user-zeta']);
  });

  it('an untrusted workspace contributes no skills; the user\'s own skills folder still loads', async () => {
    const untrusted = (await loadSkills({ workspaceFolders: [ws], userSkillsFolder: user, trusted: false })).skills;
    assert.deepEqual(untrusted.map((s) => [s.name, s.origin]), [['user-review', 'user'], ['user-zeta', 'user']]);
    const trusted = (await loadSkills({ workspaceFolders: [ws], userSkillsFolder: user, trusted: true })).skills;
    assert.deepEqual(trusted.map((s) => [s.name, s.origin]), [['ws-deploy', 'workspace'], ['user-review', 'user'], ['user-zeta', 'user']]);
  });
});
