import * as vscode from 'vscode';
import type { AgentFactory } from '../agents/agentFactory';
import type { ReadOnlyDocuments } from '../views/readOnlyDocuments';

/** Tally: Show Loaded Instructions — which AGENTS.md files and skills were loaded, cut or skipped, and why. */
export async function showLoadedInstructions(agents: AgentFactory, docs: ReadOnlyDocuments): Promise<string> {
  const loaded = await agents.loadInstructions();
  const lines = ['# Instructions Tally loads', '', vscode.workspace.isTrusted ? 'Workspace: trusted.' : 'Workspace: **not trusted** — workspace AGENTS.md files are not loaded.', ''];
  if (loaded.files.length === 0) lines.push('No AGENTS.md was found (user file: ~/.tally/AGENTS.md; each workspace folder root; the folders of the active file and of the files the agent worked on).');
  for (const f of loaded.files) lines.push(`- \`${f.path}\` — ${f.bytes} bytes — **${f.status}**${f.reason ? ` (${f.reason})` : ''}${f.because ? ` — applies because ${f.because}` : ''}`);
  const skills = await agents.loadSkills();
  lines.push('', '## Skills', '');
  if (!vscode.workspace.isTrusted) lines.push('Workspace skills (`.tally/skills`) are not loaded: the workspace is not trusted.', '');
  if (skills.skills.length === 0 && skills.skipped.length === 0) lines.push('No skills found (workspace `.tally/skills/<name>/SKILL.md`, or `~/.tally/skills`).');
  for (const skill of skills.skills) lines.push(`- **${skill.name}** (${skill.origin}) — ${skill.description} — \`${skill.path}\``);
  for (const skip of skills.skipped) lines.push(`- \`${skip.path}\` — **skipped** (${skip.reason})`);
  if (loaded.text) lines.push('', '---', '', loaded.text);
  await docs.open(['instructions'], 'Tally loaded instructions', lines.join('\n'), 'md');
  return lines.join('\n');
}
