/** A unified diff of two texts by lines (LCS), with +/− counts; large inputs get a summary instead. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): { diff: string; added: number; removed: number } {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  // Trim the common head and tail so the LCS table only covers the changed middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  if (am.length * bm.length > 4_000_000) {
    return { diff: `--- a/${path}\n+++ b/${path}\n[changed region too large to diff: ${am.length} lines → ${bm.length} lines]`, added: bm.length, removed: am.length };
  }
  const lcs: number[][] = Array.from({ length: am.length + 1 }, () => new Array<number>(bm.length + 1).fill(0));
  for (let i = am.length - 1; i >= 0; i--) for (let j = bm.length - 1; j >= 0; j--) lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: Array<{ op: ' ' | '-' | '+'; line: string }> = [];
  for (let k = Math.max(0, head - context); k < head; k++) ops.push({ op: ' ', line: a[k] });
  let i = 0;
  let j = 0;
  while (i < am.length || j < bm.length) {
    if (i < am.length && j < bm.length && am[i] === bm[j]) ops.push({ op: ' ', line: am[i++] }), j++;
    else if (j < bm.length && (i >= am.length || lcs[i][j + 1] > lcs[i + 1][j])) ops.push({ op: '+', line: bm[j++] });
    else ops.push({ op: '-', line: am[i++] });
  }
  for (let k = a.length - tail; k < Math.min(a.length, a.length - tail + context); k++) ops.push({ op: ' ', line: a[k] });
  const added = ops.filter((o) => o.op === '+').length;
  const removed = ops.filter((o) => o.op === '-').length;
  const start = Math.max(0, head - context) + 1;
  const oldCount = ops.filter((o) => o.op !== '+').length;
  const newCount = ops.filter((o) => o.op !== '-').length;
  const body = ops.map((o) => `${o.op}${o.line}`).join('\n');
  return { diff: `--- a/${path}\n+++ b/${path}\n@@ -${start},${oldCount} +${start},${newCount} @@\n${body}`, added, removed };
}
