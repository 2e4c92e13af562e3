import type { ToolCall } from '../model/message';
import { parseToolArguments } from '../tools/args';

/**
 * Which files a tool call changed and which it only read, read the same way by summaries (their
 * "changed" list) and by the replay's retention check (a final-change path is due only once the
 * agent's own action changed it: an edit tool, or a command that wrote it).
 */

const PATH_KEYS = ['path', 'file', 'file_path', 'filePath', 'filename', 'file_name', 'target', 'dir', 'directory'];
const EDIT_TOOLS = /^(write|edit|create|str_replace|apply_patch|insert|replace|delete|rename|move|patch)/i;
/** Sub-commands of an editor tool (`str_replace_editor`) that only read. */
const READ_ONLY_SUBCOMMANDS = new Set(['view', 'read', 'show', 'list', 'find', 'search']);
const COMMAND_TOOLS = /^(run_command|bash|shell|execute|terminal|run)/i;
/** Tools that open a file for the editor commands after them (an edit naming no path changes the open file). */
const OPEN_TOOLS = /^(open|view|goto|open_file)$/i;

/** A file path as commands and tool arguments write it: has an extension agents edit. */
export const FILE_IN_TEXT = /(?:^|[\s'"`(=:])((?:\.{0,2}\/)?[\w@-][\w./@-]*\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|json|md|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|toml|ya?ml|txt|cfg|ini|sh|sql|html|css|scss|rst|lock|xml))(?=$|[\s'"`):,;])/g;

export function parseArguments(call: ToolCall): Record<string, unknown> {
  try {
    return parseToolArguments(call.arguments);
  } catch {
    return {}; // facts are best effort: a call with broken arguments still counts, without its paths
  }
}

/** The command a tool call runs, when it runs one. */
export function commandOf(call: ToolCall): string | undefined {
  const args = parseArguments(call);
  for (const key of ['command', 'cmd', 'script', 'input']) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() && !(key === 'command' && EDIT_TOOLS.test(call.name))) return value.trim();
  }
  return COMMAND_TOOLS.test(call.name) ? call.arguments.trim() : undefined;
}

function filesIn(text: string): string[] {
  return [...text.matchAll(FILE_IN_TEXT)].map((m) => m[1]);
}

/** A redirection target worth calling a file: it has an extension or a folder (not `5`, not `self.max:`). */
const FILE_LIKE = /^[\w./@~-]*(?:\/[\w.@-]*[A-Za-z][\w.@-]*|\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|json|md|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|toml|ya?ml|txt|cfg|ini|sh|sql|html|css|scss|rst|lock|xml|log|out|csv|diff|patch|env|conf))$/;

const add = (list: string[], path: string | undefined) => {
  const p = path?.replace(/^['"]|['"]$/g, '');
  if (p && p !== '/dev/null' && !p.startsWith('&') && !/^\/dev\//.test(p) && !list.includes(p)) list.push(p);
};

/**
 * The files a shell command writes: redirection targets (`>`, `>>`, `tee`), the files of an
 * in-place edit (`sed -i`, `perl -i`), the destination of `mv` and `cp`, the files a patch it
 * carries changes, and the files named in a script it runs inline that writes files
 * (`open(…, 'w')`, `write_text`).
 */
export function pathsWrittenBy(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/(?:^|[^<>&\d=-])\d?>>?\|?\s*(['"]?)([^\s'";&|<>()]+)\1/g)) if (FILE_LIKE.test(m[2])) add(out, m[2]);
  for (const m of command.matchAll(/\btee\s+(?:-a\s+)?((?:(?:['"]?)[^\s'";&|<>()]+(?:['"]?)\s*)+)/g)) for (const p of m[1].trim().split(/\s+/)) add(out, p);
  for (const segment of command.split(/&&|\|\||;|\n/)) {
    if (/\bsed\s+(?:-[a-zA-Z]+\s+|--\S+\s+)*-[a-zA-Z]*i|\bsed\s+.*\s-i\b|\bperl\s+-[a-zA-Z]*i/.test(segment)) {
      // The script is the first quoted argument: paths inside it are text being replaced, not files.
      const withoutScripts = segment.replace(/'[^']*'|"[^"]*"/g, ' ');
      for (const p of filesIn(withoutScripts)) add(out, p);
    }
    const move = /^\s*(?:sudo\s+)?(?:mv|cp)\s+(?:-\S+\s+)*(.+)$/.exec(segment);
    if (move) {
      const args = move[1].trim().split(/\s+/);
      if (args.length >= 2) add(out, args[args.length - 1]);
    }
  }
  if (/\b(?:patch|git\s+apply)\b/.test(command)) for (const m of command.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) add(out, m[1]);
  if (/\bopen\([^)]*,\s*(?:mode\s*=\s*)?['"](?:[wax]|r\+)b?\+?['"]|\.write_text\(|\.write_bytes\(|fileinput\.input\([^)]*inplace/.test(command)) {
    for (const p of filesIn(command)) add(out, p);
  }
  return out;
}

/** What one tool call did to files: the paths it changed and the ones it only read or looked at. */
export interface CallPaths {
  changed: string[];
  read: string[];
  /** The file this call opened for the editor commands after it. */
  opened?: string;
}

/**
 * The paths a tool call changed and read. `openFile`: the file an earlier call opened, which an
 * editor command naming no path of its own (SWE-agent's `edit`, `insert`) changes.
 */
export function pathsOfCall(call: ToolCall, openFile?: string): CallPaths {
  const args = parseArguments(call);
  const named: string[] = [];
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value) add(named, value);
  }
  const listed = args.paths;
  if (Array.isArray(listed)) for (const p of listed) if (typeof p === 'string') add(named, p);
  const sub = typeof args.command === 'string' ? args.command.trim().toLowerCase() : undefined;
  if (EDIT_TOOLS.test(call.name) && !(sub && READ_ONLY_SUBCOMMANDS.has(sub))) {
    const changed = [...named];
    const patch = typeof args.patch === 'string' ? args.patch : typeof args.input === 'string' ? args.input : '';
    for (const m of patch.matchAll(/^(?:\*\*\* (?:Update|Add|Delete) File: |\+\+\+ (?:b\/)?)(\S+)/gm)) add(changed, m[1]);
    if (changed.length === 0 && openFile) changed.push(openFile);
    return { changed, read: [] };
  }
  const command = commandOf(call);
  if (command === undefined) return { changed: [], read: named, opened: OPEN_TOOLS.test(call.name) ? named[0] : undefined };
  const changed = pathsWrittenBy(command);
  const read = [...named];
  for (const p of filesIn(command)) if (!changed.includes(p)) add(read, p);
  return { changed, read };
}

/** The same file, named from the repository root or from where the agent stood (`/testbed/src/a.py`, `src/a.py`). */
export function samePath(a: string, b: string): boolean {
  const x = a.replace(/^\.\//, '');
  const y = b.replace(/^\.\//, '');
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}
