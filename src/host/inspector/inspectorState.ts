import type { CompactionEventRecord } from '../../core/model/records';
import { compactionView, type CompactionView, type InspectorState } from '../../protocol/inspector';
import type { ActiveSession } from '../session/sessionPorts';
import { budgetWindowFigures } from '../session/turnFigures';
import { currentPlan } from './currentPlan';

/**
 * What the inspector shows for a session: the working context now from the session, the history
 * (requests by their figures, compactions, offloaded results) from its view, which holds them.
 * Reads nothing: a request's items are fetched when it is opened.
 */
export function buildInspectorState(session: ActiveSession | undefined): InspectorState {
  if (!session) return { turns: [], compactions: [], blobs: [], current: [] };
  const { view } = session;
  const usage = view.usageFigures;
  const plan = currentPlan(session.contextSession);
  const budget = plan.budget;
  const calibration = session.contextSession.calibration.view();
  const requests = view.requests;
  const growth = requests.length > 1 ? (requests[requests.length - 1].estimatedInputTokens - requests[0].estimatedInputTokens) / (requests.length - 1) : undefined;
  return {
    session: { id: session.info.id, title: session.info.title, origin: session.info.origin },
    replayLabel: session.replayLabel,
    model: session.chat?.label ?? usage[usage.length - 1]?.model,
    figures: budgetWindowFigures(budget, usage[usage.length - 1]),
    calibration: calibration.samples > 0 ? calibration : undefined,
    turns: requests as InspectorState['turns'],
    compactions: [...view.compactions].sort((a, b) => b.startedAt - a.startedAt).map(viewOf),
    blobs: view.blobs as InspectorState['blobs'],
    blobTitles: view.blobs.length ? Object.fromEntries(view.blobTitles) : undefined,
    current: plan.items,
    averageTurnTokens: growth !== undefined ? Math.max(0, Math.round(growth)) : undefined,
    turnsRemaining: growth && growth > 0 ? Math.floor(Math.max(0, budget.compactAtTokens - budget.used) / growth) : undefined,
  };
}

/** A record is replaced, never changed, once written: its view is made once. */
const views = new WeakMap<CompactionEventRecord, CompactionView>();
function viewOf(record: CompactionEventRecord): CompactionView {
  let made = views.get(record);
  if (!made) views.set(record, (made = compactionView(record)));
  return made;
}
