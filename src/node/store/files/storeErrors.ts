/**
 * What went wrong when a file could not be read, in words. sql.js throws plain objects for its
 * own file-system errors (an `ErrnoError` when it runs out of handles), so `String(error)` would
 * give "[object Object]".
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const fields = error as Record<string, unknown>;
    if (typeof fields.message === 'string' && fields.message !== '') return fields.message;
    const name = typeof fields.name === 'string' ? fields.name : 'error';
    const code = typeof fields.code === 'string' ? fields.code : Object.values(fields).find((v) => typeof v === 'number');
    if (name === 'ErrnoError') return `sql.js file system error${code === undefined ? '' : ` ${String(code)}`} (too many open databases, or out of memory)`;
    try {
      return `${name}: ${JSON.stringify(error)}`;
    } catch {
      return name;
    }
  }
  return String(error);
}

/**
 * What SQLite says about a file whose bytes are damaged. Only these mean "corrupt": any other
 * failure (out of memory, too many open files, a full disk, no permission) says nothing about
 * the file, which must then be left where it is.
 */
const DAMAGED = /file is not a database|database disk image is malformed|integrity check failed|SQLITE_CORRUPT|SQLITE_NOTADB|unsupported file format/i;

export function isDamagedFile(error: unknown): boolean {
  return error instanceof Error && DAMAGED.test(error.message);
}

/** The errno code of a Node.js file-system error, if it is one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Codes saying the store folder cannot be written at all (as opposed to a full disk). */
export const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'EISDIR']);
