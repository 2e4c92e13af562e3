import { lstatSync, readFileSync, type Stats } from 'fs';
import { join } from 'path';
import type { GitRepository } from '../git/gitRepository';
import type { IgnoreRules } from '../git/ignoreRules';
import type { KeptFolder } from './listedFiles';

/** What tells whether a file changed without reading it. */
export const stampOf = (stat: Stats) => `${stat.ino}:${stat.size}:${stat.mtimeMs}`;

/** How the listing states a path (it counts each one). */
type StatOf = (path: string) => Stats | undefined;

/** The rules in force in a folder: its own .gitignore's on top of `base` (read again only when the file or the base changed). */
export function folderRules(folder: string, hasFile: boolean, base: IgnoreRules, kept: KeptFolder, statOf: StatOf): IgnoreRules {
  if (!hasFile) {
    kept.ignoreFile = undefined;
    return base;
  }
  const path = join(folder, '.gitignore');
  const stat = statOf(path);
  const stamp = stat ? stampOf(stat) : 'absent';
  if (kept.ignoreFile && kept.ignoreFile.stamp === stamp && kept.ignoreFile.parent === base) return kept.ignoreFile.rules;
  const rules = base.with(folder, readSmall(path));
  kept.ignoreFile = { stamp, parent: base, rules };
  return rules;
}

/** Gives the repository a folder's .gitattributes (read again only when the file changed). */
export function readAttributes(repository: GitRepository, folder: string, hasFile: boolean, kept: KeptFolder, statOf: StatOf): void {
  if (!hasFile) {
    if (kept.attributesStamp) repository.conversions.setFile(folder, undefined);
    kept.attributesStamp = undefined;
    return;
  }
  const path = join(folder, '.gitattributes');
  const stat = statOf(path);
  const stamp = stat ? stampOf(stat) : 'absent';
  if (kept.attributesStamp === stamp) return;
  kept.attributesStamp = stamp;
  repository.conversions.setFile(folder, readSmall(path) || undefined);
}

const MAX_PATTERN_FILE_BYTES = 1024 * 1024;

/** A pattern file's text, or '' when there is none (or it is not a small regular file). */
export function readSmall(path: string): string {
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    return stat?.isFile() && stat.size <= MAX_PATTERN_FILE_BYTES ? readFileSync(path, 'utf8') : '';
  } catch {
    return '';
  }
}
