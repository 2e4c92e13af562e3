import type { ComponentTokens } from '../model/records';
import type { CompactionReport, RequestReport, RunReport } from '../replay/replay';
import { ownerTokens, TOKEN_OWNERS } from '../model/owners';
import { escapeHtml } from './escape';
import { retentionSection } from './retentionSection';
import { summaryCell, workingSetSection } from './workingSetSection';

/** The report's colour per owner (a standalone page: no VS Code theme colours to borrow). */
const COLORS: Record<keyof ComponentTokens, string> = { system: '#3b82f6', skills: '#8b5cf6', tools: '#f59e0b', messages: '#10b981', toolResults: '#ef4444', summaries: '#eab308', hooks: '#ea580c', plan: '#d946ef' };

/** Segment order and colours shared by the bar and the timeline. */
const SEGMENTS = TOKEN_OWNERS.map((owner) => ({ ...owner, color: COLORS[owner.key] }));

export { escapeHtml };

const n = (value: number) => Math.round(value).toLocaleString('en-US');
const pct = (value: number, of: number) => (of ? `${((value / of) * 100).toFixed(1)}%` : '0%');

function stackedBar(request: RequestReport, run: RunReport): string {
  const window = run.contextWindow;
  const parts = SEGMENTS.map((s) => {
    const tokens = ownerTokens(request.components, s.key);
    return `<div class="seg" data-tokens="${tokens}" style="width:${(tokens / window) * 100}%;background:${s.color}" title="${s.label}: ${n(tokens)} tokens (${pct(tokens, window)})"></div>`;
  });
  const free = Math.max(0, run.effectiveWindow - request.totalTokens);
  const reserve = window - run.effectiveWindow;
  parts.push(`<div class="seg free" data-tokens="${free}" style="width:${(free / window) * 100}%" title="Free: ${n(free)} tokens"></div>`);
  parts.push(`<div class="seg reserve" data-tokens="${reserve}" style="width:${(reserve / window) * 100}%" title="Output reserve: ${n(reserve)} tokens"></div>`);
  const trigger = (run.effectiveWindow * 0.95) / window;
  return `<div class="bar">${parts.join('')}<div class="marker" style="left:${trigger * 100}%" title="Compaction threshold (95% of the effective window)"></div></div>`;
}

function legend(request: RequestReport, run: RunReport): string {
  const rows = SEGMENTS.map(
    (s) => `<tr><td><span class="swatch" style="background:${s.color}"></span>${s.label}</td><td>${n(ownerTokens(request.components, s.key))}</td><td>${pct(ownerTokens(request.components, s.key), run.contextWindow)}</td></tr>`,
  );
  rows.push(`<tr><td><span class="swatch free"></span>Free</td><td>${n(Math.max(0, run.effectiveWindow - request.totalTokens))}</td><td></td></tr>`);
  rows.push(`<tr><td><span class="swatch reserve"></span>Output reserve</td><td>${n(run.contextWindow - run.effectiveWindow)}</td><td></td></tr>`);
  return `<table class="legend"><tr><th>Component</th><th>Tokens</th><th>Share</th></tr>${rows.join('')}</table>`;
}

function timeline(run: RunReport): string {
  const width = Math.max(600, run.requests * 6);
  const height = 160;
  const barWidth = width / Math.max(1, run.requests);
  const scale = height / run.contextWindow;
  const bars = run.requestsDetail.map((r, i) => {
    let y = height;
    const rects = SEGMENTS.map((s) => {
      const h = ownerTokens(r.components, s.key) * scale;
      y -= h;
      return h > 0 ? `<rect x="${(i * barWidth).toFixed(2)}" y="${y.toFixed(2)}" width="${Math.max(1, barWidth - 1).toFixed(2)}" height="${h.toFixed(2)}" fill="${s.color}"/>` : '';
    }).join('');
    const mark = r.compaction ? `<rect x="${(i * barWidth).toFixed(2)}" y="0" width="${Math.max(1, barWidth - 1).toFixed(2)}" height="4" fill="#111"/>` : '';
    return `<g><title>Request ${i + 1}: ${n(r.totalTokens)} tokens${r.compaction ? ` — compaction: ${r.compaction.strategies.join(', ')}` : ''}</title>${rects}${mark}</g>`;
  });
  const limit = height - run.effectiveWindow * scale;
  return `<svg class="timeline" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="Tokens per request">${bars.join('')}<line x1="0" x2="${width}" y1="${limit}" y2="${limit}" stroke="#dc2626" stroke-dasharray="4 3"/></svg>`;
}

function requestRows(run: RunReport): string {
  return run.requestsDetail
    .map((r) => {
      const comp = r.compaction ? `${escapeHtml(r.compaction.strategies.join(', '))}: ${n(r.compaction.tokensBefore)} → ${n(r.compaction.tokensAfter)}` : '';
      const flags = [r.overWindow ? 'OVER WINDOW' : '', r.brokenPairs.length ? `broken pairs: ${escapeHtml(r.brokenPairs[0])}` : ''].filter(Boolean).join('; ');
      return `<tr${flags ? ' class="bad"' : ''}><td>${r.index + 1}</td><td>${n(r.totalTokens)}</td><td>${pct(r.prefixTokens, r.totalTokens)}</td>${SEGMENTS.map((s) => `<td>${n(ownerTokens(r.components, s.key))}</td>`).join('')}<td>${r.truncated}</td><td>${r.offloaded}</td><td>${r.archived}</td><td>${r.summarized}</td><td>${comp}</td><td>${flags}</td></tr>`;
    })
    .join('');
}

