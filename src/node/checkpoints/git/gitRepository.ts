import { readFileSync, statSync } from 'fs';
import { homedir } from 'os';
import { dirname, isAbsolute, join, resolve, sep } from 'path';
import { parseGitConfig, type GitConfigEntry } from '../../../core/tools/gitConfigFile';
import { type GitIndex, indexSignature, indexVouchesFor, readGitIndex } from './gitIndex';
import { GitObjects } from './gitObjects';
import { CheckoutConversions } from './checkoutConversions';

const MAX_CONFIG_BYTES = 256 * 1024;
const MAX_INCLUDE_DEPTH = 5;

const readText = (path: string) => {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size <= MAX_CONFIG_BYTES ? readFileSync(path, 'utf8') : '';
  } catch {
    return '';
  }
};

/** A git config file's settings, the files it includes read too (every include, whatever its condition: a setting that might apply counts). */
function configEntries(path: string, depth = 0): GitConfigEntry[] {
  const parsed = parseGitConfig(readText(path));
  if (!Array.isArray(parsed)) return [];
  const entries: GitConfigEntry[] = [];
  for (const entry of parsed) {
    entries.push(entry);
    if (depth < MAX_INCLUDE_DEPTH && /^(include|includeif\..+)\.path$/i.test(entry.key) && entry.value) {
      const target = entry.value.startsWith('~/') ? join(homedir(), entry.value.slice(2)) : isAbsolute(entry.value) ? entry.value : join(dirname(path), entry.value);
      entries.push(...configEntries(target, depth + 1));
    }
  }
  return entries;
}

function userConfigFiles(): string[] {
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return ['/etc/gitconfig', join(xdg, 'git', 'config'), join(homedir(), '.gitconfig')];
}

/** Why git's copies of a repository's files may differ from the files checked out, for every file; undefined when they do not. */
function unusableReason(settings: GitConfigEntry[]): string | undefined {
  const value = (key: string) => settings.filter((s) => s.key.toLowerCase() === key).pop()?.value.toLowerCase();
  if (value('core.autocrlf') === 'true') return 'core.autocrlf converts line endings on checkout';
  if (value('core.eol') === 'crlf') return 'core.eol converts line endings on checkout';
  if ((value('extensions.objectformat') ?? 'sha1') !== 'sha1') return 'the repository uses SHA-256 object ids';
  if (value('extensions.partialclone') || settings.some((s) => /^remote\..+\.promisor$/i.test(s.key) && s.value.toLowerCase() === 'true')) return 'a partial clone may lack the objects of files checked out';
  return undefined;
}

/** The git directory a work tree at `folder` (or above it) uses: a `.git` folder, or the folder a `.git` file names. */
function findGitDirectory(folder: string): { root: string; gitDir: string } | undefined {
  for (let at = folder; ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory() && statSync(join(dotGit, 'HEAD'), { throwIfNoEntry: false })?.isFile()) return { root: at, gitDir: dotGit };
    if (stat?.isFile()) {
      const match = /^gitdir: *(.+?)\s*$/m.exec(readText(dotGit));
      if (match) return { root: at, gitDir: resolve(at, match[1]) };
    }
    if (dirname(at) === at) return undefined;
  }
}

/**
 * A git repository whose index and objects can stand in for copies of its tracked files: a file
 * whose stat is what the index recorded is the blob the index names, so its bytes need not be
 * copied before a command; they are read from the objects only if the command changes it. Read
 * without running git (no program the repository configures can run).
 */
export class GitRepository {
  private index?: GitIndex;
  private indexError?: string;
  readonly objects: GitObjects;
  /** Files whose checkout git converts (attributes that change bytes): their blobs are not their bytes. */
  readonly conversions: CheckoutConversions;

  private constructor(
    /** The work tree's root. */
    readonly root: string,
    private readonly indexPath: string,
    objectFolders: string[],
    /** The text of `info/exclude`: ignore rules for the whole work tree. */
    readonly excludeText: string,
    /** Why no file's bytes are taken from git (see unusableReason), or undefined. */
    readonly unusable: string | undefined,
    attributeTexts: string[],
  ) {
    this.objects = new GitObjects(objectFolders);
    this.conversions = new CheckoutConversions(root, attributeTexts);
  }

  /** The repository `folder` is in, or undefined. */
  static find(folder: string): GitRepository | undefined {
    const found = findGitDirectory(folder);
    if (!found) return undefined;
    const commonText = readText(join(found.gitDir, 'commondir')).trim();
    const common = commonText ? resolve(found.gitDir, commonText) : found.gitDir;
    const objects = join(common, 'objects');
    const alternates = readText(join(objects, 'info', 'alternates'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => resolve(objects, l));
    const user = userConfigFiles().flatMap((f) => configEntries(f));
    const settings = [...user, ...configEntries(join(common, 'config'))];
    const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
    const attributesFile = settings.filter((s) => s.key.toLowerCase() === 'core.attributesfile').pop()?.value;
    const userAttributes = attributesFile ? (attributesFile.startsWith('~/') ? join(homedir(), attributesFile.slice(2)) : attributesFile) : join(xdg, 'git', 'attributes');
    const repository = new GitRepository(found.root, join(found.gitDir, 'index'), [objects, ...alternates], readText(join(common, 'info', 'exclude')), unusableReason(settings), [
      readText(userAttributes),
      readText(join(common, 'info', 'attributes')),
    ]);
    // The top folder's attributes apply before any listing reads it (a listing reads every folder's as it goes).
    repository.conversions.setFile(found.root, readText(join(found.root, '.gitattributes')) || undefined);
    return repository;
  }

  /** The path of `absolute` from the work tree's root, `/`-separated. */
  private pathOf(absolute: string): string {
    const path = absolute.slice(this.root.length + 1);
    return sep === '/' ? path : path.split(sep).join('/');
  }

  /** Reads the index again when its file changed since it was last read. */
  refresh(): void {
    if (this.unusable) return;
    const signature = indexSignature(this.indexPath);
    if (signature === this.index?.signature) return;
    try {
      this.index = signature ? readGitIndex(this.indexPath) : undefined;
      this.indexError = undefined;
    } catch (error) {
      this.index = undefined;
      this.indexError = (error as Error).message;
    }
  }

  /** Why no file's bytes are taken from git now, if none are. */
  get unavailable(): string | undefined {
    return this.unusable ?? this.indexError;
  }

  /**
   * The blob that holds the file's bytes, when the index vouches for the file as it is stated now
   * and no checkout conversion applies to it; else undefined (its bytes must be copied).
   */
  blobFor(absolute: string, stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): string | undefined {
    if (!this.index || this.unusable) return undefined;
    const path = this.pathOf(absolute);
    const entry = this.index.entries.get(path);
    if (!entry || !indexVouchesFor(entry, this.index, stat) || this.conversions.applies(absolute)) return undefined;
    return entry.oid;
  }
}
