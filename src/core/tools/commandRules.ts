/**
 * What "Allow … for this session" may cover, program by program: the one place that decides it.
 *
 * An allowance covers a parsed command (see shellWords.ts): the same program, subcommand and
 * options the user approved, in the same folder. Only where a program's extra arguments cannot
 * run code may a later command add plain arguments (`more`), and only when no option of it that a
 * later word could complete runs code or writes a file; every other program matches the approved
 * words exactly. Programs whose arguments name code to run get no allowance at all: the card
 * offers none and only the approved line runs. A program not listed here matches exactly, and only
 * when it is a bare name found on PATH (a path like `./build.sh` is the repository's code).
 */

export type PackageManager = 'npm' | 'pnpm' | 'yarn';

/**
 * What a later command may add after the approved words: `words`, plain words that are not
 * options; `paths`, the same but each must lie inside the workspace; `revisions`, git's
 * revisions and pathspecs that stay inside the repository's work tree (gitArguments.ts).
 */
export type MoreWords = 'words' | 'paths' | 'revisions';

export interface SubcommandRule {
  /** What a later command may add after the approved words; absent: nothing. */
  more?: MoreWords;
  /** When set, the only options this subcommand may carry, and it takes no other arguments. */
  onlyOptions?: readonly string[];
}

export interface ProgramRule {
  /** Why no allowance is ever offered: the program runs code its arguments (or files) name. */
  never?: string;
  /** What a later command may add after the approved words (see MoreWords); absent: nothing. */
  more?: MoreWords;
  /** Options that change what runs or reach outside the workspace: a command with one gets no allowance. */
  unsafeOptions?: readonly string[];
  /** The program takes a long option's unique abbreviation for it (`--out` for `--output`), so those count too. */
  abbreviatedOptions?: boolean;
  /** Only these subcommands (the second word) get an allowance; options before it get none. */
  subcommands?: Readonly<Record<string, SubcommandRule>>;
  /** Runs the scripts of a package.json: the card shows them and the allowance ends when they change. */
  scripts?: PackageManager;
}

const SHELL = 'a shell runs whatever its arguments or files say';
const INTERPRETER = 'it runs the code its arguments name, which can change between runs';
const WRAPPER = 'it runs another command given in its arguments';
const TASKS = 'it runs recipes from a file in the repository';
const REMOTE = 'it reaches other machines or containers';
const BUILD = 'it builds and runs code with settings the repository chooses (.cargo/config.toml, go.mod, compiler plugins)';
const EDITOR = 'it can run commands from inside it';

const never = (reason: string, ...names: string[]) => Object.fromEntries(names.map((n) => [n, { never: reason }]));

/**
 * Options, after a program this table does not know or in a script's arguments, that load code or
 * settings from elsewhere (`-r`: node's and mocha's require, `-e`: eval, `-c`: a config file).
 */
export const CODE_LOADING_OPTIONS: readonly string[] = [
  '-r', '-e', '-c', '--require', '--import', '--loader', '--experimental-loader', '--node-options', '--eval', '--exec', '--config', '--rcfile',
  '--init-file', '--script-shell', '--userconfig', '--globalconfig', '--prefix', '--pre', '--plugin', '--preload', '--setup-files',
];

/**
 * git subcommands that only read; `branch` only with listing options. The words a later command
 * adds must be revisions or paths inside the work tree: `git diff` turns into a plain-file diff
 * (an implicit `--no-index`) when one of two paths lies outside it.
 */
const GIT_READ_ONLY: Record<string, SubcommandRule> = {
  status: { more: 'revisions' },
  diff: { more: 'revisions' },
  log: { more: 'revisions' },
  show: { more: 'revisions' },
  'ls-files': { more: 'revisions' },
  'rev-parse': {},
  branch: { onlyOptions: ['--list', '-l', '-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--show-current', '--no-color'] },
};

/**
 * git options (of the read-only subcommands, and global ones in case a subcommand passes them on)
 * that write a file, run a program the config does not name, or read a file or repository
 * outside the work tree: `--output`, `--ext-diff` (GIT_EXTERNAL_DIFF), `--no-index`, `-O<orderfile>`,
 * ls-files' `-X`/`--exclude-from`/`--exclude-per-directory`, `--git-dir`/`--work-tree`/`--namespace`.
 */
const GIT_UNSAFE_OPTIONS = [
  '--output', '--ext-diff', '--no-index', '--open-files-in-pager', '-O', '--exec', '--upload-pack', '--receive-pack', '--exec-path', '-X', '--exclude-from',
  '--exclude-per-directory', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--output-directory',
];

