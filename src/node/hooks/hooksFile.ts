import { readFile } from 'fs/promises';
import { parseHooks, type HookOrigin, type ParsedHooks } from '../../core/hooks/hookConfig';

/**
 * Reads a hooks file in Claude Code's shape (`{ "hooks": { … } }`). A missing file has no hooks;
 * a file that is not JSON gives no hooks and says why in `problems`.
 */
export async function readHooksFile(path: string, origin: HookOrigin): Promise<ParsedHooks & { found: boolean }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { hooks: [], problems: [], found: false };
    return { hooks: [], problems: [`${path}: ${(error as Error).message}`], found: true };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { hooks: [], problems: [`${path} is not valid JSON (${(error as Error).message}); its hooks were not loaded`], found: true };
  }
  return { ...parseHooks(value, origin, path), found: true };
}
