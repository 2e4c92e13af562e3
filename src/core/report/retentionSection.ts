import { FACT_KINDS, FACT_LABELS } from '../replay/facts';
import type { RunReport } from '../replay/replay';
import { retentionShare } from '../replay/retention';
import { escapeHtml } from './escape';

/** The report's retention view: share kept per kind of fact, and where each lost fact went missing. */
export function retentionSection(run: RunReport): string {
  const r = run.retention;
  if (r.firstCompactedRequest === undefined) {
    return '<section id="retention"><h2>Retention</h2><p>No compaction ran, so every fact stayed in every request.</p></section>';
  }
  const rows = FACT_KINDS.map((k) => `<tr><td>${FACT_LABELS[k]}</td><td>${r.kinds[k].present}</td><td>${r.kinds[k].due}</td><td>${retentionShare(r.kinds[k])}</td></tr>`).join('');
  const lost = r.lost.length
    ? `<table class="lost"><tr><th>First missing in request</th><th>Kind</th><th>Fact</th></tr>${r.lost
        .map((l) => `<tr class="bad"><td>${l.request + 1}</td><td>${FACT_LABELS[l.kind]}</td><td>${escapeHtml(l.fact)}</td></tr>`)
        .join('')}</table>`
    : '<p>No fact was lost.</p>';
  return `<section id="retention"><h2>Retention after the first compaction (request ${r.firstCompactedRequest + 1} on, ${r.requestsChecked} requests)</h2>
<table><tr><th>Fact</th><th>Present</th><th>Due</th><th>Kept</th></tr>${rows}</table>
<h3>Lost facts</h3>${lost}</section>`;
}
