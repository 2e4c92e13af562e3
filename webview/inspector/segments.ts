import { TOKEN_OWNERS, type ComponentTokens } from '../../src/protocol/records';
import type { WindowFigures } from '../../src/protocol/inspector';

export type UsedSegment = keyof ComponentTokens;
export type SegmentName = UsedSegment | 'free' | 'reserve';

/** The owners of used tokens, in bar order; conversation is split in three. */
export const USED_SEGMENTS: ReadonlyArray<{ name: UsedSegment; label: string; group: string }> = TOKEN_OWNERS.map(({ key, label, group }) => ({ name: key, label, group }));

export const SEGMENT_LABELS: Record<SegmentName, string> = {
  ...(Object.fromEntries(TOKEN_OWNERS.map(({ key, label }) => [key, label])) as Record<UsedSegment, string>),
  free: 'Free space',
  reserve: 'Output reserve',
};

export interface Segment {
  name: SegmentName;
  label: string;
  tokens: number;
  /** Share of the bar's scale (the context window, or more when the context overflows). */
  share: number;
  used: boolean;
}

/**
 * Splits the context window: the used components, free space up to the effective window,
 * and the output reserve. When used exceeds the effective window, free space is 0 and the
 * scale grows so the widths still add up to 100%.
 */
export function segmentsFor(budget: Pick<WindowFigures, 'contextWindow' | 'effectiveWindow' | 'components'>): { segments: Segment[]; scale: number } {
  const reserve = Math.max(0, budget.contextWindow - budget.effectiveWindow);
  const used = USED_SEGMENTS.reduce((sum, s) => sum + Math.max(0, budget.components[s.name] ?? 0), 0);
  const free = Math.max(0, budget.contextWindow - reserve - used);
  const scale = Math.max(budget.contextWindow, used + reserve, 1);
  const segments: Segment[] = USED_SEGMENTS.map((s) => ({ name: s.name, label: s.label, tokens: Math.max(0, budget.components[s.name] ?? 0), share: 0, used: true }));
  segments.push({ name: 'free', label: SEGMENT_LABELS.free, tokens: free, share: 0, used: false });
  segments.push({ name: 'reserve', label: SEGMENT_LABELS.reserve, tokens: reserve, share: 0, used: false });
  for (const s of segments) s.share = s.tokens / scale;
  return { segments, scale };
}
