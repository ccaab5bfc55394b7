/**
 * The fleet history page's words and layout, pure: its URL, the sub-rows an agent's overlapping
 * holds are stacked in, the time axis's ticks, and each hold in words with both clocks (arrival
 * here, which places the bar; the writer's own, shown beside it).
 */
import type { HoldRow } from '../ledger/holds';
import { HOLD_ENDING_LABEL } from './labels';
import { formatDuration, utcClock, writerFull } from './time';
import { LONGEST_RANGE, MIN_WINDOW_MS, RANGE_NAMES, type HistoryWindow, type RangeName } from '../query/window';

/** What the page's URL says: a range name, or from and to (ms, this machine's clock), or neither (the window is fitted); and a query. */
export interface HistoryParams {
  readonly range?: RangeName;
  readonly from?: number;
  readonly to?: number;
  readonly q?: string;
  /** In a hub, the channel whose history it is (a fleet history is of one channel). */
  readonly channel?: string;
}

/** The page's URL parameters read back; unknown or malformed values dropped. */
export function parseHistoryParams(p: { get(name: string): string | null }): HistoryParams {
  const range = p.get('range');
  const num = (k: string) => {
    const v = p.get(k);
    const n = v !== null && /^\d{1,15}$/.test(v) ? Number(v) : Number.NaN;
    return Number.isFinite(n) ? n : undefined;
  };
  const from = num('from');
  const to = num('to');
  const q = p.get('q')?.trim();
  const channel = p.get('channel')?.trim();
  return {
    ...(channel ? { channel } : {}),
    ...(from !== undefined && to !== undefined && from < to ? { from, to } : range && (RANGE_NAMES as string[]).includes(range) ? { range: range as RangeName } : {}),
    ...(q ? { q } : {}),
  };
}

/** The parameters as a query string in a stable order (the page's URL, GET /api/history's, and the query key). */
export function historySearch(p: HistoryParams): string {
  const s = new URLSearchParams();
  if (p.from !== undefined && p.to !== undefined) {
    s.set('from', String(Math.round(p.from)));
    s.set('to', String(Math.round(p.to)));
  } else if (p.range) s.set('range', p.range);
  if (p.q) s.set('q', p.q);
  if (p.channel) s.set('channel', p.channel);
  return s.toString();
}

/** The picker's name of each range. */
export const RANGE_LABEL: Record<RangeName, string> = { '1h': 'Last hour', '24h': 'Last 24 h', '7d': '7 days', '30d': '30 days' };

/** A range in a sentence: "the last hour", "the last 7 days". */
const rangeWords = (r: RangeName) => `the last ${{ '1h': 'hour', '24h': '24 hours', '7d': '7 days', '30d': '30 days' }[r]}`;

/**
 * Why the window shown was chosen when nobody asked for one (lib/query/window.ts fitRange): the
 * shortest range in which every hold of the last 30 days begins, its claim's arrival here; the
 * longest when there was none, or when one began before it. Null when the window was asked for.
 */
export function fitWords(a: { readonly range: RangeName | null; readonly fitted: boolean; readonly total: number; readonly from_ms: number; readonly holds: readonly Pick<HoldRow, 'claimed_ms'>[] }): string | null {
  if (!a.fitted || a.range === null) return null;
  const longest = rangeWords(LONGEST_RANGE);
  if (a.total === 0) return `Fitted to the holds: none in ${longest}, so the longest window is shown.`;
  if (a.range === LONGEST_RANGE && a.holds.some((h) => h.claimed_ms < a.from_ms)) return `Fitted to the holds: one began before ${longest}, so the longest window is shown and its bar runs in from the left edge.`;
  return `Fitted to the holds: ${rangeWords(a.range)} is the shortest window in which every hold of ${longest} begins (its claim's arrival here).`;
}

/**
 * A closer window when the holds drawn sit squeezed at the end of this one: from a tenth of their
 * span before the earliest claim's arrival (a minute at least) to `nowMs`, offered when that
 * span is under a quarter of the window (a channel written minutes ago in a window of an hour);
 * null otherwise. Arrivals and now on this machine's clock, as the bars are placed.
 */
export function closerWindow(holds: readonly Pick<HoldRow, 'claimed_ms'>[], w: HistoryWindow, nowMs: number): HistoryWindow | null {
  if (holds.length === 0 || nowMs > w.to_ms || nowMs <= w.from_ms) return null;
  const earliest = Math.max(w.from_ms, Math.min(...holds.map((h) => h.claimed_ms)));
  const span = nowMs - earliest;
  if (span >= (w.to_ms - w.from_ms) / 4) return null;
  const from = Math.floor(Math.min(earliest - span / 10, nowMs - MIN_WINDOW_MS));
  return { from_ms: from, to_ms: Math.ceil(nowMs) };
}

