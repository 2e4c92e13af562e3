import type { RunReport } from '../replay/replay';
import { escapeHtml } from './escape';

const n = (value: number) => Math.round(value).toLocaleString('en-US');
const share = (present: number, due: number) => (due ? `${((present / due) * 100).toFixed(1)}%` : '—');

/** What the agent was working from at each compaction, what the next request still carried, and the re-read estimate. */
export function workingSetSection(run: RunReport): string {
  const w = run.workingSet;
  if (w.compactions === 0) {
    return '<section id="working-set"><h2>Working set</h2><p>No compaction was followed by a request, so the agent kept everything it was working from.</p></section>';
  }
  const rows = w.results
    .map((r, i) => {
      const a = w.assistant[i];
      return `<tr><td>last ${r.depth}</td><td>${share(r.present, r.due)} (${r.present} of ${r.due})</td><td>${share(r.compactionsAllKept, w.compactions)}</td><td>${share(a.present, a.due)} (${a.present} of ${a.due})</td></tr>`;
    })
    .join('');
  return `<section id="working-set"><h2>Working set at ${w.compactions} compaction${w.compactions === 1 ? '' : 's'}</h2>
<p>Of the last whole tool results (and assistant messages) before each compaction, the share the next request carried whole.</p>
<table><tr><th>Depth</th><th>Tool results kept</th><th>Compactions that kept them all</th><th>Assistant messages kept</th></tr>${rows}</table>
<p>Re-read estimate: ${n(w.reReadTokens)} tokens in ${w.reReadResults} working-set result${w.reReadResults === 1 ? '' : 's'} (of the last five) compactions removed; a live agent reads what it needs of them again. Effective cost ${n(run.effectiveCost)} as replayed, ${n(run.effectiveCostWithReRead)} with them read again as new input.</p></section>`;
}

/** Each compaction's summary, readable in the report. */
export function summaryCell(summary: string | undefined): string {
  return summary === undefined ? '' : `<details><summary>summary (${n(summary.length)} characters)</summary><pre class="summary-text">${escapeHtml(summary)}</pre></details>`;
}
