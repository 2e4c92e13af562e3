/**
 * The files a package manager's settings text may name as code or as more settings: yarn's
 * `yarnPath` and plugins, `--require ./setup.cjs` in `nodeOptions`/`node-options`, a
 * `script-shell`, `injectEnvironmentFiles`… Rather than follow each tool's schema, every word
 * that looks like a path counts: a relative one (with a `/` or a `.`) is a file whose content the
 * allowance is bound to (or whose absence, so that creating it asks again); an absolute one is
 * bound the same way when it lies in the workspace, and left alone when it does not (the user's own
 * machine: `script-shell=/bin/bash`). Keys that only name data folders are skipped.
 */
export interface SettingsPaths {
  /** Relative paths, as written. */
  relative: string[];
  /** Absolute or home (`~`) paths, as written. */
  absolute: string[];
}

/** Keys whose absolute paths name data (certificates, caches, stores), never code to run. */
const DATA_KEYS = new Set([
  'registry',
  'cafile', 'ca', 'cert', 'key', 'cache', 'cache-dir', 'cachefolder', 'globalfolder', 'store-dir', 'storedir', 'virtual-store-dir', 'virtualstoredir',
  'modules-dir', 'modulesdir', 'tmp', 'logs-dir', 'state-dir', 'statedir', 'global-dir', 'globaldir', 'global-bin-dir', 'globalbindir', 'enablemirror', 'httpscafilepath',
]);

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"]*/gi;
const SEPARATORS = /[\s'"=,:;[\]{}()]+/;
const MAX_WORDS = 400;

export function settingsPaths(text: string): SettingsPaths | { reason: string } {
  const relative = new Set<string>();
  const absolute = new Set<string>();
  let words = 0;
  for (const line of text.split(/\r?\n/)) {
    const key = /^\s*(?:-\s*)?["']?([A-Za-z0-9_.@/-]+)["']?\s*[=:]/.exec(line)?.[1].toLowerCase();
    for (const word of line.replace(URL_LIKE, ' ').split(SEPARATORS)) {
      if (!word || word.startsWith('//') || word.startsWith('-') || word.startsWith('@') || /[*$?]/.test(word)) continue;
      if (/^[/\\~]/.test(word) || /^[A-Za-z]:[\\/]/.test(word)) {
        if (!(key && DATA_KEYS.has(key))) absolute.add(word);
        continue;
      }
      if (!/[./]/.test(word) || /^\.+$/.test(word) || /^v?\d+(\.\d+)*([-+][\w.]+)?$/.test(word)) continue;
      if (++words > MAX_WORDS) return { reason: 'it names more paths than the card can follow' };
      relative.add(word.replace(/\/+$/, ''));
    }
  }
  return { relative: [...relative], absolute: [...absolute] };
}
