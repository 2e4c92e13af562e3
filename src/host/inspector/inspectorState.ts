import type { InspectorState } from '../../protocol/inspector';
import type { ActiveSession } from '../session/sessionPorts';
import { budgetWindowFigures } from '../session/turnFigures';

/**
 * What the inspector shows for a session: the working context now from the session, the history
 * (requests by their figures, compactions, offloaded results) from its view, which holds them.
 * Reads nothing: a request's items are fetched when it is opened.
 */
export function buildInspectorState(session: ActiveSession | undefined): InspectorState {
  if (!session) return { turns: [], compactions: [], blobs: [], current: [] };
  const { view } = session;
  const usage = view.usageFigures;
  const plan = session.manager.planRequest();
  const budget = plan.budget;
  const calibration = session.manager.calibration.view();
  const turns = view.turns;
  const growth = turns.length > 1 ? (turns[turns.length - 1].estimatedInputTokens - turns[0].estimatedInputTokens) / (turns.length - 1) : undefined;
  return {
    session: { id: session.info.id, title: session.info.title, origin: session.info.origin },
    replayLabel: session.replayLabel,
    model: session.chat?.label ?? usage[usage.length - 1]?.model,
    figures: budgetWindowFigures(budget, usage[usage.length - 1]),
    calibration: calibration.samples > 0 ? calibration : undefined,
    turns: turns as InspectorState['turns'],
    compactions: [...view.compactions].sort((a, b) => b.startedAt - a.startedAt),
    blobs: view.blobs as InspectorState['blobs'],
    blobTitles: view.blobs.length ? Object.fromEntries(view.blobTitles) : undefined,
    current: plan.items,
    averageTurnTokens: growth !== undefined ? Math.max(0, Math.round(growth)) : undefined,
    turnsRemaining: growth && growth > 0 ? Math.floor(Math.max(0, budget.compactAtTokens - budget.used) / growth) : undefined,
  };
}
