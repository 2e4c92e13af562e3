/**
 * Every slash command one place offers: the built-in `/compact`, the command and prompt files,
 * and the prompts of MCP servers. It lists them (with what each would send and its tokens) and
 * expands a message that runs one into the text to send. Pure: the files come from a reader the
 * node or VS Code layer gives, tokens from the session's own counter.
 */
import type { McpPromptInfo, McpPromptSource } from '../mcp/promptSource';
import { BUILT_IN_COMMANDS, commandsFromFiles, type CommandFileText, type FileCommand } from './commandFiles';
import { parseCommandLine } from './commandLine';
import { splitArguments, substituteArguments } from './commandArguments';
import { fileReferences, type FileReference, type RefusedReference } from './fileReferences';

/** Reads every command file of the folders `commandFolders(trusted)` names. Never throws: a file that fails carries `readError`. */
export interface CommandFileReader {
  read(trusted: boolean): Promise<CommandFileText[]>;
}

export type CommandKind = 'built-in' | 'workspace' | 'prompts' | 'user' | 'mcp';

/** One line of the `/` list. */
export interface CommandListing {
  name: string;
  kind: CommandKind;
  description?: string;
  argumentHint?: string;
  /** The file it comes from, or the MCP server. */
  source: string;
  /** Tokens of the text it sends with no arguments (absent: not known before it runs). */
  tokens?: number;
  /** Files its text attaches. */
  attaches?: number;
  /** Why it cannot run (a file that does not parse); shown, not offered. */
  unavailable?: string;
  /** Front matter Tally shows but does not act on (model, tools, agent), in words. */
  note?: string;
}

/** What a message that runs a command turns into. */
export type Expansion =
  | { kind: 'none' }
  | { kind: 'built-in'; name: string }
  | { kind: 'message'; name: string; text: string; source: string; attach: FileReference[]; refused: RefusedReference[] };

/** A command that cannot run: the message says why, for the user. */
export class CommandError extends Error {}

export class CommandCatalog {
  /** The files as last read and the commands they made: the same texts make the same commands without parsing them again. */
  private parsed?: { files: readonly CommandFileText[]; trusted: boolean; commands: FileCommand[] };
  /** Each file command's line of the list, with the counter that counted it (the `/` list is asked for on every key). */
  private listings = new WeakMap<FileCommand, { count: (text: string) => number; listing: CommandListing }>();

  constructor(
    private readonly files: CommandFileReader,
    private readonly trusted: () => boolean,
    private readonly mcp?: McpPromptSource,
  ) {}

  private async fileCommands(): Promise<FileCommand[]> {
    const trusted = this.trusted();
    const files = await this.files.read(trusted);
    if (!this.parsed || this.parsed.trusted !== trusted || !sameFiles(this.parsed.files, files)) this.parsed = { files, trusted, commands: commandsFromFiles(files, trusted) };
    return this.parsed.commands;
  }

  private listingOf(command: FileCommand, count: (text: string) => number): CommandListing {
    const known = this.listings.get(command);
    if (known?.count === count) return known.listing;
    const listing = listingOf(command, count);
    this.listings.set(command, { count, listing });
    return listing;
  }

  /** Every command, built-ins first, then files, then MCP prompts; `count`: a text's tokens as the cost line counts them. */
  async list(count: (text: string) => number, signal?: AbortSignal): Promise<CommandListing[]> {
    const files = await this.fileCommands();
    // A file named like a built-in is not offered; the built-in's line says it is not used.
    const unused = files.filter((c) => BUILT_IN_COMMANDS.includes(c.name)).flatMap((c) => [c.path, ...c.overrides]);
    const compact: CommandListing = { name: 'compact', kind: 'built-in', description: 'Compact the context now; text after it says what to keep', argumentHint: '[focus]', source: 'built in' };
    if (unused.length) compact.note = `${unused.join(', ')} not used: the name is built in`;
    const out: CommandListing[] = [compact];
    for (const c of files) if (!BUILT_IN_COMMANDS.includes(c.name)) out.push(this.listingOf(c, count));
    const prompts = this.mcp ? await this.mcp.listPrompts(signal) : [];
    for (const p of prompts) out.push(mcpListing(p));
    return out;
  }

