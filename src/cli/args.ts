/** Minimal argument parsing for `tally`: positional files and `--name value` options. */
export interface ParsedArgs {
  command: string;
  files: string[];
  options: Map<string, string>;
}

const VALUE_OPTIONS = new Set(['window', 'max-output', 'strategy', 'json', 'out', 'session', 'store']);

export function parseArgs(argv: string[]): ParsedArgs {
  const [command = 'help', ...rest] = argv;
  const files: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      if (!VALUE_OPTIONS.has(name)) {
        if (name === 'help') options.set('help', 'true');
        else throw new Error(`unknown option --${name}`);
        continue;
      }
      const value = inline ?? rest[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      options.set(name, value);
    } else {
      files.push(arg);
    }
  }
  return { command, files, options };
}

export function positiveInt(options: Map<string, string>, name: string, fallback: number): number {
  const raw = options.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw.replace(/_/g, '').replace(/k$/i, '000'));
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number (got "${raw}")`);
  return value;
}
