/** Shell syntax that runs more than one command or substitutes one: such a line never matches a prefix. */
const CHAINING = /[;&|`\n\r<>]|\$\(/;

/** Whether a command line chains or substitutes commands (`;`, `&&`, `|`, backticks, `$(`, redirections). */
export function chainsCommands(command: string): boolean {
  return CHAINING.test(command);
}

/**
 * The prefix "Allow … for this session" offers for a command: its first word, and the second when
 * it names a subcommand (`npm test`, `git status`) rather than an option or a path. None for a
 * line that chains commands, since it could never match.
 */
export function commandPrefix(command: string): string | undefined {
  const line = command.trim();
  if (!line || chainsCommands(line)) return undefined;
  const [first, second] = line.split(/\s+/);
  return second && /^[a-z][\w:-]*$/i.test(second) ? `${first} ${second}` : first;
}

/** Whether `command` starts with one of the allowed prefixes as whole words, and chains nothing. */
export function matchesAllowedPrefix(command: string, prefixes: Iterable<string>): boolean {
  const line = command.trim().replace(/\s+/g, ' ');
  if (!line || chainsCommands(command)) return false;
  for (const prefix of prefixes) if (line === prefix || line.startsWith(`${prefix} `)) return true;
  return false;
}
