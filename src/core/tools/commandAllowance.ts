import type { ResolvedPath, Workspace } from '../ports/workspace';
import { programRule, unsafeOptionIn, type MoreWords, type PackageManager } from './commandRules';
import { gitArgumentsInside } from './gitArguments';
import { describeGitPrograms, gitConfigPrograms, type GitConfigPrograms } from './gitConfigPrograms';
import { describePackageManagerFiles } from './packageManagerFiles';
import { packageScripts, scriptCall, type PackageScripts } from './packageScripts';
import { quoteWord, shellWords } from './shellWords';

/** What "Allow … for this session" on a command card grants (see commandRules.ts for the rules). */
export interface CommandAllowance {
  /** The workspace folder and the real working folder it was granted in: another folder asks again. */
  folder: string;
  cwd: string;
  /** The approved command's words, as the shell passes them. */
  words: string[];
  /** What a later command may add after them: plain words, plain paths inside the workspace, or git revisions and paths inside the work tree. */
  more?: MoreWords;
  /** For package scripts and git: the script, settings or git config texts the card showed; when they change, it asks again. */
  shown?: string;
  /** How the card names it: "`npm test` in sub while its scripts in sub/package.json stay unchanged". */
  label: string;
  /** For `more: 'paths'` and `'revisions'`: whether every argument of this command lies inside the workspace (the work tree for git). */
  argumentsInside?: boolean;
}

/** What the card for one command offers and shows. */
export interface CommandOffer {
  /** The allowance this command would be granted, and is matched as, when one can be offered. */
  allowance?: CommandAllowance;
  /** What the command runs besides its own line (a package's scripts, programs in git's config), for the card. */
  runs?: string;
  /** Why the card offers no allowance. */
  noAllowance?: string;
}

const childOf = (dir: string, name: string) => (name.startsWith('/') ? name : `${dir.replace(/[\\/]$/, '')}/${name}`);

async function allInside(words: readonly string[], cwd: ResolvedPath, workspace: Workspace): Promise<boolean> {
  for (const word of words) {
    if (word.startsWith('-')) continue;
    const inside = await workspace.resolve(childOf(cwd.absolute, word), { mustExist: false }).then(() => true, () => false);
    if (!inside) return false;
  }
  return true;
}

function describeScripts(manager: PackageManager, found: PackageScripts): string {
  const lines = [`${manager} runs these scripts from ${found.file}:`, ...found.scripts.map((s) => `${s.name}: ${s.text}`)];
  if (found.fields.length) lines.push('with these package.json fields, which choose what runs:', ...found.fields.map((f) => `  ${f.name}: ${f.value}`));
  lines.push(...describePackageManagerFiles(found));
  return lines.join('\n');
}

/** The files an allowance for a package script is bound to, after package.json itself. */
function boundFiles(found: PackageScripts): string[] {
  return [...found.settings.map((s) => s.file), ...found.code.filter((c) => c.sha256 !== 'absent').map((c) => c.file)];
}

/**
 * What the card offers for `command` run in `cwd`: an allowance only for a line the shell-word
 * parser proves inert, a program the rules allow, no option that changes what runs, and (for a
 * package script) scripts it could read from the package.json that will run them.
 */
