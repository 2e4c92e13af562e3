import type { BlobInfo, SessionStore, ToolCallIndex, TurnUsageRecord } from '../core/ports/sessionStore';
import { firstRequestAfter, requestsByTime, toolCallLabel, withRequest } from './documentTitles';
import type { BudgetView, InspectorState, TurnView } from '../protocol/inspector';
import type { ActiveSession } from './sessionController';
import { budgetWindowFigures } from './turnFigures';

/**
 * Names each offloaded result by its tool, what the call acted on, and the first request that
 * carried it. `complete` says whether every result has its request yet.
 */
function titlesOf(blobs: readonly BlobInfo[], usage: readonly TurnUsageRecord[], index: ToolCallIndex): { titles: Record<string, string>; complete: boolean } {
  const byTime = requestsByTime(usage);
  const titles: Record<string, string> = {};
  let complete = true;
  for (const b of blobs) {
    const call = b.toolCallId ? index.calls.get(b.toolCallId) : undefined;
    const request = b.toolCallId ? firstRequestAfter(byTime, index.resultTimes.get(b.toolCallId)) : undefined;
    if (request === undefined) complete = false;
    titles[b.id] = withRequest(toolCallLabel(b.toolName, call?.arguments), request);
  }
  return { titles, complete };
}

/** The last titles made per session, and what they were made from. */
const titleMemo = new Map<string, { blobs: number; usage: number; complete: boolean; titles: Record<string, string> }>();

/**
 * A result's title changes only when it is added and when the first request after it is made, so
 * titles are made again only when a result was added, or a request was while one still waits for
 * its request: not on every refresh, which would read every segment each time.
 */
async function titlesFor(sessionId: string, blobs: readonly BlobInfo[], usage: readonly TurnUsageRecord[], store: SessionStore): Promise<Record<string, string>> {
  const known = titleMemo.get(sessionId);
  if (known && known.blobs === blobs.length && (known.complete || known.usage === usage.length)) return known.titles;
  const { titles, complete } = titlesOf(blobs, usage, await store.loadToolCallIndex(sessionId));
  titleMemo.delete(sessionId);
  titleMemo.set(sessionId, { blobs: blobs.length, usage: usage.length, complete, titles });
  if (titleMemo.size > 8) titleMemo.delete(titleMemo.keys().next().value!);
  return titles;
}

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
  const blobTitles = blobs.length ? await titlesFor(id, blobs, usage, store) : undefined;
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
