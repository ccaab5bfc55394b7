/**
 * Writer timestamps of the channel ledger and local instants (§6).
 *
 * Pure and framework-free: no `fs`, no `node:` imports, no `Date` for parsing
 * (a `Date` loses every digit beyond milliseconds and accepts garbage). The
 * grammar is exactly what chrono's `DateTime<Utc>` deserializer accepts, as
 * docs/channel-format.md specifies it:
 *
 * ```text
 * YYYY-MM-DD ( "T" | " " ) HH:MM:SS [ "." digit+ ] ( "Z" | "z" | ("+" | "-") HH:MM )
 * ```
 *
 * - exactly 4 year digits and 2 digits for every other field; nothing before or after;
 * - month 1..12, day valid for the month (Gregorian leap years), hour 0..23, minute 0..59,
 *   second 0..60 (60 is chrono's leap second, kept as second 60 on the UTC minute);
 * - fraction: at least one digit; the first 9 are kept as nanoseconds, the rest must be
 *   digits and are truncated;
 * - offset hours 0..23, minutes 0..59 (`-00:00` is UTC);
 * - the UTC result must lie in years 0001..9999 (renderable with 4 digits).
 */

/** A writer's timestamp, parsed losslessly, in UTC. */
export interface Timestamp {
  /** Original text as written in the file. */
  readonly text: string;
  /** UTC calendar fields after applying the offset: year 1..9999. */
  readonly year: number;
  /** UTC month, 1..12. */
  readonly month: number;
  /** UTC day of month, 1..31. */
  readonly day: number;
  /** UTC hour, 0..23. */
  readonly hour: number;
  /** UTC minute, 0..59. */
  readonly minute: number;
  /** UTC second, 0..60 (60 = chrono's leap second, kept on the converted minute). */
  readonly second: number;
  /** Nanoseconds within the second, 0..999_999_999 (digits beyond 9 truncated). */
  readonly nanos: number;
  /**
   * Milliseconds since the Unix epoch, UTC (writer's clock; fraction beyond ms truncated).
   * For display and sorting only. A leap second `:60` counts as the first second of the next
   * minute here (as chrono's `timestamp_millis()` does); use {@link compareTimestamps} to order.
   */
  readonly epochMs: number;
}

/** Result of {@link parseTimestamp}: the timestamp, or a one-sentence reason it is `invalid`. */
export type TimestampParse = { ok: true; value: Timestamp } | { ok: false; reason: string };

// Character codes used by the parser.
const C_0 = 48;
const C_DASH = 45;
const C_PLUS = 43;
const C_COLON = 58;
const C_DOT = 46;
const C_SPACE = 32;
const C_T = 84;
const C_Z = 90;
const C_z = 122;

const MONTH_NAMES = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

/** Gregorian leap year: divisible by 4, except centuries not divisible by 400. */
function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days in month `m` (1..12) of year `y`. */
function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/**
 * Days since 1970-01-01 of the proleptic Gregorian date y-m-d
 * (Howard Hinnant's `days_from_civil`).
 */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400; // 0..399
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1; // 0..365
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy; // 0..146096
  return era * 146097 + doe - 719468;
}

/** Inverse of {@link daysFromCivil}: [year, month, day] of a day count since 1970-01-01. */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097; // 0..146096
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)); // 0..365
  const mp = Math.floor((5 * doy + 2) / 153); // 0..11, March-based
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Value of the 2 ASCII digits at s[i], s[i+1], or -1 if either is not a digit (or missing). */
function digits2(s: string, i: number): number {
  const a = s.charCodeAt(i) - C_0;
  const b = s.charCodeAt(i + 1) - C_0; // NaN past the end: the comparisons below fail
  if (!(a >= 0 && a <= 9 && b >= 0 && b <= 9)) return -1;
  return a * 10 + b;
}

function fail(reason: string): TimestampParse {
  return { ok: false, reason };
}

function expectChar(s: string, i: number, code: number, what: string): string | null {
  return s.charCodeAt(i) === code ? null : `expected ${what} at position ${i}`;
}

/**
 * Parses an RFC 3339 timestamp as chrono's `DateTime<Utc>` deserializer accepts it
 * and converts it to UTC, keeping every nanosecond digit written.
 * Never throws: a refused text (bad syntax, impossible date or time such as `2023-02-29`,
 * hour 24 or minute 60, an offset of 24 hours or more, a UTC year outside 0001..9999,
 * surrounding whitespace, a non-string) gives `{ ok: false, reason }`, the record is `invalid`.
 * reason: one short sentence, e.g. "hour 24 is out of range".
 */
