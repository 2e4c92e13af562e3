import { isAbsolute, relative, sep } from 'path';

/**
 * Whether a path made by `path.relative` leads out of its base: its first segment is `..`, or it
 * is absolute (another drive on Windows). A name that merely starts with two dots (`..env`) stays inside.
 */
export function leadsOutside(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith('../') || isAbsolute(rel);
}

/** Whether `path` is `folder` itself or lies inside it (both absolute, compared as given). */
export function isInside(folder: string, path: string): boolean {
  return !leadsOutside(relative(folder, path));
}
