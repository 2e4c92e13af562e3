/**
 * The commands and numbers an agent's work depends on, read the same way by summaries (which must
 * keep them) and by the replay's retention check (which looks for them in every request).
 */

/** How long a command's kept form may be: its first line, trimmed, at most this many characters. */
const COMMAND_CHARS = 200;

/** The form of a command a summary keeps and the retention check looks for: its first line. */
export function commandKeyOf(command: string): string {
  const first = command.trim().split('\n')[0].trim();
  return first.length > COMMAND_CHARS ? first.slice(0, COMMAND_CHARS) : first;
}

/**
 * Commands that check the work: test runners, builds, type checkers and linters, and scripts
 * named for testing or reproducing a problem (what an agent reruns to see whether it is done).
 */
const TEST_OR_BUILD = new RegExp(
  [
    String.raw`\b(?:pytest|py\.test|tox|nox|nosetests|unittest|jest|vitest|mocha|phpunit|rspec|ctest|tsc|mypy|pyright|eslint|ruff|flake8)\b`,
    String.raw`\b(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?(?:test|build|check|lint)\b`,
    String.raw`\b(?:cargo|go|dotnet|swift|mix|zig)\s+(?:test|build|check|vet)\b`,
    String.raw`(?:^|[;&|(])\s*(?:make|cmake|ninja|mvn|gradle|\./gradlew|bazel|rake|meson)\b`,
    String.raw`\bsetup\.py\s+(?:test|build|build_ext|develop)\b`,
    String.raw`\bpython[\d.]*\s+(?:-\S+\s+)*\S*(?:test|repro|reproduce|check|verify)\S*\.py\b`,
  ].join('|'),
  'i',
);

export function isTestOrBuildCommand(command: string): boolean {
  return TEST_OR_BUILD.test(command);
}

/** A line that says where an error happened: `line 42`, `file.py:42`, `at f (x.js:3:7)`. */
const LOCATION = /\bline \d+\b|[\w.-]+\.[A-Za-z]\w*:\d+/;

/**
 * The last line of a failing output that names a place (file and line), when it is not the
 * error line itself: for a traceback, the frame the error was raised in.
 */
export function errorLocationOf(text: string, errorLine: string | undefined): string | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line || line === errorLine || !LOCATION.test(line)) continue;
    return line.length > 300 ? line.slice(0, 300) : line;
  }
  return undefined;
}

/** A token holding a digit, with the word before and after it. */
const NUMBER_TOKEN = /(?:([A-Za-z][\w-]*) )?([\w#@+:.-]*\d[\w#@+:.%-]*)(?=(?: ([A-Za-z][\w-]*))?)/g;
/** Tokens that carry a number of their own: `file.py:42`, `v3.11.2`, `E501`, `TS2345`, `#1234`. */
const NUMBERED_TOKEN = /^[\w.-]*\.[A-Za-z]\w*:\d+(?::\d+)?$|^v?\d+(?:\.\d+)+$|^[A-Z]{1,4}\d{2,}$|^#\d+$/;
const BARE_NUMBER = /^\d+(?:[.,]\d+)*%?$/;

/**
 * The numbers in a text that the work depends on: line numbers, counts, versions, error codes.
 * Each keeps what makes it findable as itself: a token that carries its number keeps the token
 * (`parser.py:42`, `3.11.2`, `E501`), a bare number keeps the word before it (`line 42`) or,
 * with none, the word after it (`3 failed`). Numbers inside names and ids are left out.
 */
export function numbersIn(text: string, max = 12): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(NUMBER_TOKEN)) {
    const raw = match[2];
    const token = raw.replace(/[.:,;-]+$/, '');
    let fact: string | undefined;
    if (NUMBERED_TOKEN.test(token)) fact = token;
    else if (BARE_NUMBER.test(token) && match[1]) fact = `${match[1]} ${token}`;
    else if (BARE_NUMBER.test(token) && match[3] && token === raw) fact = `${token} ${match[3]}`;
    if (fact && !found.includes(fact)) found.push(fact);
    if (found.length >= max) break;
  }
  return found;
}
