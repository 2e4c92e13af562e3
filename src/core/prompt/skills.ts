import { promises as fsp } from 'fs';
import { join } from 'path';
import type { ToolDefinition } from '../model/tool';

export interface Skill {
  name: string;
  description: string;
  path: string;
  origin: 'workspace' | 'user';
}

export const ACTIVATE_SKILL_TOOL: ToolDefinition = {
  name: 'activate_skill',
  description: 'Load the full instructions of a skill listed under "Skills" in the system prompt.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  source: 'builtin',
};

const MAX_SKILL_BYTES = 64 * 1024;

/** Reads `name` and `description` from a `---` front-matter block; falls back to the folder name and first paragraph. */
export function parseSkill(text: string, folderName: string): { name: string; description: string } {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const field = (key: string) => (front ? new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(front[1])?.[1].trim().replace(/^["']|["']$/g, '') : undefined);
  const body = front ? text.slice(front[0].length) : text;
  const paragraph = body.split(/\r?\n\s*\r?\n/).map((p) => p.replace(/^#.*$/gm, '').trim()).find(Boolean) ?? '';
  return { name: field('name') || folderName, description: (field('description') || paragraph).replace(/\s+/g, ' ').slice(0, 300) };
}

/** Skills in `<folder>/*\/SKILL.md`: the workspace's `.tally/skills` (trusted workspaces only) and the user's folder (F16). */
export async function discoverSkills(args: { workspaceFolders: string[]; userSkillsFolder?: string; trusted: boolean }): Promise<Skill[]> {
  const roots: Array<{ dir: string; origin: Skill['origin'] }> = [];
  if (args.trusted) for (const f of args.workspaceFolders) roots.push({ dir: join(f, '.tally', 'skills'), origin: 'workspace' });
  if (args.userSkillsFolder) roots.push({ dir: args.userSkillsFolder, origin: 'user' });
  const skills: Skill[] = [];
  const names = new Set<string>();
  for (const root of roots) {
    const entries = await fsp.readdir(root.dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isDirectory()) continue;
      const path = join(root.dir, entry.name, 'SKILL.md');
      const text = await readSkill(path);
      if (text === undefined) continue;
      const { name, description } = parseSkill(text, entry.name);
      if (names.has(name)) continue; // the workspace's skill wins over the user's of the same name
      names.add(name);
      skills.push({ name, description, path, origin: root.origin });
    }
  }
  return skills;
}

async function readSkill(path: string): Promise<string | undefined> {
  const stat = await fsp.stat(path).catch(() => undefined);
  if (!stat?.isFile()) return undefined;
  const handle = await fsp.open(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_SKILL_BYTES));
    await handle.read(buffer, 0, buffer.length, 0);
    return buffer.includes(0) ? undefined : buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The index the prompt carries while no skill is active: names and descriptions only. */
export function skillsIndex(skills: Skill[]): string {
  if (skills.length === 0) return '';
  return ['Skills (call activate_skill with a name to load its instructions):', ...skills.map((s) => `- ${s.name}: ${s.description}`)].join('\n');
}

export async function skillText(skill: Skill): Promise<string> {
  return (await readSkill(skill.path)) ?? '';
}