export function parseTimestamp(text: string): TimestampParse {
  if (typeof text !== 'string') return fail('timestamp is not a string');
  const s = text;
  const n = s.length;
  // 19 = 'YYYY-MM-DDTHH:MM:SS' without an offset: shorter texts cannot even hold the time
  if (n < 19) return fail(n === 0 ? 'timestamp is empty' : 'timestamp is too short');

  // --- syntax: YYYY-MM-DD
  const y1 = digits2(s, 0);
  const y2 = digits2(s, 2);
  if (y1 < 0 || y2 < 0) return fail('expected a 4-digit year at position 0');
  const year = y1 * 100 + y2;
  let err = expectChar(s, 4, C_DASH, "'-' after the year");
  if (err !== null) return fail(err);
  const month = digits2(s, 5);
  if (month < 0) return fail('expected a 2-digit month at position 5');
  if ((err = expectChar(s, 7, C_DASH, "'-' after the month")) !== null) return fail(err);
  const day = digits2(s, 8);
  if (day < 0) return fail('expected a 2-digit day at position 8');

  // --- 'T' or ' ' (a lowercase 't' is refused)
  const sep = s.charCodeAt(10);
  if (sep !== C_T && sep !== C_SPACE) return fail("expected 'T' or a space between date and time at position 10");

  // --- HH:MM:SS
  const hour = digits2(s, 11);
  if (hour < 0) return fail('expected a 2-digit hour at position 11');
  if ((err = expectChar(s, 13, C_COLON, "':' after the hour")) !== null) return fail(err);
  const minute = digits2(s, 14);
  if (minute < 0) return fail('expected a 2-digit minute at position 14');
  if ((err = expectChar(s, 16, C_COLON, "':' after the minute")) !== null) return fail(err);
  const second = digits2(s, 17);
  if (second < 0) return fail('expected a 2-digit second at position 17');

  // --- optional fraction: '.' digit+, first 9 kept, the rest truncated
  let i = 19;
  let nanos = 0;
  if (s.charCodeAt(i) === C_DOT) {
    i++;
    const start = i;
    let c = s.charCodeAt(i) - C_0;
    while (c >= 0 && c <= 9) {
      if (i - start < 9) nanos = nanos * 10 + c;
      i++;
      c = s.charCodeAt(i) - C_0;
    }
    const count = i - start;
    if (count === 0) return fail("expected at least one digit after '.' at position 19");
    // scale to nanoseconds when fewer than 9 digits were written
    for (let k = count; k < 9; k++) nanos *= 10;
  }

  // --- offset: 'Z' | 'z' | ('+' | '-') HH:MM, then the end of the text
  let offsetMinutes = 0; // local = UTC + offsetMinutes
  const oc = s.charCodeAt(i);
  if (oc === C_Z || oc === C_z) {
    i++;
  } else if (oc === C_PLUS || oc === C_DASH) {
    const oh = digits2(s, i + 1);
    if (oh < 0 || s.charCodeAt(i + 3) !== C_COLON) return fail(`expected an offset '±HH:MM' at position ${i}`);
    const om = digits2(s, i + 4);
    if (om < 0) return fail(`expected an offset '±HH:MM' at position ${i}`);
    if (oh > 23) return fail(`offset hour ${oh} is out of range`);
    if (om > 59) return fail(`offset minute ${om} is out of range`);
    offsetMinutes = (oh * 60 + om) * (oc === C_DASH ? -1 : 1);
    i += 6;
  } else if (i >= n) {
    return fail("timestamp has no offset ('Z' or '±HH:MM')");
  } else {
    return fail(`expected 'Z' or an offset '±HH:MM' at position ${i}`);
  }
  if (i !== n) return fail(`unexpected text after the offset at position ${i}`);

  // --- ranges
  if (month < 1 || month > 12) return fail(`month ${month} is out of range`);
  if (day < 1 || day > 31) return fail(`day ${day} is out of range`);
  if (day > daysInMonth(year, month)) {
    return fail(`day ${day} does not exist in ${MONTH_NAMES[month - 1] ?? 'month'} ${String(year).padStart(4, '0')}`);
  }
  if (hour > 23) return fail(`hour ${hour} is out of range`);
  if (minute > 59) return fail(`minute ${minute} is out of range`);
  if (second > 60) return fail(`second ${second} is out of range`);

  // --- to UTC: the offset is under 24 h, so the day moves by at most one
  let uy = year;
  let um = month;
  let ud = day;
  let minOfDay = hour * 60 + minute - offsetMinutes;
  if (minOfDay < 0) {
    minOfDay += 1440;
    ud--;
    if (ud < 1) {
      um--;
      if (um < 1) {
        um = 12;
        uy--;
      }
      ud = daysInMonth(uy, um);
    }
  } else if (minOfDay >= 1440) {
    minOfDay -= 1440;
    ud++;
    if (ud > daysInMonth(uy, um)) {
      ud = 1;
      um++;
      if (um > 12) {
        um = 1;
        uy++;
      }
    }
  }
  if (uy < 1 || uy > 9999) return fail(`the UTC time is outside years 0001-9999`);
  const uh = Math.floor(minOfDay / 60);
  const umin = minOfDay - uh * 60;

  const epochMs =
    (daysFromCivil(uy, um, ud) * 86400 + minOfDay * 60 + second) * 1000 + Math.floor(nanos / 1_000_000);

  return {
    ok: true,
    value: { text, year: uy, month: um, day: ud, hour: uh, minute: umin, second, nanos, epochMs },
  };
}

