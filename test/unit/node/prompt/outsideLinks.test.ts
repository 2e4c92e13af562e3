import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { loadInstructions } from '../../../../src/node/prompt/agentsMd';
import { loadSkills, skillText } from '../../../../src/node/prompt/skillFiles';

const SECRET = '[default]\naws_secret_access_key = OUTSIDE-SECRET-1234';

describe('prompt files that link out of the workspace', () => {
  let root: string;
  let ws: string;
  let home: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-outside-links-'));
    ws = join(root, 'ws');
    home = join(root, 'home');
    mkdirSync(join(home, '.aws'), { recursive: true });
    writeFileSync(join(home, '.aws', 'credentials'), SECRET);
    mkdirSync(join(home, 'private', 'deploy'), { recursive: true });
    writeFileSync(join(home, 'private', 'AGENTS.md'), SECRET);
    writeFileSync(join(home, 'private', 'deploy', 'SKILL.md'), `---\nname: deploy\ndescription: d\n---\n${SECRET}`);
    mkdirSync(join(ws, 'src'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('skips a workspace AGENTS.md that is a link to a file outside, with the reason', async () => {
    symlinkSync(join(home, '.aws', 'credentials'), join(ws, 'AGENTS.md'));
    const report = await loadInstructions({ workspaceFolders: [ws], trusted: true });
    assert.ok(!report.text.includes('OUTSIDE-SECRET'), report.text);
    assert.equal(report.files.length, 1);
    assert.equal(report.files[0].status, 'skipped');
    assert.match(report.files[0].reason ?? '', /outside the workspace folder/);
  });

  it('skips a nested AGENTS.md reached through a folder link that leads outside', async () => {
    symlinkSync(join(home, 'private'), join(ws, 'src', 'linked'));
    const report = await loadInstructions({ workspaceFolders: [ws], activeFile: join(ws, 'src', 'linked', 'file.ts'), trusted: true });
    assert.ok(!report.text.includes('OUTSIDE-SECRET'), report.text);
    const linked = report.files.find((f) => f.path === join(ws, 'src', 'linked', 'AGENTS.md'));
    assert.equal(linked?.status, 'skipped');
    assert.match(linked?.reason ?? '', /outside the workspace folder/);
  });

  it('still loads links that stay inside the workspace, and the user file wherever it leads', async () => {
    writeFileSync(join(ws, 'docs.md'), 'Use tabs.');
    symlinkSync(join(ws, 'docs.md'), join(ws, 'AGENTS.md'));
    symlinkSync(join(home, 'private', 'AGENTS.md'), join(root, 'user-agents.md'));
    const report = await loadInstructions({ userFile: join(root, 'user-agents.md'), workspaceFolders: [ws], trusted: true });
    assert.deepEqual(report.files.map((f) => f.status), ['loaded', 'loaded']);
    assert.match(report.text, /Use tabs\./);
  });

  it('skips a workspace SKILL.md linked outside, and a skills folder that is a link outside', async () => {
    mkdirSync(join(ws, '.tally', 'skills', 'creds'), { recursive: true });
    symlinkSync(join(home, '.aws', 'credentials'), join(ws, '.tally', 'skills', 'creds', 'SKILL.md'));
    const fileLink = await loadSkills({ workspaceFolders: [ws], trusted: true });
    assert.deepEqual(fileLink.skills, []);
    assert.match(fileLink.skipped[0]?.reason ?? '', /outside the workspace folder/);

    rmSync(join(ws, '.tally', 'skills'), { recursive: true });
    symlinkSync(home, join(ws, '.tally', 'skills'));
    mkdirSync(join(home, 'deploy'));
    writeFileSync(join(home, 'deploy', 'SKILL.md'), `---\nname: deploy\ndescription: d\n---\n${SECRET}`);
    const folderLink = await loadSkills({ workspaceFolders: [ws], trusted: true });
    assert.deepEqual(folderLink.skills, []);
    assert.ok(folderLink.skipped.some((s) => s.path.endsWith(join('deploy', 'SKILL.md')) && /outside the workspace folder/.test(s.reason)), JSON.stringify(folderLink.skipped));
  });

  it('refuses to activate a workspace skill whose file became a link outside after discovery', async () => {
    mkdirSync(join(ws, '.tally', 'skills', 'deploy'), { recursive: true });
    const path = join(ws, '.tally', 'skills', 'deploy', 'SKILL.md');
    writeFileSync(path, '---\nname: deploy\ndescription: d\n---\nSteps.');
    const { skills } = await loadSkills({ workspaceFolders: [ws], trusted: true });
    assert.equal(skills.length, 1);
    rmSync(path);
    symlinkSync(join(home, '.aws', 'credentials'), path);
    await assert.rejects(skillText(skills[0]), /outside the workspace folder/);
  });

  it('the user skills folder may link anywhere', async () => {
    symlinkSync(join(home, 'private'), join(root, 'user-skills'));
    const report = await loadSkills({ workspaceFolders: [ws], userSkillsFolder: join(root, 'user-skills'), trusted: true });
    assert.deepEqual(report.skills.map((s) => s.name), ['deploy']);
  });
});