export async function commandOffer(command: string, cwd: ResolvedPath, workspace: Workspace): Promise<CommandOffer> {
  const words = shellWords(command.trim());
  if (!words) return { noAllowance: 'the line has shell syntax an allowance cannot prove harmless (expansions, escapes, globs, redirections, several commands)' };
  const [program, subcommand] = words;
  const rule = programRule(program);
  if (rule.never) return { noAllowance: `${program}: ${rule.never}` };
  let runs: string | undefined;
  let shown: PackageScripts | undefined;
  let why: string | undefined;
  if (rule.scripts) {
    const call = scriptCall(rule.scripts, words);
    const found = call.script === undefined ? undefined : await packageScripts(rule.scripts, call.script, cwd, workspace);
    if (found && !('reason' in found)) {
      shown = found;
      runs = describeScripts(rule.scripts, found);
    }
    why = call.reason ?? (found && 'reason' in found ? found.reason : undefined);
  }
  const unsafe = rule.unsafeOptions && unsafeOptionIn(words.slice(1), rule.unsafeOptions, rule.abbreviatedOptions);
  if (unsafe) why ??= `${unsafe} can change what ${program} runs or reads`;
  let more = rule.more;
  if (rule.subcommands) {
    const sub = subcommand !== undefined && Object.prototype.hasOwnProperty.call(rule.subcommands, subcommand) ? rule.subcommands[subcommand] : undefined;
    if (!sub) why ??= `only ${Object.keys(rule.subcommands).map((s) => `${program} ${s}`).join(', ')} can be allowed, with no option before the subcommand`;
    else if (sub.onlyOptions && words.slice(2).some((w) => !sub.onlyOptions!.includes(w))) why ??= `\`${program} ${subcommand}\` can be allowed only with listing options`;
    more = sub?.more;
  }
  let gitConfig: GitConfigPrograms | undefined;
  if (program === 'git') {
    const found = await gitConfigPrograms(cwd, workspace);
    if ('reason' in found) why ??= found.reason;
    else {
      gitConfig = found;
      runs = describeGitPrograms(found);
    }
  }
  if (why) return { runs, noAllowance: why };
  const shownLine = `\`${words.map(quoteWord).join(' ')}\``;
  const where = cwd.relative === '.' ? 'in the workspace folder' : `in ${cwd.relative}`;
  const settings = shown && boundFiles(shown).length ? ` and ${boundFiles(shown).join(' and ')}` : '';
  const label = shown
    ? `${shownLine} ${where} while its scripts in ${shown.file}${settings} stay unchanged`
    : more === 'words' || more === 'revisions'
      ? `${shownLine} (plus more plain words) ${where}`
      : more === 'paths'
        ? `${shownLine} (plus more paths inside the workspace) ${where}`
        : `exactly ${shownLine} ${where}`;
  const gitFiles = [...(gitConfig?.files ?? []), ...(gitConfig?.hooks ?? []), ...(gitConfig?.namedFiles ?? [])].map((f) => f.file);
  const gitPrograms = gitConfig && (gitConfig.programs.length || gitConfig.hooks.length) ? ` while ${gitFiles.join(' and ')} ${gitFiles.length > 1 ? 'stay' : 'stays'} unchanged` : '';
  const allowance: CommandAllowance = { folder: cwd.folder, cwd: cwd.absolute, words, label: label + gitPrograms };
  if (more) allowance.more = more;
  if (shown) allowance.shown = JSON.stringify(shown);
  if (gitConfig) allowance.shown = JSON.stringify([gitConfig.files, gitConfig.hooks, gitConfig.namedFiles]);
  if (more === 'paths') allowance.argumentsInside = await allInside(words.slice(1), cwd, workspace);
  if (more === 'revisions') allowance.argumentsInside = gitConfig !== undefined && (await gitArgumentsInside(words.slice(2), cwd, gitConfig.workTree, workspace));
  return { allowance, runs };
}

/**
 * Whether an allowance granted earlier covers a command, given the allowance that command would be
 * granted now: same folder, same words (or, where the program allows it, more plain arguments that
 * are not options), and the same script texts read again just now.
 */
export function allowanceCovers(granted: CommandAllowance, now: CommandAllowance): boolean {
  if (granted.folder !== now.folder || granted.cwd !== now.cwd || granted.shown !== now.shown) return false;
  if (now.words.length < granted.words.length || granted.words.some((w, i) => now.words[i] !== w)) return false;
  const added = now.words.slice(granted.words.length);
  if (added.length === 0) return true;
  const option = (w: string) => w === '' || (w.startsWith('-') && !(granted.more === 'revisions' && w === '--'));
  if (!granted.more || granted.more !== now.more || added.some(option)) return false;
  return granted.more === 'words' || now.argumentsInside === true;
}
