/** A message that runs a command: `/name` first, then what is typed after it. */
export interface CommandLine {
  name: string;
  /** Everything after the name, as typed (trimmed). */
  args: string;
}

/** The command a message runs, or undefined when it does not start with `/name`. */
export function parseCommandLine(text: string): CommandLine | undefined {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return undefined;
  return { name: m[1], args: (m[2] ?? '').trim() };
}
