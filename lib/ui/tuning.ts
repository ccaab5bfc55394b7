/**
 * Words and axis arithmetic for the stale-threshold plots (components/tuning).
 * Pure: durations in, numbers and words out; no clock is read here.
 *
 * Every duration is in ms. The histograms' x axis is logarithmic: heartbeat gaps and run
 * durations span seconds to days, and what decides a threshold is the tail, which a linear
 * axis squeezes into its last pixel.
 */
import type { HistogramBucket } from '../ledger/tuning-types';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/**
 * A histogram drawn from fewer samples than this says nothing about a tail: the page says
 * "Not enough data yet" in words instead (the samples are still listed).
 */
export const MIN_CHART_SAMPLES = 5;

/**
 * A duration in words, finer than lib/ui/time's `formatDuration` (a percentile of 1.5 s must
 * not read "1 s"): "850 ms", "4.2 s", "42 s", "4 min 30 s", "2 h 5 min", "3 days 4 h".
 * Negative or non-finite input reads as its magnitude / "?".
 */
export function durationWords(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const d = Math.abs(ms);
  if (d < SEC) return `${Math.round(d)} ms`;
  if (d < 10 * SEC) {
    const s = Math.round(d / 100) / 10;
    return s >= 10 ? '10 s' : `${s} s`;
  }
  if (d < MIN) {
    const s = Math.round(d / SEC);
    return s >= 60 ? '1 min' : `${s} s`;
  }
  if (d < HOUR) {
    const total = Math.round(d / SEC);
    const m = Math.floor(total / 60);
    const s = total % 60;
    if (m >= 60) return '1 h';
    // Past 10 minutes the seconds are noise.
    return s === 0 || m >= 10 ? `${m} min` : `${m} min ${s} s`;
  }
  if (d < 2 * DAY) {
    const total = Math.round(d / MIN);
    const h = Math.floor(total / 60);
    const m = total % 60;
    return m === 0 || h >= 10 ? `${h} h` : `${h} h ${m} min`;
  }
  const totalH = Math.round(d / HOUR);
  const days = Math.floor(totalH / 24);
  const h = totalH % 24;
  return h === 0 || days >= 10 ? `${days} days` : `${days} days ${h} h`;
}

/** Round durations an axis may mark, ascending; `major` ones are kept first when space is short. */
const LADDER: readonly { readonly ms: number; readonly words: string; readonly major: boolean }[] = [
  { ms: 10, words: '10 ms', major: true },
  { ms: 100, words: '100 ms', major: true },
  { ms: SEC, words: '1 s', major: true },
  { ms: 5 * SEC, words: '5 s', major: false },
  { ms: 30 * SEC, words: '30 s', major: false },
  { ms: MIN, words: '1 min', major: true },
  { ms: 5 * MIN, words: '5 min', major: false },
  { ms: 30 * MIN, words: '30 min', major: false },
  { ms: HOUR, words: '1 h', major: true },
  { ms: 6 * HOUR, words: '6 h', major: false },
  { ms: DAY, words: '1 day', major: true },
  { ms: 7 * DAY, words: '7 days', major: true },
  { ms: 30 * DAY, words: '30 days', major: true },
  { ms: 365 * DAY, words: '1 year', major: true },
];

/** An axis tick in words: the ladder's own words ("30 s", "5 min", "1 h"), else `durationWords`. */
export function tickWords(ms: number): string {
  return LADDER.find((t) => t.ms === ms)?.words ?? durationWords(ms);
}

/**
 * The ticks (ms) of a log duration axis over `[lo, hi]`: the round durations of the ladder that
 * fall inside, at most `maxTicks` of them (the minor ones, 5 s, 30 s, 5 min, …, dropped first,
 * then every other major one). Always at least one tick when the ladder has one inside.
 */
export function logTicks(lo: number, hi: number, maxTicks: number): number[] {
  const inside = LADDER.filter((t) => t.ms >= lo && t.ms <= hi);
  if (inside.length <= maxTicks) return inside.map((t) => t.ms);
  let major = inside.filter((t) => t.major).map((t) => t.ms);
  while (major.length > Math.max(1, maxTicks)) major = major.filter((_, i) => i % 2 === 0);
  return major;
}

/**
 * The x domain (ms) of a duration histogram: at least 1 s … 1 h, widened to hold every bucket
 * and every marked line (a line gets a quarter more room to the right, for its label), its ends
 * snapped outwards to the ladder's round durations so the axis starts and ends on a tick. A
 * bucket whose lower edge is 0 counts from half its upper edge (a log axis has no 0).
 */
export function durationDomain(buckets: readonly HistogramBucket[], marksMs: readonly number[]): [number, number] {
  let lo = SEC;
  let hi = HOUR;
  for (const b of buckets) {
    if (b.n <= 0) continue;
    const from = b.lo_ms > 0 ? b.lo_ms : b.hi_ms / 2;
    if (from > 0) lo = Math.min(lo, from);
    hi = Math.max(hi, b.hi_ms);
  }
  for (const m of marksMs) {
    if (!(m > 0) || !Number.isFinite(m)) continue;
    lo = Math.min(lo, m / 1.25);
    hi = Math.max(hi, m * 1.25);
  }
  const down = [...LADDER].reverse().find((t) => t.ms <= lo)?.ms ?? lo;
  const up = LADDER.find((t) => t.ms >= hi)?.ms ?? hi;
  return [down, up];
}

