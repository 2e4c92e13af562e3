import { mkdirSync } from 'fs';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Where the UI run saves its pictures: an ignored folder, so a test run never rewrites tracked files.
 * `npm run screenshots` points it at docs/screenshots to refresh the documentation's pictures.
 */
export function screenshotPath(name: string): string {
  const dir = process.env.TALLY_SCREENSHOTS_DIR ? resolve(process.env.TALLY_SCREENSHOTS_DIR) : join(ROOT, 'test-artifacts', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
