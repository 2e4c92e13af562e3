import { promises as fsp } from 'fs';
import { relative, resolve, sep } from 'path';
import { leadsOutside } from '../insideFolder';
import { CODE_RUNNING_FILES, type CodeRunningFile } from './codeRunningFiles';
import { namedByPackageSettings } from './namedByPackageSettings';

interface CompiledEntry {
  entry: CodeRunningFile;
  segments: RegExp[];
  folder: boolean;
}

/** `{a,b,}` alternatives (one level), then `*` as any characters; everything else literal. */
function segmentPattern(glob: string): RegExp {
  const alternatives = (text: string): string[] => {
    const open = text.indexOf('{');
    if (open === -1) return [text];
    const close = text.indexOf('}', open);
    const [head, tail] = [text.slice(0, open), text.slice(close + 1)];
    return text.slice(open + 1, close).split(',').flatMap((choice) => alternatives(head + choice + tail));
  };
  const literal = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^(?:${alternatives(glob).map(literal).join('|')})$`, 'i');
}

const COMPILED: CompiledEntry[] = CODE_RUNNING_FILES.map((entry) => ({
  entry,
  folder: entry.pattern.endsWith('/'),
  segments: entry.pattern.replace(/\/$/, '').split('/').map(segmentPattern),
}));

const matchesAt = (segments: readonly string[], start: number, patterns: readonly RegExp[]) => patterns.every((p, i) => p.test(segments[start + i] ?? ''));

function matches(compiled: CompiledEntry, segments: readonly string[]): boolean {
  const k = compiled.segments.length;
  // A folder entry covers the folder and everything under it; a file entry the last segments.
  if (compiled.folder) {
    for (let i = 0; i + k <= segments.length; i++) if (matchesAt(segments, i, compiled.segments)) return true;
    return false;
  }
  return segments.length >= k && matchesAt(segments, segments.length - k, compiled.segments);
}

/**
 * Why writing `relativePath` (relative to a workspace folder, `/` or `\` separated) can run code,
 * or undefined: "eslint.config.mjs is loaded as code by ESLint". See codeRunningFiles.ts.
 */
export function protectedReason(relativePath: string): string | undefined {
  const segments = relativePath.split(/[\\/]+/).filter((s) => s && s !== '.');
  if (segments.length === 0) return undefined;
  const hit = COMPILED.find((compiled) => matches(compiled, segments));
  return hit ? `${segments.join('/')} ${hit.entry.why}` : undefined;
}

/**
 * Checks a resolved absolute path (symbolic links and `..` already resolved, as the write tools do)
 * against every workspace folder that contains it, so a folder nested in another is checked from
 * both: against the table, then against the files package manager settings name as code.
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
    const reason = protectedReason(rel.split(sep).join('/')) ?? (await namedByPackageSettings(absolutePath, folder));
    if (reason) return reason;
  }
  return undefined;
}
