import { promises as fsp } from 'fs';
import { join } from 'path';
import { parseAgentFile, type NamedAgent } from '../../core/agent/subagents/namedAgents';
import { nodeSkillsFs, type SkillsFs } from './skillFiles';
import { errorCode, outsideWorkspaceReason, statFailureReason } from './promptFiles';

const MAX_AGENT_BYTES = 64 * 1024;

export interface AgentsReport {
  agents: NamedAgent[];
  skipped: Array<{ path: string; reason: string }>;
}

/**
 * Named agents in the user's folder and in `<folder>/.tally/agents/*.md` of each workspace folder
 * (trusted workspaces only). The user's own agent of a name wins: a repository cannot replace it
 * (with more tools, another model or other instructions) by naming its agent the same; among the
 * workspace folders the first wins. A file that cannot be used is skipped with the reason and the
 * others still load.
 */
export async function loadAgents(args: { workspaceFolders: string[]; userAgentsFolder?: string; trusted: boolean; fs?: SkillsFs }): Promise<AgentsReport> {
  const fs = args.fs ?? nodeSkillsFs;
  const roots: Array<{ dir: string; origin: NamedAgent['origin']; folder?: string }> = [];
  if (args.userAgentsFolder) roots.push({ dir: args.userAgentsFolder, origin: 'user' });
  if (args.trusted) for (const f of args.workspaceFolders) roots.push({ dir: join(f, '.tally', 'agents'), origin: 'workspace', folder: f });
  const agents: NamedAgent[] = [];
  const skipped: AgentsReport['skipped'] = [];
  for (const root of roots) {
    const entries = await fs.readdir(root.dir).catch(() => []);
    for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory || !entry.name.toLowerCase().endsWith('.md')) continue;
      const path = join(root.dir, entry.name);
      try {
        const agent = parseAgentFile(await readAgentFile(fs, path, root.folder), entry.name, path, root.origin);
        const taken = agents.find((a) => a.name === agent.name);
        if (taken) throw new Error(taken.origin === 'user' && agent.origin === 'workspace' ? `the user's own agent "${agent.name}" (${taken.path}) has this name and wins` : `an agent named "${agent.name}" was already loaded`);
        agents.push(agent);
      } catch (error) {
        skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return { agents, skipped };
}

async function readAgentFile(fs: SkillsFs, path: string, workspaceFolder?: string): Promise<string> {
  let stat: Awaited<ReturnType<SkillsFs['stat']>>;
  try {
    stat = await fs.stat(path);
  } catch (error) {
    throw new Error(statFailureReason(error));
  }
  if (!stat?.isFile) throw new Error('not a regular file');
  if (workspaceFolder) {
    const outside = await outsideWorkspaceReason(fs.realPath ?? ((p) => fsp.realpath(p)), workspaceFolder, path);
    if (outside) throw new Error(outside);
  }
  let bytes: Uint8Array;
  try {
    bytes = await fs.readPrefix(path, Math.min(stat.size, MAX_AGENT_BYTES));
  } catch (error) {
    throw new Error(`unreadable (${errorCode(error)})`);
  }
  if (bytes.includes(0)) throw new Error('binary file');
  return Buffer.from(bytes).toString('utf8');
}
