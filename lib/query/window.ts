/**
 * The fleet history's time window: the last 1 h, 24 h, 7 d or 30 d before now, or from and to as
 * the URL, GET /api/holds and `claimboard holds` give them; with none of them, the range fitted to
 * the holds (fitRange). Every instant is on this machine's clock
 * (the arrivals the holds are placed by, and `now_ms`), as ms since the epoch; a browser's clock
 * never picks the window. Pure.
 */
import type { HistoryWindow } from '../ledger/hold-numbers';

/** The windows the picker offers, by name, and their length, shortest first. */
export const RANGES = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RangeName = keyof typeof RANGES;
export const RANGE_NAMES = Object.keys(RANGES) as RangeName[];
/** The length of a window given by `from` or `to` alone. */
export const DEFAULT_RANGE: RangeName = '24h';
/** The longest range: the holds fitRange looks at are those of this range before now. */
export const LONGEST_RANGE: RangeName = '30d';

/** The longest window asked for (a year and a day): far beyond any review, short of a number that overflows a date. */
export const MAX_WINDOW_MS = 366 * 86_400_000;
/** The shortest window zooming in reaches: one minute. */
export const MIN_WINDOW_MS = 60_000;

export type { HistoryWindow };

/** What asks for a window: a range name, or from and to (either may be missing: the range's length ends at now). */
export interface WindowAsk {
  readonly range?: string | null;
  readonly from?: string | null;
  readonly to?: string | null;
}

/**
 * An instant as the API and the CLI take it: ms since the epoch (digits), or an RFC 3339 date
 * and time (`2026-11-20T09:00:00Z`, an offset, or a date alone at 00:00 UTC). NaN when neither.
 */
export function parseInstant(text: string): number {
  const t = text.trim();
  if (/^\d{1,15}(?:\.\d+)?$/.test(t)) return Number(t);
  if (!/^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/.test(t)) return Number.NaN;
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T00:00:00Z` : t.replace(' ', 'T'));
}

/** Whether `ask` names a window (a range, from or to); with none, the window is fitted (fitRange). */
export function windowAsked(ask: WindowAsk): boolean {
  return [ask.range, ask.from, ask.to].some((v) => v !== undefined && v !== null && v.trim() !== '');
}

/**
 * The window nobody asked for: the shortest range (1 h, 24 h, 7 d, 30 d) before now that holds the
 * holds, that is, in which every hold of the longest range (30 d before now) starts: `earliestMs`
 * is the earliest claim arrival among those holds (a hold of the longest range: claimed before now
 * and not ended before its start; one still held counts), and a range holds them when it starts at
 * or before it. None there (null): the longest, which says there was none in 30 days; a hold
 * claimed before the longest range began: the longest too, its bar running in from the left edge.
 * Every instant is this machine's arrival clock, as the holds are placed; no writer's clock counts.
 */
export function fitRange(earliestMs: number | null, nowMs: number): RangeName {
  if (earliestMs === null) return LONGEST_RANGE;
  return RANGE_NAMES.find((r) => earliestMs >= nowMs - RANGES[r]) ?? LONGEST_RANGE;
}

/**
 * The window asked for at `nowMs`: `range` alone, the range before now (named in the answer); `from` and `to`, exactly
 * them; one of them with a range (default 24 h), that long from `from` or before `to`. A reason in
 * words when it is not one: an instant that does not read, from not before to, longer than a year.
 */
export function resolveWindow(ask: WindowAsk, nowMs: number): { ok: true; window: HistoryWindow; range?: RangeName } | { ok: false; reason: string } {
  const range = ask.range ? ask.range.trim().toLowerCase() : '';
  if (range && !(range in RANGES)) return { ok: false, reason: `range: "${ask.range}" is not one of ${RANGE_NAMES.join(', ')}` };
  const len = RANGES[(range || DEFAULT_RANGE) as RangeName];
  const read = (k: 'from' | 'to') => {
    const v = ask[k];
    if (v === undefined || v === null || v.trim() === '') return undefined;
    return parseInstant(v);
  };
  const from = read('from');
  const to = read('to');
  if (from !== undefined && !Number.isFinite(from)) return { ok: false, reason: `from: "${ask.from}" is neither ms since the epoch nor an RFC 3339 time` };
  if (to !== undefined && !Number.isFinite(to)) return { ok: false, reason: `to: "${ask.to}" is neither ms since the epoch nor an RFC 3339 time` };
  const w = from !== undefined && to !== undefined ? { from_ms: from, to_ms: to } : from !== undefined ? { from_ms: from, to_ms: from + len } : { from_ms: (to ?? nowMs) - len, to_ms: to ?? nowMs };
  if (!(w.from_ms < w.to_ms)) return { ok: false, reason: 'from must be before to' };
  if (w.to_ms - w.from_ms > MAX_WINDOW_MS) return { ok: false, reason: 'the window is longer than 366 days: ask for less' };
  return { ok: true, window: w, ...(from === undefined && to === undefined ? { range: (range || DEFAULT_RANGE) as RangeName } : {}) };
}

/** The window `factor` times as long around the same middle (zoom out above 1, in below), kept within MIN_WINDOW_MS and MAX_WINDOW_MS. */
export function zoomWindow(w: HistoryWindow, factor: number): HistoryWindow {
  const mid = (w.from_ms + w.to_ms) / 2;
  const len = Math.min(MAX_WINDOW_MS, Math.max(MIN_WINDOW_MS, (w.to_ms - w.from_ms) * factor));
  return { from_ms: Math.round(mid - len / 2), to_ms: Math.round(mid + len / 2) };
}

/** The window moved by `fraction` of its length (later when positive). */
export function panWindow(w: HistoryWindow, fraction: number): HistoryWindow {
  const d = Math.round((w.to_ms - w.from_ms) * fraction);
  return { from_ms: w.from_ms + d, to_ms: w.to_ms + d };
}
