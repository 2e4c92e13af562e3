/**
 * Named agents: `.tally/agents/<name>.md` files whose front matter gives a name, a description, the
 * tools the agent may use and optionally a model, and whose body is the agent's instructions.
 */
export interface NamedAgent {
  name: string;
  description: string;
  /** Tool names this agent may use; undefined: the read-only tools. */
  tools?: string[];
  /** A model of the provider the user configured; the caller checks it against that provider's models. */
  model?: string;
  instructions: string;
  path: string;
  origin: 'workspace' | 'user';
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_DESCRIPTION = 300;

/** A front-matter value: `key: value`, quotes removed; lists as `[a, b]` or `a, b`. */
function frontField(front: string, key: string): string | undefined {
  const match = new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(front);
  const value = match?.[1].trim().replace(/^["']|["']$/g, '');
  return value ? value : undefined;
}

function listField(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((s) => s.trim().replace(/^["']|["']$/g, ''))
    .filter(Boolean);
}

/** Parses one agent file; throws with a reason the user can act on when it cannot be used. */
export function parseAgentFile(text: string, fileName: string, path: string, origin: NamedAgent['origin']): NamedAgent {
  const front = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!front) throw new Error('no front matter (a block between --- lines with name and description)');
  const name = frontField(front[1], 'name') ?? fileName.replace(/\.md$/i, '');
  if (!NAME.test(name)) throw new Error(`the name "${name}" is not a plain name (letters, digits, - _ .)`);
  const description = frontField(front[1], 'description')?.replace(/\s+/g, ' ');
  if (!description) throw new Error('no description in the front matter (the model picks an agent by it)');
  const instructions = text.slice(front[0].length).trim();
  return {
    name,
    description: description.slice(0, MAX_DESCRIPTION),
    tools: listField(frontField(front[1], 'tools')),
    model: frontField(front[1], 'model'),
    instructions,
    path,
    origin,
  };
}

/** The lines the delegation tool's description carries: one per agent, name and description. */
export function agentsIndex(agents: readonly NamedAgent[]): string {
  if (agents.length === 0) return '';
  return ['Named agents (pass one as `agent`):', ...agents.map((a) => `- ${a.name}: ${a.description}`)].join('\n');
}
