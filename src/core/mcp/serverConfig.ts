import { parseJsonc } from './jsonc';

/**
 * MCP servers as VS Code's `mcp.json` lists them (`{ "servers": { name: {...} } }`): a program
 * started over stdio (`command`, `args`, `env`, `cwd`), or a server reached over streamable HTTP
 * (`url`, `headers`). Where the list came from is kept: a workspace's stdio servers are programs
 * the repository names, which the user allows one command line at a time.
 */
export type McpServerOrigin = 'user' | 'workspace' | 'file';

export interface McpStdioServer {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  origin: McpServerOrigin;
}

export interface McpHttpServer {
  name: string;
  transport: 'http';
  url: string;
  headers: Record<string, string>;
  origin: McpServerOrigin;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

export interface McpConfigResult {
  servers: McpServerConfig[];
  /** One line per server left out, and why (the others still load). */
  problems: string[];
}

/** What `${…}` variables stand for; `${input:…}` prompts are not supported and leave the server out. */
export interface McpVariables {
  workspaceFolder?: string;
  userHome?: string;
  env: Readonly<Record<string, string | undefined>>;
}

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Reads an `mcp.json` text (comments and trailing commas allowed); throws only when the file is not JSON at all. */
export function parseMcpJson(text: string, origin: McpServerOrigin, vars: McpVariables): McpConfigResult {
  let parsed: unknown;
  try {
    parsed = parseJsonc(text);
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed)) throw new Error('expected an object with "servers"');
  const servers = parsed.servers ?? {};
  return parseMcpServers(servers, origin, vars);
}

/** Reads a `servers` object (the setting's value, or the file's `servers`). */
export function parseMcpServers(value: unknown, origin: McpServerOrigin, vars: McpVariables): McpConfigResult {
  const result: McpConfigResult = { servers: [], problems: [] };
  if (!isRecord(value)) {
    result.problems.push('"servers" must be an object of server names.');
    return result;
  }
  for (const [name, raw] of Object.entries(value)) {
    try {
      result.servers.push(parseServer(name, raw, origin, vars));
    } catch (error) {
      result.problems.push(`MCP server "${name}" left out: ${(error as Error).message}`);
    }
  }
  return result;
}

function parseServer(name: string, raw: unknown, origin: McpServerOrigin, vars: McpVariables): McpServerConfig {
  if (!SERVER_NAME.test(name)) throw new Error('a name is letters, digits, ".", "_" or "-" (64 at most), starting with a letter or digit.');
  if (!isRecord(raw)) throw new Error('expected an object.');
  const sub = (text: string) => substitute(text, vars, origin);
  const type = raw.type === undefined ? (raw.command !== undefined ? 'stdio' : 'http') : raw.type;
  if (type === 'stdio') {
    const command = sub(requireString(raw.command, 'command'));
    return {
      name,
      transport: 'stdio',
      command,
      args: stringArray(raw.args, 'args').map(sub),
      env: stringMap(raw.env, 'env', sub),
      cwd: raw.cwd === undefined ? undefined : sub(requireString(raw.cwd, 'cwd')),
      origin,
    };
  }
  if (type === 'http' || type === 'sse') {
    const url = sub(requireString(raw.url, 'url'));
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`"url" is not a URL: ${url}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`"url" must be http or https: ${url}`);
    return { name, transport: 'http', url, headers: stringMap(raw.headers, 'headers', sub), origin };
  }
  throw new Error(`unknown "type" ${JSON.stringify(type)} (stdio, http).`);
}

/**
 * `${env:NAME}` only in the user's own lists: a repository's `.vscode/mcp.json` must not read the
 * user's environment (their tokens) into the requests it directs or the programs it names.
 */
function substitute(text: string, vars: McpVariables, origin: McpServerOrigin): string {
  return text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    if (name === 'workspaceFolder') {
      if (!vars.workspaceFolder) throw new Error(`${whole} needs a workspace folder.`);
      return vars.workspaceFolder;
    }
    if (name === 'userHome') {
      if (!vars.userHome) throw new Error(`${whole} is not known here.`);
      return vars.userHome;
    }
    if (name.startsWith('env:')) {
      if (origin === 'workspace') throw new Error(`${whole} is not allowed in a workspace's .vscode/mcp.json: a repository may not read your environment into the requests and programs it names. Add this server to your user settings (tally.mcp.servers) to use your environment.`);
      return vars.env[name.slice(4)] ?? '';
    }
    throw new Error(`${whole} is not supported (only \${workspaceFolder}, \${userHome} and \${env:NAME}).`);
  });
}

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`"${field}" must be a non-empty string.`);
  return value;
}

function stringArray(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'string')) throw new Error(`"${field}" must be an array of strings.`);
  return value as string[];
}

function stringMap(value: unknown, field: string, sub: (text: string) => string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new Error(`"${field}" must be an object of strings.`);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'number' || typeof v === 'boolean') out[key] = String(v);
    else if (typeof v === 'string') out[key] = sub(v);
    else if (v !== null) throw new Error(`"${field}.${key}" must be a string.`);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The command line a stdio server runs, as the user is shown it and as their decision is remembered under. */
export function stdioCommandLine(server: McpStdioServer): string {
  const quote = (word: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  const env = Object.entries(server.env).map(([k, v]) => `${k}=${quote(v)}`);
  const cwd = server.cwd ? [`(in ${server.cwd})`] : [];
  return [...env, quote(server.command), ...server.args.map(quote), ...cwd].join(' ');
}