  /** What `text` runs. Throws CommandError for a command that does not exist or cannot run. */
  async expand(text: string, signal?: AbortSignal): Promise<Expansion> {
    const line = parseCommandLine(text);
    if (!line) return { kind: 'none' };
    if (line.name === 'compact') return { kind: 'built-in', name: 'compact' };
    if (line.name.startsWith('mcp.')) return this.expandMcp(line.name, line.args, signal);
    const command = (await this.fileCommands()).find((c) => c.name === line.name);
    if (!command) throw new CommandError(`There is no command /${line.name}. Type / to see the commands; to send a message that starts with /, start it with a space.`);
    return expandFile(command, line.args);
  }

  private async expandMcp(name: string, args: string, signal?: AbortSignal): Promise<Expansion> {
    const prompt = this.mcp ? (await this.mcp.listPrompts(signal)).find((p) => p.command === name) : undefined;
    if (!prompt || !this.mcp) throw new CommandError(`There is no MCP prompt /${name}: its server is not configured or not running.`);
    const words = splitArguments(args);
    const values: Record<string, string> = {};
    prompt.arguments.forEach((a, i) => {
      const value = i === prompt.arguments.length - 1 && words.length > prompt.arguments.length ? words.slice(i).join(' ') : words[i];
      if (value !== undefined) values[a.name] = value;
    });
    const missing = prompt.arguments.filter((a) => a.required && values[a.name] === undefined).map((a) => a.name);
    if (missing.length) throw new CommandError(`/${name} needs ${missing.join(', ')} (in that order after the name).`);
    const result = await this.mcp.getPrompt(prompt.server, prompt.name, values, signal);
    const text = result.messages.map((m) => (m.role === 'assistant' ? `(assistant) ${m.text}` : m.text)).join('\n\n');
    return { kind: 'message', name, text, source: `MCP server ${prompt.server}, prompt ${prompt.name}`, attach: [], refused: [] };
  }
}

function sameFiles(a: readonly CommandFileText[], b: readonly CommandFileText[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i]!.path && f.scope === b[i]!.scope && f.text === b[i]!.text && f.readError === b[i]!.readError);
}

/** A file command's text for the arguments typed after its name. */
export function expandFile(command: FileCommand, args: string): Expansion {
  if (command.error || !command.file) throw new CommandError(`/${command.name} (${command.path}) cannot run: ${command.error ?? 'it could not be read'}.`);
  const text = substituteArguments(command.file.body, args);
  if (!text.trim()) throw new CommandError(`/${command.name} (${command.path}) has no text to send.`);
  const { files, refused } = fileReferences(text);
  return { kind: 'message', name: command.name, text, source: command.path, attach: files, refused };
}

function listingOf(c: FileCommand, count: (text: string) => number): CommandListing {
  const base = { name: c.name, kind: c.scope, source: c.path } as const;
  if (c.error || !c.file) return { ...base, unavailable: c.error ?? 'could not be read' };
  const file = c.file;
  const text = substituteArguments(file.body, '');
  const attaches = fileReferences(text).files.length;
  const asked = [file.model ? `model ${file.model}` : '', file.tools?.length ? `tools ${file.tools.join(', ')}` : '', file.agent ? `agent ${file.agent}` : ''].filter(Boolean);
  const notes = [c.overrides.length ? `overrides ${c.overrides.join(', ')}` : '', asked.length ? `asks for ${asked.join('; ')} (the session's are kept)` : ''].filter(Boolean);
  return {
    ...base,
    ...(file.description ? { description: file.description } : {}),
    ...(file.argumentHint ? { argumentHint: file.argumentHint } : {}),
    tokens: count(text),
    ...(attaches ? { attaches } : {}),
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

function mcpListing(p: McpPromptInfo): CommandListing {
  return {
    name: p.command,
    kind: 'mcp',
    source: `MCP server ${p.server}`,
    ...(p.description ? { description: p.description } : {}),
    ...(p.arguments.length ? { argumentHint: p.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ') } : {}),
  };
}
