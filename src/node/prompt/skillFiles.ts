import { promises as fsp } from 'fs';
import { join } from 'path';
import { parseSkill, type Skill } from '../../core/prompt/skills';
import { errorCode, outsideWorkspaceReason, readPrefix, statFailureReason, statIfPresent } from './promptFiles';

const MAX_SKILL_BYTES = 64 * 1024;

/** A SKILL.md that was found but not loaded, and why (shown like skipped AGENTS.md files). */
export interface SkippedSkill {
  path: string;
  reason: string;
}

export interface SkillsReport {
  skills: Skill[];
  skipped: SkippedSkill[];
}

/** File access discovery needs; tests inject failures through it. */
export interface SkillsFs {
  readdir(path: string): Promise<Array<{ name: string; isDirectory: boolean }>>;
  /** undefined when nothing is there; throws for any other failure (a dangling link: ENOENT, a link loop: ELOOP). */
  stat(path: string): Promise<{ isFile: boolean; size: number } | undefined>;
  readPrefix(path: string, maxBytes: number): Promise<Uint8Array>;
  /** Real path (links resolved); node's when not given. */
  realPath?(path: string): Promise<string>;
}

export const nodeSkillsFs: SkillsFs = {
  async readdir(path) {
    const entries = await fsp.readdir(path, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, isDirectory: e.isDirectory() }));
  },
  stat: statIfPresent,
  readPrefix,
  realPath: (path) => fsp.realpath(path),
};


/**
 * Skills in `<folder>/*\/SKILL.md`: the workspace's `.tally/skills` (trusted workspaces only) and the
 * user's folder. A SKILL.md that cannot be loaded (a folder, a dangling link, binary, unreadable)
 * is skipped with the reason and the others still load.
 */
export async function loadSkills(args: { workspaceFolders: string[]; userSkillsFolder?: string; trusted: boolean; fs?: SkillsFs }): Promise<SkillsReport> {
  const fs = args.fs ?? nodeSkillsFs;
  const roots: Array<{ dir: string; origin: Skill['origin']; folder?: string }> = [];
  if (args.trusted) for (const f of args.workspaceFolders) roots.push({ dir: join(f, '.tally', 'skills'), origin: 'workspace', folder: f });
  if (args.userSkillsFolder) roots.push({ dir: args.userSkillsFolder, origin: 'user' });
  const skills: Skill[] = [];
  const skipped: SkippedSkill[] = [];
  const names = new Set<string>();
  for (const root of roots) {
    const entries = await fs.readdir(root.dir).catch(() => []);
    for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(root.dir, entry.name, 'SKILL.md');
      if (!entry.isDirectory) continue;
      let text: string;
      try {
        const read = await readSkill(fs, path, root.folder);
        if (read === undefined) continue; // a folder without SKILL.md is not a skill
        text = read;
      } catch (error) {
        skipped.push({ path, reason: error instanceof SkillSkip ? error.message : `unreadable (${errorCode(error)})` });
        continue;
      }
      const { name, description } = parseSkill(text, entry.name);
      if (names.has(name)) {
        skipped.push({ path, reason: `a skill named "${name}" was already loaded` }); // the workspace's skill wins over the user's
        continue;
      }
      names.add(name);
      skills.push({ name, description, path, origin: root.origin, ...(root.folder ? { workspaceFolder: root.folder } : {}) });
    }
  }
  return { skills, skipped };
}

class SkillSkip extends Error {}

/** The text of a SKILL.md; undefined when there is none; throws with the reason when it cannot be used. */
async function readSkill(fs: SkillsFs, path: string, workspaceFolder?: string): Promise<string | undefined> {
  let stat: Awaited<ReturnType<SkillsFs['stat']>>;
  try {
    stat = await fs.stat(path);
  } catch (error) {
    throw new SkillSkip(statFailureReason(error));
  }
  if (!stat) return undefined;
  if (!stat.isFile) throw new SkillSkip('not a regular file');
  if (workspaceFolder) {
    const outside = await outsideWorkspaceReason(fs.realPath ?? ((p) => fsp.realpath(p)), workspaceFolder, path);
    if (outside) throw new SkillSkip(outside);
  }
  const bytes = await fs.readPrefix(path, Math.min(stat.size, MAX_SKILL_BYTES));
  if (bytes.includes(0)) throw new SkillSkip('binary file');
  return Buffer.from(bytes).toString('utf8');
}

/** A skill's full text when it is activated; throws with the reason when it can no longer be read. */
export async function skillText(skill: Skill, fs: SkillsFs = nodeSkillsFs): Promise<string> {
  try {
    return (await readSkill(fs, skill.path, skill.workspaceFolder)) ?? '';
  } catch (error) {
    throw new Error(`${skill.path}: ${error instanceof SkillSkip ? error.message : `unreadable (${errorCode(error)})`}`);
  }
}
