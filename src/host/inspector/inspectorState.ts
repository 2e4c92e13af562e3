import type { RequestItem } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { CompactionView, InspectorState, RequestView } from '../../protocol/inspector';
import type { InspectorSubagents, InspectorSubagentSubject } from '../../protocol/inspectorSubagents';
import type { ShownSession } from '../sessionState/sessionPorts';
import { budgetWindowFigures } from '../figures/turnFigures';
import { turnForecast } from '../figures/turnForecast';
import { userMessageTimes } from '../figures/userMessageTimes';

/** The lists the inspector pages and patches, and the small parts it sends whole. */
export type InspectorSmallParts = Omit<InspectorState, 'requests' | 'current' | 'blobs' | 'blobTitles' | 'compactions' | 'historySent' | 'earlierRequests' | 'earlierResults' | 'currentOmitted'>;

/** What the inspector shows of a session, each part as its state holds it (nothing copied). */
export interface InspectorParts {
  small: InspectorSmallParts;
  requests: readonly RequestView[];
  blobs: readonly BlobInfo[];
  titles: ReadonlyMap<string, string>;
  /** Newest first. */
  compactions: readonly CompactionView[];
  /** The next request's items (planned only when asked for, and again only when the working context moved). */
  current(): readonly RequestItem[];
}

/** What the inspector adds to a session's own parts: its subagents, and who it is when it is a subagent's window. */
export interface InspectorExtras {
  subagents?: InspectorSubagents;
  subagentOf?: InspectorSubagentSubject;
}

/**
 * What the inspector shows for a session: the working context now (figures, the next request's
 * items) from the state's working context, the history (requests by their figures, compactions,
 * offloaded results) from the state's records. Reads nothing: a request's items are fetched when
 * it is opened.
 */
export function inspectorParts(session: Pick<ShownSession, 'info' | 'state' | 'chat' | 'replayLabel'>, extras: InspectorExtras = {}): InspectorParts {
  const { state } = session;
  const records = state.records;
  const usage = records.usageFigures;
  const requests = records.requests;
  const plan = state.nextRequestPlan();
  const budget = plan?.budget;
  const calibration = state.working?.calibration.view();
  // A subagent's session has ended: no forecast of its next turns.
  const turns = !extras.subagentOf && budget ? turnForecast({ userMessageTimes: userMessageTimes(state.working?.messages ?? []), requests, usedNow: budget.used, compactAt: budget.compactAtTokens }) : undefined;
  const forecast = turns ? { averageRequestGrowth: turns.perTurn, forecastTurns: turns.turns, ...(turns.turnsLeft !== undefined ? { requestsUntilCompaction: turns.turnsLeft } : {}) } : {};
  return {
    small: {
      session: { id: session.info.id, title: session.info.title, origin: session.info.origin },
      replayLabel: session.replayLabel,
      model: session.chat?.label ?? usage[usage.length - 1]?.model,
      figures: budget && budgetWindowFigures(budget, usage[usage.length - 1]),
      calibration: calibration && calibration.samples > 0 ? calibration : undefined,
      ...forecast,
      ...(extras.subagents ? { subagents: extras.subagents } : {}),
      ...(extras.subagentOf ? { subagentOf: extras.subagentOf } : {}),
    },
    requests,
    blobs: records.blobs,
    titles: records.blobTitles,
    compactions: records.compactionViews,
    current: () => state.nextRequestPlan()?.items ?? [],
  };
}

/** The inspector's whole state for a session, every request and result included (tests, and the one-figure checks, read it). */
export function buildInspectorState(session: Parameters<typeof inspectorParts>[0] | undefined, extras?: InspectorExtras): InspectorState {
  if (!session) return { requests: [], compactions: [], blobs: [], current: [] };
  const parts = inspectorParts(session, extras);
  return {
    ...parts.small,
    requests: [...parts.requests],
    compactions: [...parts.compactions],
    blobs: [...parts.blobs],
    blobTitles: parts.blobs.length ? Object.fromEntries(parts.titles) : undefined,
    current: [...parts.current()],
  };
}
