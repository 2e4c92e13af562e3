/**
 * Files a command's text names for attaching: `@path` (Claude Code's spelling) and `#file:path`
 * (VS Code prompt files'), each starting a word. A reference must stay inside the workspace: an
 * absolute path, a home path or one that climbs out with `..` is refused, never read.
 */

export interface FileReference {
  /** As written after `@` or `#file:`. */
  written: string;
  /** Workspace-relative, `/`-separated, without `./`. */
  path: string;
}

export interface RefusedReference {
  written: string;
  reason: string;
}

const REFERENCE = /(?:^|[\s(])(@|#file:)([^\s`'"()<>,;]+)/g;

/** Every file reference in `text`, once each, in order; and those refused with why. */
export function fileReferences(text: string): { files: FileReference[]; refused: RefusedReference[] } {
  const files: FileReference[] = [];
  const refused: RefusedReference[] = [];
  const seen = new Set<string>();
  for (let m = REFERENCE.exec(text); m; m = REFERENCE.exec(text)) {
    const written = m[2].replace(/[.:!?]+$/, '');
    // `@` before a word that is not path-like (`@team`, `@param`) is not a reference; `#file:` always is.
    if (m[1] === '@' && !/[/.]/.test(written)) continue;
    if (seen.has(written)) continue;
    seen.add(written);
    const path = insideWorkspace(written);
    if (typeof path === 'string') files.push({ written, path });
    else refused.push({ written, reason: path.reason });
  }
  return { files, refused };
}

function insideWorkspace(written: string): string | { reason: string } {
  const slashed = written.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:\//.test(slashed)) return { reason: `@${written} is an absolute path: a command attaches only files inside the workspace` };
  if (slashed.startsWith('~')) return { reason: `@${written} is in the home folder: a command attaches only files inside the workspace` };
  const parts: string[] = [];
  for (const part of slashed.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (!parts.length) return { reason: `@${written} is outside the workspace: a command attaches only files inside it` };
      parts.pop();
    } else parts.push(part);
  }
  if (!parts.length) return { reason: `@${written} names no file` };
  return parts.join('/');
}