export const PROGRAM_RULES: Readonly<Record<string, ProgramRule>> = {
  ...never(SHELL, 'sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'csh', 'tcsh', 'fish', 'pwsh', 'powershell', 'busybox', 'nu', 'xonsh', 'elvish'),
  ...never('a shell builtin that runs or changes other commands', 'eval', 'exec', 'source', '.', 'command', 'builtin', 'trap', 'alias', 'set', 'export', 'unset', 'cd', 'ulimit', 'umask'),
  ...never('a shell keyword', 'if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'in', 'select', 'function', 'coproc', 'time', '!', '{', '}', '[[', ']]'),
  ...never(WRAPPER, 'env', 'xargs', 'find', 'nice', 'ionice', 'nohup', 'timeout', 'sudo', 'doas', 'su', 'pkexec', 'runuser', 'chroot', 'setsid', 'stdbuf', 'taskset', 'chrt', 'flock', 'watch', 'parallel', 'entr', 'nodemon', 'unbuffer', 'script', 'strace', 'ltrace', 'gdb', 'lldb', 'valgrind', 'firejail', 'systemd-run', 'dbus-run-session', 'xvfb-run', 'expect', 'caffeinate', 'open', 'xdg-open', 'start', 'cmd', 'wsl', 'chronic', 'rlwrap', 'unshare', 'nsenter', 'setpriv', 'sg', 'newgrp', 'cross-env', 'dotenv', 'env-cmd', 'concurrently', 'npm-run-all', 'run-s', 'run-p', 'pm2', 'forever', 'ts-node-dev', 'tsc-watch'),
  ...never(INTERPRETER, 'node', 'nodejs', 'python', 'python2', 'python3', 'pypy', 'pypy3', 'ruby', 'irb', 'perl', 'php', 'lua', 'luajit', 'tclsh', 'wish', 'Rscript', 'R', 'julia', 'osascript', 'java', 'jshell', 'groovy', 'scala', 'kotlin', 'ghci', 'runghc', 'elixir', 'iex', 'erl', 'escript', 'guile', 'racket', 'sbcl', 'clisp', 'ocaml', 'deno', 'bun', 'tsx', 'ts-node', 'esno', 'vite-node', 'jiti', 'awk', 'gawk', 'mawk', 'nawk', 'sed', 'gsed', 'jq', 'bc', 'dc', 'm4', 'uv', 'uvx', 'pipx', 'poetry', 'pdm', 'hatch', 'conda'),
  ...never(BUILD, 'go', 'cargo', 'rustc', 'gcc', 'g++', 'cc', 'clang', 'dotnet', 'swift'),
  ...never('it downloads and runs a package', 'npx', 'pnpx', 'bunx', 'corepack'),
  ...never(TASKS, 'make', 'gmake', 'just', 'rake', 'ninja', 'cmake', 'meson', 'scons', 'gradle', 'gradlew', 'mvn', 'mvnw', 'ant', 'sbt', 'bazel', 'buck', 'task', 'invoke', 'nox', 'tox', 'grunt', 'gulp', 'turbo', 'nx', 'lerna'),
  ...never(REMOTE, 'ssh', 'scp', 'sftp', 'rsync', 'docker', 'podman', 'kubectl', 'helm', 'vagrant', 'telnet', 'nc', 'ncat', 'socat', 'curl', 'wget'),
  ...never(EDITOR, 'vi', 'vim', 'nvim', 'ex', 'emacs', 'nano', 'less', 'more', 'most', 'man', 'tmux', 'screen', 'code', 'git-shell'),
  ...never('it can run commands through its options (--to-command, -I, -TT)', 'tar', 'zip', 'unzip', 'sort'),
  git: { subcommands: GIT_READ_ONLY, unsafeOptions: GIT_UNSAFE_OPTIONS, abbreviatedOptions: true },
  npm: { scripts: 'npm' },
  pnpm: { scripts: 'pnpm' },
  yarn: { scripts: 'yarn' },
  echo: { more: 'words' },
  pwd: {},
  ls: { more: 'paths' },
  cat: { more: 'paths' },
  head: { more: 'paths' },
  tail: { more: 'paths' },
  wc: { more: 'paths' },
  grep: { more: 'paths' },
  du: { more: 'paths' },
  stat: { more: 'paths' },
};

/** The rule for a program name; a name that is a path (or is not a plain name) gets none. */
export function programRule(program: string): ProgramRule {
  if (Object.prototype.hasOwnProperty.call(PROGRAM_RULES, program)) return PROGRAM_RULES[program];
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/.test(program)) return { never: 'it is not a plain program name: a path names the repository\'s own code, and `NAME=value` sets the environment' };
  return { unsafeOptions: CODE_LOADING_OPTIONS };
}

/**
 * Whether `word` is `option` or sets it (`--opt=x`; `-Cdir` or a cluster like `-xC` for a one-letter
 * option); with `abbreviated`, also a shorter `--opt` the program completes to it (`--out=x`).
 */
export function usesOption(word: string, option: string, abbreviated = false): boolean {
  if (word === option || word.startsWith(`${option}=`)) return true;
  if (abbreviated && option.startsWith('--') && word.startsWith('--')) {
    const name = word.split('=')[0];
    if (name.length > 2 && option.startsWith(name)) return true;
  }
  if (/^-[A-Za-z]$/.test(option) && /^-[A-Za-z0-9]/.test(word) && !word.startsWith('--')) return word.slice(1).includes(option[1]);
  return false;
}

/** The first of `options` that one of `words` uses, if any. */
export function unsafeOptionIn(words: readonly string[], options: readonly string[], abbreviated = false): string | undefined {
  for (const word of words) for (const option of options) if (usesOption(word, option, abbreviated)) return option;
  return undefined;
}
