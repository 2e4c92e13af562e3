/**
 * The file name Export Session proposes: the session's title as a plain slug, the day, and the
 * format's extension (`fix-config-loader-tests-2026-11-26.md`). No `vscode` import.
 */
export function exportFileName(title: string, at: Date, format: 'markdown' | 'json'): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  const day = at.toISOString().slice(0, 10);
  return `${slug || 'tally-session'}-${day}.${format === 'json' ? 'json' : 'md'}`;
}
