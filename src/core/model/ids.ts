import { randomBytes } from 'crypto';

/** A sortable unique id: millisecond time prefix plus randomness. */
export function newId(prefix = ''): string {
  const time = Date.now().toString(36).padStart(9, '0');
  return prefix + time + randomBytes(6).toString('hex');
}