/** A share (0..1) in words: "0 %", "under 0.1 %", "4.2 %", "37 %", "100 %". */
export function percentWords(share: number): string {
  const p = share * 100;
  if (!(p > 0)) return '0 %';
  if (p < 0.1) return 'under 0.1 %';
  if (p < 10) return `${(Math.round(p * 10) / 10).toString()} %`;
  return `${Math.round(p)} %`;
}

/** "1 gap" / "12 gaps": a count with its noun, singular for exactly one. */
export function countWords(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/**
 * The sentence under the gaps chart: "3 gaps (4.2 %) were longer than the threshold (5 min)."
 * `share` null (no gaps) reads "No gap was observed yet".
 */
export function beyondSentence(beyond: number, share: number | null, thresholdMs: number): string {
  if (share === null) return 'No heartbeat gap has been observed yet.';
  const t = durationWords(thresholdMs);
  if (beyond === 0) return `No gap was longer than the threshold (${t}).`;
  return `${countWords(beyond, 'gap', 'gaps')} (${percentWords(share)}) ${beyond === 1 ? 'was' : 'were'} longer than the threshold (${t}).`;
}

/** Where a vertical line's label goes: to the right of the line (`start`) or its left (`end`), on which row above the plot (0 the top). */
export interface LabelPlace {
  readonly anchor: 'start' | 'end';
  readonly row: number;
}

/** Space between a line and its label (px). */
export const LABEL_GAP = 4;

/**
 * Places the labels of vertical lines at `x` (px, plot coordinates), each `width` px wide, so
 * that each stays inside `[left, right]` and none is crossed by another's line. Labels point
 * outwards (the leftmost line's to its left, the others' to their right) when they fit, else to
 * the other side. One label per row; a line is drawn from its own label's row down, so a label
 * that still crosses another line gets a row above that line's (the more lines it crosses, the
 * higher), and the lines' order (the threshold in force first) breaks ties.
 */
export function placeMarkLabels(marks: readonly { readonly x: number; readonly width: number }[], left: number, right: number): LabelPlace[] {
  const n = marks.length;
  const byX = marks.map((_, i) => i).sort((a, b) => (marks[a]?.x ?? 0) - (marks[b]?.x ?? 0));
  const anchors: ('start' | 'end')[] = new Array<'start' | 'end'>(n).fill('start');
  byX.forEach((i, k) => {
    const m = marks[i];
    if (!m) return;
    const roomRight = right - (m.x + LABEL_GAP);
    const roomLeft = m.x - LABEL_GAP - left;
    const preferred = n > 1 && k === 0 ? 'end' : 'start';
    const fits = (a: 'start' | 'end') => (a === 'start' ? roomRight : roomLeft) >= m.width;
    anchors[i] = fits(preferred) ? preferred : fits(preferred === 'start' ? 'end' : 'start') ? (preferred === 'start' ? 'end' : 'start') : roomRight >= roomLeft ? 'start' : 'end';
  });
  const crossings = marks.map((m, i) => {
    const [a, b] = anchors[i] === 'start' ? [m.x + LABEL_GAP, m.x + LABEL_GAP + m.width] : [m.x - LABEL_GAP - m.width, m.x - LABEL_GAP];
    return marks.filter((o, j) => j !== i && o.x >= a && o.x <= b).length;
  });
  const rows = marks.map((_, i) => i).sort((a, b) => (crossings[b] ?? 0) - (crossings[a] ?? 0) || a - b);
  return marks.map((_, i) => ({ anchor: anchors[i] ?? 'start', row: rows.indexOf(i) }));
}

/**
 * What "would have flagged" leaves out of the stale cards the board shows now, and why: a run
 * that stopped has a gap still open (counted once a next heartbeat arrives, if ever), a claim
 * with no heartbeat has no gap at all. Null when the board shows none.
 */
export function staleNowSentence(s: { readonly total: number; readonly stopped: number; readonly no_heartbeat: number }): string | null {
  if (s.total === 0) return null;
  const parts: string[] = [];
  if (s.stopped > 0) parts.push(`${countWords(s.stopped, 'run', 'runs')} that stopped (the gap since ${s.stopped === 1 ? 'its' : 'their'} last heartbeat is still open: a gap counts here once the next heartbeat arrives)`);
  if (s.no_heartbeat > 0) parts.push(`${countWords(s.no_heartbeat, 'claim', 'claims')} with no heartbeat ever (no gap to measure)`);
  return `The board's Stale lane holds ${countWords(s.total, 'card', 'cards')} now, not counted above: ${parts.join(' and ')}.`;
}