function pad2(v: number): string {
  return v < 10 ? '0' + v : String(v);
}

function pad(v: number, width: number): string {
  return String(v).padStart(width, '0');
}

/**
 * T(x) of docs/channel-format.md: chrono's `to_rfc3339()` rendering of the UTC time,
 * `YYYY-MM-DDTHH:MM:SS[.f]+00:00`, e.g. "2026-08-20T10:11:12.500+00:00".
 * The fraction has 0 digits when nanos is 0, else 3 when it is whole milliseconds,
 * else 6 when whole microseconds, else 9. A leap second renders as second 60.
 * Never throws for a value produced by {@link parseTimestamp}.
 */
export function rfc3339(ts: Timestamp): string {
  let out =
    pad(ts.year, 4) + '-' + pad2(ts.month) + '-' + pad2(ts.day) +
    'T' + pad2(ts.hour) + ':' + pad2(ts.minute) + ':' + pad2(ts.second);
  const ns = ts.nanos;
  if (ns !== 0) {
    if (ns % 1_000_000 === 0) out += '.' + pad(ns / 1_000_000, 3);
    else if (ns % 1000 === 0) out += '.' + pad(ns / 1000, 6);
    else out += '.' + pad(ns, 9);
  }
  return out + '+00:00';
}

/**
 * Compare two timestamps chronologically (writer clocks; for tie-breaks such as the
 * smallest claimed_at): negative, 0 or positive. Compares
 * (epoch seconds, nanos), not text: equal instants written with different offsets or
 * fraction lengths compare 0. A leap second `:60` sorts as chrono orders it, after `:59.999…`
 * of its minute and before the next minute (the UTC fields are compared in order, which is
 * that same order).
 */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return (
    a.year - b.year ||
    a.month - b.month ||
    a.day - b.day ||
    a.hour - b.hour ||
    a.minute - b.minute ||
    a.second - b.second ||
    a.nanos - b.nanos
  );
}

/** The earliest and latest epoch milliseconds a JavaScript `Date` can hold (±100,000,000 days). */
const MAX_INSTANT_MS = 8.64e15;

/**
 * Render a local epoch-milliseconds instant as RFC 3339 UTC with millisecond precision and
 * "Z" (e.g. "2026-11-30T08:00:00.000Z"): for `since` times on this machine's clock
 *. `ms` is milliseconds since the Unix epoch;
 * a fractional part is truncated toward zero. The output equals `new Date(ms).toISOString()`:
 * years outside 0000..9999 render as `±YYYYYY`.
 * Throws RangeError when `ms` is not finite or beyond ±8.64e15 (a `Date`'s range).
 */
export function formatLocalInstant(ms: number): string {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_INSTANT_MS) {
    throw new RangeError(`instant ${ms} ms is not a representable time`);
  }
  const t = Math.trunc(ms) + 0; // +0 turns -0 into 0
  const days = Math.floor(t / 86_400_000);
  let rest = t - days * 86_400_000; // 0..86_399_999
  const [y, m, d] = civilFromDays(days);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const mi = Math.floor(rest / 60_000);
  rest -= mi * 60_000;
  const sec = Math.floor(rest / 1000);
  const milli = rest - sec * 1000;
  const ys = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 6);
  return (
    ys + '-' + pad2(m) + '-' + pad2(d) + 'T' + pad2(h) + ':' + pad2(mi) + ':' + pad2(sec) + '.' + pad(milli, 3) + 'Z'
  );
}