function compactionRow(when: string, c: CompactionReport): string {
  return `<tr><td>${when}</td><td>${escapeHtml(c.strategies.join(', '))}</td><td>${n(c.tokensBefore)}</td><td>${n(c.tokensAfter)}</td><td class="text">${summaryCell(c.summary)}</td></tr>`;
}

/** A self-contained HTML report of one replayed run: no server, no external files, no script. */
export function renderHtmlReport(run: RunReport): string {
  const peak = run.requestsDetail.reduce<RequestReport | undefined>((best, r) => (!best || r.totalTokens > best.totalTokens ? r : best), undefined);
  const last = run.requestsDetail[run.requestsDetail.length - 1];
  const section = (title: string, r: RequestReport | undefined) =>
    r ? `<section><h2>${title} (request ${r.index + 1}: ${n(r.totalTokens)} tokens, ${pct(r.totalTokens, run.effectiveWindow)} of the effective window)</h2>${stackedBar(r, run)}${legend(r, run)}</section>` : '';
  const compactions = run.requestsDetail.filter((r) => r.compaction);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Tally report — ${escapeHtml(run.label)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2937;background:#fff}
h1{font-size:20px}h2{font-size:15px;margin-top:28px}
.bar{position:relative;display:flex;height:28px;border:1px solid #9ca3af;border-radius:4px;overflow:hidden}
.seg{height:100%}.free{background:repeating-linear-gradient(45deg,#f3f4f6,#f3f4f6 6px,#e5e7eb 6px,#e5e7eb 12px)}.reserve{background:#d1d5db}
.marker{position:absolute;top:0;bottom:0;width:2px;background:#dc2626}
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px}
table{border-collapse:collapse;margin-top:10px}td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #e5e7eb}td:first-child,th:first-child{text-align:left}
tr.bad{background:#fee2e2}.timeline{width:100%;height:180px;border:1px solid #e5e7eb}
.summary td{text-align:left}td.text{text-align:left}.summary-text{white-space:pre-wrap;max-width:100ch;font:12px/1.4 ui-monospace,monospace}
@media (prefers-color-scheme: dark){body{background:#111827;color:#e5e7eb}td,th{border-color:#374151}.free{background:#1f2937}.reserve{background:#4b5563}}
</style></head><body>
<h1>Tally context report — ${escapeHtml(run.label)}</h1>
<p>Replay of a recorded run through Tally's context manager (policy <b>${escapeHtml(run.policy)}</b>, window ${n(run.contextWindow)}, output reserve ${n(run.maxOutputTokens)}, offline local summarizer).</p>
<table class="summary">
<tr><td>Requests</td><td>${n(run.requests)}</td></tr>
<tr><td>Peak request</td><td>${n(run.peakRequestTokens)} tokens</td></tr>
<tr><td>Cumulative input</td><td>${n(run.cumulativeInputTokens)} tokens</td></tr>
<tr><td>Prefix reuse</td><td>${pct(run.prefixReuse, 1)} (token-weighted)</td></tr>
<tr><td>Effective cost</td><td>${n(run.effectiveCost)} token-equivalents (cached input 0.1×, cache write 1.25×)</td></tr>
<tr><td>With the re-read estimate</td><td>${n(run.effectiveCostWithReRead)} token-equivalents (${n(run.workingSet.reReadTokens)} tokens of removed working-set results read again)</td></tr>
<tr><td>Compactions</td><td>${n(run.compactions)}</td></tr>
<tr><td>Violations</td><td>${run.violations.overWindow} over the window, ${run.violations.brokenPairs} with broken pairs</td></tr>
</table>
${section('Peak request', peak)}
${peak !== last ? section('Last request', last) : ''}
<section><h2>Per-request timeline</h2>${timeline(run)}<p>Bars are stacked by component; a dark tick on top marks a request preceded by a compaction; the dashed line is the effective window.</p></section>
${retentionSection(run)}
${workingSetSection(run)}
<section><h2>Compactions (${compactions.length + (run.endCompaction ? 1 : 0)})</h2><table><tr><th>Before request</th><th>Strategies</th><th>Tokens before</th><th>Tokens after</th><th>Summary</th></tr>
${compactions.map((r) => compactionRow(String(r.index + 1), r.compaction!)).join('')}${run.endCompaction ? compactionRow('end of the run', run.endCompaction) : ''}</table></section>
<section><h2>Requests</h2><details><summary>Every request, component by component</summary>
<table><tr><th>#</th><th>Total</th><th>Prefix reuse</th>${SEGMENTS.map((s) => `<th>${s.label}</th>`).join('')}<th>Truncated</th><th>Offloaded</th><th>Archived</th><th>Summarized</th><th>Compaction</th><th>Violations</th></tr>
${requestRows(run)}</table></details></section>
</body></html>
`;
}
