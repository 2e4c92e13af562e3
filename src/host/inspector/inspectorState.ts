import type { SessionStore } from '../../core/ports/sessionStore';
import type { TurnUsageRecord } from '../../core/model/records';
import type { BudgetView, InspectorState, TurnView } from '../../protocol/inspector';
import { resultTitles } from './resultTitles';
import type { ActiveSession } from '../session/sessionPorts';
import { budgetWindowFigures } from '../session/turnFigures';

const turnViews = new WeakMap<TurnUsageRecord, TurnView>();

/** A request's figures as the inspector lists them: the same object while its record is, so an unchanged request is not sent again. */
function turnView(u: TurnUsageRecord): TurnView {
  let view = turnViews.get(u);
  if (!view) {
    view = {
      requestIndex: u.requestIndex,
      createdAt: u.createdAt,
      components: u.components,
      estimatedInputTokens: u.estimatedInputTokens,
      reportedInputTokens: u.reportedInputTokens,
      reportedOutputTokens: u.reportedOutputTokens,
      cacheReadTokens: u.cacheReadTokens,
      cacheWriteTokens: u.cacheWriteTokens,
      reasoningTokens: u.reasoningTokens,
      compactionId: u.compactionId,
      itemCount: u.itemCount,
    };
    turnViews.set(u, view);
  }
  return view;
}

/**
 * Builds what the inspector shows for a session, from the manager (now) and the store (history).
 * Requests are listed by their figures only; a request's items are fetched when it is opened.
 */
export async function buildInspectorState(session: ActiveSession | undefined, store: SessionStore): Promise<InspectorState> {
  if (!session) return { turns: [], compactions: [], blobs: [], current: [] };
  const id = session.info.id;
  const [usage, compactions, blobs] = await Promise.all([store.listTurnUsage(id, { items: false }), store.listCompactionEvents(id), store.listBlobs(id)]);
  const plan = session.manager.planRequest(session.fixed);
  const budget = plan.budget;
  const calibration = session.manager.calibration.view();
  const budgetView: BudgetView = {
    contextWindow: budget.contextWindow,
    maxOutputTokens: budget.maxOutputTokens,
    effectiveWindow: budget.effectiveWindow,
    components: { ...budget.components },
    used: budget.used,
    percent: budget.percent,
    compactAtTokens: budget.compactAtTokens,
    blockAtTokens: budget.blockAtTokens,
    warning: budget.windowIsFallback ? budget.warning : undefined,
    calibration: calibration.samples > 0 ? calibration : undefined,
  };
  const turns: TurnView[] = usage.map(turnView);
  const blobTitles = blobs.length ? await resultTitles(id, blobs, usage, store) : undefined;
  const growth = turns.length > 1 ? (turns[turns.length - 1].estimatedInputTokens - turns[0].estimatedInputTokens) / (turns.length - 1) : undefined;
  return {
    session: { id, title: session.info.title, origin: session.info.origin },
    replayLabel: session.replayLabel,
    model: session.chat?.label ?? usage[usage.length - 1]?.model,
    budget: budgetView,
    figures: budgetWindowFigures(budget, usage[usage.length - 1]),
    turns,
    compactions: [...compactions].sort((a, b) => b.startedAt - a.startedAt),
    blobs,
    blobTitles,
    current: plan.items,
    averageTurnTokens: growth !== undefined ? Math.max(0, Math.round(growth)) : undefined,
    turnsRemaining: growth && growth > 0 ? Math.floor(Math.max(0, budget.compactAtTokens - budget.used) / growth) : undefined,
  };
}
