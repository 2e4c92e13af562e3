import { promises as fsp } from 'fs';
import { relative, resolve, sep } from 'path';
import { leadsOutside } from '../insideFolder';

/**
 * Paths whose contents can run code on the user's machine (git hooks and config, editor tasks and
 * settings, CI workflows, dev containers, package scripts, build files). Writing them always asks,
 * whatever the approval settings say. Matched case-insensitively on any path segment, at any depth,
 * so nested projects and case-insensitive file systems are covered.
 */
const PROTECTED_DIRECTORIES = ['.git', '.vscode', '.husky', '.devcontainer', '.idea'];
const PROTECTED_DIRECTORY_PAIRS = [['.github', 'workflows']];
const PROTECTED_FILES = [
  '.envrc', '.env', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.gitattributes', '.gitmodules', '.pre-commit-config.yaml',
  'package.json', 'makefile', 'gnumakefile', 'justfile', 'rakefile', 'build.gradle', 'build.gradle.kts', 'pom.xml',
  'setup.py', 'pyproject.toml', 'conftest.py', 'cargo.toml', 'build.rs', 'gemfile', 'dockerfile', 'docker-compose.yml', '.gitlab-ci.yml',
];
const PROTECTED_SUFFIXES = ['.code-workspace'];

/** Why writing `relativePath` (relative to a workspace folder, `/` or `\` separated) can run code, or undefined. */
export function protectedReason(relativePath: string): string | undefined {
  const segments = relativePath.split(/[\\/]+/).filter((s) => s && s !== '.').map((s) => s.toLowerCase());
  for (let i = 0; i < segments.length - 1; i++) {
    if (PROTECTED_DIRECTORIES.includes(segments[i])) return `it is inside ${segments[i]}/, which can run code`;
    if (PROTECTED_DIRECTORY_PAIRS.some(([a, b]) => segments[i] === a && segments[i + 1] === b)) return `it is inside ${segments[i]}/${segments[i + 1]}/, which can run code`;
  }
  const name = segments[segments.length - 1];
  if (name === undefined) return undefined;
  if (PROTECTED_DIRECTORIES.includes(name)) return `it is ${name}/, which can run code`;
  if (PROTECTED_FILES.includes(name) || PROTECTED_SUFFIXES.some((s) => name.endsWith(s))) return `${name} can run code`;
  return undefined;
}

/**
 * Checks a resolved absolute path (symbolic links and `..` already resolved, as the write tools do)
 * against every workspace folder that contains it, so a folder nested in another is checked from both.
 */
export async function protectedPathReason(absolutePath: string, folders: readonly string[]): Promise<string | undefined> {
  const roots = new Set<string>();
  for (const folder of folders) {
    roots.add(resolve(folder));
    roots.add(await fsp.realpath(folder).catch(() => resolve(folder)));
  }
  for (const folder of roots) {
    const rel = relative(folder, absolutePath);
    if (leadsOutside(rel)) continue;
    const reason = protectedReason(rel.split(sep).join('/'));
    if (reason) return reason;
  }
  return undefined;
}
