import type { ToolDefinition } from '../model/tool';

export interface Skill {
  name: string;
  description: string;
  path: string;
  origin: 'workspace' | 'user';
  /** For a workspace skill, the folder its SKILL.md must stay inside (links leading out are refused). */
  workspaceFolder?: string;
}

export const ACTIVATE_SKILL_TOOL: ToolDefinition = {
  name: 'activate_skill',
  description: 'Load the full instructions of a skill listed under "Skills" in the system prompt.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  source: 'builtin',
  origin: 'session',
};

/** Reads `name` and `description` from a `---` front-matter block; falls back to the folder name and first paragraph. */
export function parseSkill(text: string, folderName: string): { name: string; description: string } {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const field = (key: string) => (front ? new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(front[1])?.[1].trim().replace(/^["']|["']$/g, '') : undefined);
  const body = front ? text.slice(front[0].length) : text;
  const paragraph = body.split(/\r?\n\s*\r?\n/).map((p) => p.replace(/^#.*$/gm, '').trim()).find(Boolean) ?? '';
  return { name: field('name') || folderName, description: (field('description') || paragraph).replace(/\s+/g, ' ').slice(0, 300) };
}

/** The index the prompt carries while no skill is active: names and descriptions only. */
export function skillsIndex(skills: Skill[]): string {
  if (skills.length === 0) return '';
  return ['Skills (call activate_skill with a name to load its instructions):', ...skills.map((s) => `- ${s.name}: ${s.description}`)].join('\n');
}
