// Packs the built extension (dist/, media/) into a .vsix: `node scripts/pack-vsix.mjs OUT.vsix`.
// The README goes in with its pictures inlined as data: addresses. The installed extension's
// details page loads pictures only from https: and data: addresses, so a relative path to a
// packaged file shows as a broken image there, and an https: copy would depend on where the
// repository is hosted. The README in the repository keeps its relative paths.
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';
import { fileURLToPath, pathToFileURL } from 'url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/**
 * The README with every relative picture (`![alt](path)`) inlined as a data: address; other links as
 * they are. The part between `<!-- developers` and `<!-- /developers -->` (the commands that run Tally
 * from a clone) stays out: the extension's page opens with what Tally does for its user.
 */
export function readmeForPackage(markdown, readFile = (path) => readFileSync(join(ROOT, path))) {
  return markdown.replace(/<!-- developers[^>]*-->[\s\S]*?<!-- \/developers -->\n*/g, '').replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, alt, path) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return whole;
    const type = TYPES[path.split('.').pop().toLowerCase()];
    if (!type) throw new Error(`README picture ${path}: only ${Object.keys(TYPES).join(', ')} pictures can be packaged`);
    return `![${alt}](data:${type};base64,${readFile(path).toString('base64')})`;
  });
}

/** Runs vsce with the packaged README; `out` is the .vsix path. */
export function packVsix(out, { stdio = 'inherit' } = {}) {
  // vsce reads the README path relative to the project, so the copy goes in the ignored out/ folder.
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'out', 'readme-'));
  try {
    writeFileSync(join(dir, 'README.md'), readmeForPackage(readFileSync(join(ROOT, 'README.md'), 'utf8')));
    // The bundles carry every dependency, so node_modules stays out; links stay as written.
    execFileSync('npx', ['vsce', 'package', '--no-dependencies', '--no-rewrite-relative-links', '--readme-path', relative(ROOT, join(dir, 'README.md')), '--out', resolve(out)], { cwd: ROOT, stdio });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.argv[2]) {
    console.error('usage: node scripts/pack-vsix.mjs OUT.vsix');
    process.exit(2);
  }
  packVsix(process.argv[2]);
}
