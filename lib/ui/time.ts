/**
 * Time as the pages show it. Two clocks never mix:
 *
 * - local instants (`*_ms`: arrivals, `since`, `now_ms`) are THIS machine's clock: they are
 *   shown relative ("12 min ago") against the server's `now_ms` advanced by the time elapsed
 *   in the browser since the response arrived, and as UTC clock times;
 * - writer times (`at`, `claimed_at`, `writer_time`: RFC 3339 text) are the writer's clock:
 *   shown converted to UTC, beside the local arrival, never subtracted from our clock.
 *
 * Pure: no `Date.now()` here; the caller passes the clock.
 */
import { parseTimestamp } from '../ledger/time';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** A duration in words, coarse and short: "40 s", "12 min", "3 h 20 min", "5 days". */
export function formatDuration(ms: number): string {
  const d = Math.max(0, Math.abs(ms));
  if (d < MIN) return `${Math.floor(d / SEC)} s`;
  if (d < HOUR) return `${Math.floor(d / MIN)} min`;
  if (d < 2 * DAY) {
    const h = Math.floor(d / HOUR);
    const m = Math.floor((d - h * HOUR) / MIN);
    return m === 0 || h >= 10 ? `${h} h` : `${h} h ${m} min`;
  }
  return `${Math.floor(d / DAY)} days`;
}

/**
 * "12 min ago" for a local instant (ms, this machine's clock) before `nowMs` (the same clock);
 * "just now" within 5 s and for any instant after `nowMs`: an arrival is never in the future, so
 * one after now means this clock stepped back since (docs/channel-format.md), and the page shows
 * no negative age ("in 3 min"); the exact time stays in the caller's tooltip.
 */
export function ago(thenMs: number, nowMs: number): string {
  const d = nowMs - thenMs;
  if (d < 5 * SEC) return 'just now';
  return `${formatDuration(d)} ago`;
}

const pad2 = (n: number) => String(n).padStart(2, '0');
const pad4 = (n: number) => String(n).padStart(4, '0');

/** A local instant as a UTC wall time, "09:14:03" (or "2026-11-20 09:14:03" with `date`). */
export function utcClock(ms: number, opts: { date?: boolean } = {}): string {
  if (!Number.isFinite(ms)) return '?';
  const dt = new Date(Math.trunc(ms));
  if (Number.isNaN(dt.getTime())) return '?';
  const time = `${pad2(dt.getUTCHours())}:${pad2(dt.getUTCMinutes())}:${pad2(dt.getUTCSeconds())}`;
  if (!opts.date) return time;
  return `${pad4(dt.getUTCFullYear())}-${pad2(dt.getUTCMonth() + 1)}-${pad2(dt.getUTCDate())} ${time}`;
}

/** A writer's RFC 3339 text parsed (lossless grammar of docs/channel-format.md), or null when it is not one. */
export interface WriterTime {
  /** As written. */
  readonly text: string;
  /** UTC date, "2026-11-20". */
  readonly date: string;
  /** UTC time to the second, "09:06:00". */
  readonly time: string;
  /** UTC hour and minute, "09:06". */
  readonly short: string;
  /** Whether the writer wrote an offset other than UTC (shown converted). */
  readonly converted: boolean;
  /** Writer clock as epoch ms (display and sorting only). */
  readonly epochMs: number;
}

export function writerTime(text: string): WriterTime | null {
  const p = parseTimestamp(text);
  if (!p.ok) return null;
  const t = p.value;
  const time = `${pad2(t.hour)}:${pad2(t.minute)}:${pad2(t.second)}`;
  return {
    text,
    date: `${pad4(t.year)}-${pad2(t.month)}-${pad2(t.day)}`,
    time,
    short: `${pad2(t.hour)}:${pad2(t.minute)}`,
    converted: !/(?:[Zz]|[+-]00:00)$/.test(text),
    epochMs: t.epochMs,
  };
}

/** "09:06 UTC" for a writer time (the text itself when it does not parse). */
export function writerShort(text: string): string {
  const w = writerTime(text);
  return w ? `${w.short} UTC` : text;
}

/** "2026-11-20 09:06:00 UTC" for a writer time (the text itself when it does not parse). */
export function writerFull(text: string): string {
  const w = writerTime(text);
  return w ? `${w.date} ${w.time} UTC` : text;
}

/** How far an agent's clock-plus-sync offset may be from ours and still read as agreeing, ms. */
export const CLOCK_AGREES_MS = 2 * SEC;

/** Whether an agent's estimated clock-plus-sync offset is beyond CLOCK_AGREES_MS (unknown: no). */
export function clockDisagrees(offsetMs: number | null): boolean {
  return offsetMs !== null && Math.abs(offsetMs) >= CLOCK_AGREES_MS;
}

/**
 * An agent's estimated clock-plus-sync offset in words (AgentSummary.clock_offset_ms: its
 * heartbeats' `at` minus their arrival here). Positive: its clock reads later than ours.
 */
export function clockOffsetSentence(offsetMs: number | null): string {
  if (offsetMs === null) return 'no heartbeat seen here, so its clock cannot be estimated';
  if (!clockDisagrees(offsetMs)) return 'its clock agrees with ours to within 2 s, sync included';
  const way = offsetMs > 0 ? 'ahead of' : 'behind';
  return `its clock runs ~${formatDuration(offsetMs)} ${way} ours, sync included`;
}
