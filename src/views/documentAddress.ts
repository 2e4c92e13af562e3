/**
 * Where each read-only document lives: `tally-view:/<what>/<id>/<name>`, unique for the thing it
 * shows (a result's ref id, a request item's position, a summary's compaction), so two things
 * with alike names never share a tab. The last segment is the tab's name: the title with invisible
 * and direction-changing characters shown as ⟨U+…⟩ markers, and `/`, `\` and `%` percent-encoded
 * (never swapped for look-alike characters). No `vscode` import.
 */
import { clipRevealed, revealCharacters } from '../protocol/hiddenCharacters';

const TITLE_CHARS = 100;

/** A tab's name from a title: hidden characters as markers, whitespace as one space, length bounded, separators encoded. */
export function documentName(title: string, extension: string): string {
  const shown = revealCharacters(title).replace(/\s+/g, ' ').trim();
  const encoded = clipRevealed(shown, TITLE_CHARS).replace(/[%/\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${encoded || 'Tally'}.${extension}`;
}

/** The path of the document that shows `key` (segments naming the thing, e.g. ['result', refId]) under `title`. */
export function documentPath(key: readonly string[], title: string, extension: string): string {
  return `/${key.map((segment) => encodeURIComponent(segment) || '-').join('/')}/${documentName(title, extension)}`;
}

/** The texts of the open read-only documents, by path. */
export class ViewTexts {
  private readonly texts = new Map<string, string>();

  /** Keeps `content` for the document of `key`; `changed` when that document showed other text before. */
  put(key: readonly string[], title: string, extension: string, content: string): { path: string; changed: boolean } {
    const path = documentPath(key, title, extension);
    const previous = this.texts.get(path);
    this.texts.set(path, content);
    return { path, changed: previous !== undefined && previous !== content };
  }

  text(path: string): string | undefined {
    return this.texts.get(path);
  }

  clear(): void {
    this.texts.clear();
  }
}
