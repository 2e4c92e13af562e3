/**
 * What a compaction command says when it is done, in the same figures the status bar, the chat
 * meter and the inspector show (the window figures before and after), not the compactor's own
 * local estimate. No `vscode` import.
 */
import { compactionEstimate, formatTokens, type WindowFigures } from '../../core/accounting/windowFigures';
import { nounFor, strategiesInWords } from '../../protocol/wording';
import type { SessionStore } from '../../core/ports/sessionStore';
import type { CompactionEventRecord } from '../../core/model/records';
import type { ActiveSession } from '../sessionState/sessionPorts';
import { sessionWindowFigures } from './turnFigures';

/** The window figures of a session now, as every surface shows them. */
export async function currentFigures(sessions: { store(): Promise<SessionStore> }, session: ActiveSession): Promise<WindowFigures> {
  const usage = await (await sessions.store()).listRequestUsage(session.info.id, { items: false });
  return sessionWindowFigures(session, usage[usage.length - 1]);
}

export function compactionMessage(result: Pick<CompactionEventRecord, 'status' | 'strategies' | 'error'>, before: WindowFigures, after: WindowFigures): string {
  if (result.status === 'error') return `Compaction failed: ${result.error ?? 'unknown error'}. Nothing was changed; the context holds ${before.text.used}.`;
  if (result.status === 'skipped') return `Nothing to compact: the context holds ${after.text.used}.`;
  const estimate = compactionEstimate({ tokensBefore: before.used, tokensAfter: after.used, estimatedTokensBefore: before.estimated, estimatedTokensAfter: after.estimated });
  const how = [strategiesInWords(result.strategies), estimate].filter(Boolean).join('; ');
  return `Compacted context: ${formatTokens(before.used)} → ${formatTokens(after.used)} ${nounFor(after.used, 'token')} (${how}). The context holds ${after.text.used}.`;
}
