import { readdirSync, statSync } from 'fs';
import { join } from 'path';

/** Bytes of every file under `folder`, at any depth. */
export function bytesUnder(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath ?? folder, entry.name)).size;
  }
  return total;
}
