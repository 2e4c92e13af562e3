/**
 * The chat meter while the session's working context is still being read: it shows no figure the
 * context's count would later change. Only the last request's figure, stored when it was sent,
 * may show (it is the figure the meter shows once counted). Read where it arrives in the webview.
 */
import type { LastRequestFigures } from '../core/accounting/windowFigures';

export interface MeterCounting {
  /** The request sent last, as the counted meter shows it. */
  lastRequest?: LastRequestFigures;
  text: {
    /** "counting…", or "last request 13,096 · counting…". */
    lastAndNow: string;
    /** The last request's figure in words, as the counted meter says it. */
    lastRequest?: string;
  };
}

export const COUNTING = 'counting…';

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= 500;

function lastRequestOf(value: unknown): LastRequestFigures | undefined | false {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  if (!Number.isSafeInteger(v.requestIndex) || !isCount(v.tokens) || !isCount(v.estimated) || (v.reported !== undefined && !isCount(v.reported))) return false;
  return { requestIndex: v.requestIndex as number, tokens: v.tokens, estimated: v.estimated, ...(v.reported !== undefined ? { reported: v.reported as number } : {}) };
}

/** The counting meter the host sent, or undefined when the value is not one (nothing of it is shown then). */
export function readMeterCounting(value: unknown): MeterCounting | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const last = lastRequestOf(v.lastRequest);
  const text = v.text as Record<string, unknown> | undefined;
  if (last === false || text === null || typeof text !== 'object' || !isText(text.lastAndNow) || (text.lastRequest !== undefined && !isText(text.lastRequest))) return undefined;
  return { ...(last ? { lastRequest: last } : {}), text: { lastAndNow: text.lastAndNow, ...(text.lastRequest !== undefined ? { lastRequest: text.lastRequest as string } : {}) } };
}