/**
 * Stacks one agent's holds in sub-rows so that no two bars overlap: each hold, by claim arrival,
 * goes in the first sub-row whose last bar ended before it began (`nowMs` ends one still held).
 * A bar is drawn at least a few pixels wide: `minMs` is that width in time, so a hold of an
 * instant keeps its own place. Returns the sub-row of each hold, in the order given, and how many
 * sub-rows there are.
 */
export function packRows(holds: readonly Pick<HoldRow, 'claimed_ms' | 'ended_ms'>[], nowMs: number, minMs = 0): { row: number[]; rows: number } {
  const order = holds.map((_, i) => i).sort((a, b) => (holds[a]?.claimed_ms ?? 0) - (holds[b]?.claimed_ms ?? 0) || a - b);
  const ends: number[] = [];
  const row = new Array<number>(holds.length).fill(0);
  for (const i of order) {
    const h = holds[i] as Pick<HoldRow, 'claimed_ms' | 'ended_ms'>;
    let r = ends.findIndex((e) => e < h.claimed_ms);
    if (r === -1) r = ends.length;
    ends[r] = Math.max(h.ended_ms ?? nowMs, h.claimed_ms + minMs);
    row[i] = r;
  }
  return { row, rows: Math.max(1, ends.length) };
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Tick steps the axis chooses from, ms. */
const STEPS = [MIN, 5 * MIN, 15 * MIN, 30 * MIN, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Ticks of the time axis: round UTC instants within the window, at most `most` of them, each with its label ("09:00", or the date at a day's start or for steps of a day or more). */
export function timeTicks(w: HistoryWindow, most: number): { ms: number; label: string }[] {
  const span = w.to_ms - w.from_ms;
  const step = STEPS.find((s) => span / s <= Math.max(1, most)) ?? 30 * DAY;
  const out: { ms: number; label: string }[] = [];
  // Steps of several days count from the window's first midnight, not from the epoch's.
  const unit = step > DAY ? DAY : step;
  for (let t = Math.ceil(w.from_ms / unit) * unit; t <= w.to_ms && out.length < 1000; t += step) {
    const d = new Date(t);
    const date = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
    out.push({ ms: t, label: step >= DAY || t % DAY === 0 ? date : utcClock(t).slice(0, 5) });
  }
  return out;
}

/** A local instant as the page names it: "2026-11-20 09:05:00 UTC". */
const here = (ms: number) => `${utcClock(ms, { date: true })} UTC`;

/** Who ended a hold and why, beside its ending's label: "by ops: requeued: stale", "revision 2", "wisp holds it"; '' while held. */
export function endingDetail(h: Pick<HoldRow, 'ending' | 'ended_by' | 'reason'>): string {
  switch (h.ending) {
    case 'held':
      return '';
    case 'requeued':
    case 'retired':
      return `by ${h.ended_by ?? 'another'}: ${h.reason}`;
    case 'superseded':
      return `by ${h.ended_by ?? 'an operator'}: ${h.reason}`;
    case 'finished':
    case 'released_self':
    case 'gave_up':
    case 'lost':
      return h.reason;
  }
}

/** Who ended a hold and how, in words: "released by ops: requeued: stale", "finished: revision 2", "still held". */
export function endingWords(h: Pick<HoldRow, 'ending' | 'ended_by' | 'reason' | 'agent'>): string {
  const d = endingDetail(h);
  switch (h.ending) {
    case 'held':
      return 'still held';
    case 'finished':
      return `finished: ${d}`;
    case 'released_self':
      return `released it: ${d}`;
    case 'requeued':
    case 'retired':
      return `released ${d}`;
    case 'gave_up':
      return `gave up: ${d}`;
    case 'superseded':
      return `superseded ${d}`;
    case 'lost':
      return `${HOLD_ENDING_LABEL.lost}: ${d}`;
  }
}

/**
 * A hold in words, both clocks beside each other: when its claim and its ending arrived here (the
 * bar's place) and each writer's own time; how long it was held and silent. `nowMs`: this machine's clock.
 */
export function holdWords(h: HoldRow, nowMs: number): string {
  const end = h.ended_ms ?? nowMs;
  const parts = [
    `${h.agent} on ${h.order_id}: ${endingWords(h)}`,
    `claimed: arrived here ${here(h.claimed_ms)}; ${h.agent}'s clock ${writerFull(h.claimed_at)}`,
    h.ended_ms === null ? `held ${formatDuration(end - h.claimed_ms)} so far` : `ended: arrived here ${here(h.ended_ms)}${h.ended_at ? `; ${h.ended_by ?? 'its writer'}'s clock ${writerFull(h.ended_at)}` : ''}; held ${formatDuration(end - h.claimed_ms)}`,
  ];
  if (h.silences.length > 0) parts.push(`silent ${formatDuration(h.silent_ms)} in ${h.silences.length === 1 ? 'one stretch' : `${h.silences.length} stretches`} (nothing of its run arrived here)`);
  if (h.delivered && h.ending !== 'finished') parts.push('it delivered a result');
  return parts.join('. ') + '.';
}
