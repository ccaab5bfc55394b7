/**
 * The soak's judgements, on what its clients recorded (pure: no processes, no I/O):
 *
 * - {@link streamGaps}: did an event-stream client hear of every row of the index's change feed?
 *   Each `changed {seq, orders, all}` covers the feed rows after the previous one up to `seq`;
 *   a (re)connect's `hello {seq}` and `all: true` tell the page to refetch everything (covering
 *   every row up to their seq). A row no notice covers, or covered by a notice that names other
 *   orders only, is missed.
 * - {@link feedMisses}: did the feed record every order folder the fleet changed? A write to
 *   order A that started at t needs a feed row for A (or '*') committed at or after t (both
 *   times are this machine's clock).
 * - {@link unheard}: end to end, per client: for each such write, a notice naming A (or all)
 *   whose seq is at least that first row's.
 * - {@link growth}: RSS and descriptor growth per process from the warm-up sample to the last.
 */
import type { SoakWrite } from './fleet';
import type { FeedRow, Notice } from './clients';
import type { ProcSample } from './proc';

/** Feed rows a client missed: the row and why. */
export interface StreamGap {
  readonly row: FeedRow;
  readonly why: 'never covered' | 'not named';
}

interface Range {
  readonly from: number; // exclusive
  readonly to: number; // inclusive
  readonly orders: ReadonlySet<string> | null; // null: everything
}

/**
 * The feed rows (seq ascending, all committed after every judged client first connected) this
 * client was not told of. An unreadable event (seq -1, live.ts refetches everything) covers
 * nothing here: the caller counts those on their own.
 */
export function streamGaps(notices: readonly Notice[], rows: readonly FeedRow[]): StreamGap[] {
  const hellos = notices.filter((n) => n.kind === 'hello').map((n) => n.seq);
  const ranges: Range[] = [];
  let cursor: number | null = null;
  for (const n of notices) {
    if (n.seq < 0) continue;
    // After a (re)connect the server streams from the newest seq at that moment.
    if (n.kind === 'hello') cursor = n.seq;
    else if (cursor !== null && n.seq > cursor) {
      ranges.push({ from: cursor, to: n.seq, orders: n.orders === null ? null : new Set(n.orders) });
      cursor = n.seq;
    }
  }
  ranges.sort((x, y) => x.to - y.to);
  const lastHello = hellos.length ? Math.max(...hellos) : -Infinity;
  const out: StreamGap[] = [];
  for (const row of rows) {
    // A connect at or after the row: the page loaded (or refetched) everything then.
    if (lastHello >= row.seq) continue;
    // The first range ending at or after the row (binary search: ranges are ascending).
    let lo = 0;
    let hi = ranges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ranges[mid] as Range).to < row.seq) lo = mid + 1;
      else hi = mid;
    }
    const r = ranges[lo];
    if (!r || r.from >= row.seq) out.push({ row, why: 'never covered' });
    else if (r.orders !== null && (row.order_id === '*' || !r.orders.has(row.order_id))) out.push({ row, why: 'not named' });
  }
  return out;
}

/**
 * For each write, the first feed row for its order (or '*') committed at or after the write
 * began (both on this machine's clock), or null (also for a channel-level write).
 */
export function firstRows(writes: readonly SoakWrite[], rows: readonly FeedRow[]): (FeedRow | null)[] {
  const by = new Map<string, FeedRow[]>();
  for (const r of rows) {
    const l = by.get(r.order_id) ?? [];
    l.push(r);
    by.set(r.order_id, l);
  }
  const first = (key: string, t: number): FeedRow | null => {
    const l = by.get(key);
    if (!l) return null;
    // at_ms ascends with seq (one writer, one clock; a step back of the clock would break this, and is reported as a miss).
    let lo = 0;
    let hi = l.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((l[mid] as FeedRow).at_ms < t) lo = mid + 1;
      else hi = mid;
    }
    return l[lo] ?? null;
  };
  return writes.map((w) => {
    if (w.orderId === null) return null;
    const a = first(w.orderId, w.startMs);
    const b = first('*', w.startMs);
    return a && b ? (a.seq < b.seq ? a : b) : (a ?? b);
  });
}

/** Order-folder writes with no feed row for their order (or '*') at or after them; `first` from {@link firstRows}. */
export function feedMisses(writes: readonly SoakWrite[], first: readonly (FeedRow | null)[]): SoakWrite[] {
  return writes.filter((w, i) => w.orderId !== null && !first[i]);
}

/**
 * Order-folder writes this client was never told of: no notice naming the order (or everything)
 * with a seq at least the write's first feed row's. Writes without a feed row are left to
 * {@link feedMisses}.
 */
export function unheard(notices: readonly Notice[], writes: readonly SoakWrite[], first: readonly (FeedRow | null)[]): SoakWrite[] {
  const namedMax = new Map<string, number>();
  let allMax = -Infinity;
  for (const n of notices) {
    if (n.orders === null) allMax = Math.max(allMax, n.seq);
    else for (const id of n.orders) namedMax.set(id, Math.max(namedMax.get(id) ?? -Infinity, n.seq));
  }
  return writes.filter((w, i) => {
    const row = first[i];
    if (w.orderId === null || !row) return false;
    return allMax < row.seq && (namedMax.get(w.orderId) ?? -Infinity) < row.seq;
  });
}

/** One process's growth between two samples. */
export interface Growth {
  readonly name: string;
  readonly rssFromKb: number;
  readonly rssToKb: number;
  readonly rssPct: number;
  readonly fdsFrom: number;
  readonly fdsTo: number;
  readonly fdsPct: number;
}

/**
 * Growth of each process (matched by name, e.g. `claimboard.mjs serve`, `claimboard.mjs web`) and of
 * their sum from sample `from` to sample `to`, in % of `from`. A process missing from either
 * sample is left out of the per-process rows.
 */
export function growth(from: readonly ProcSample[], to: readonly ProcSample[]): { perProcess: Growth[]; total: Growth } {
  const pct = (a: number, b: number) => (a > 0 ? ((b - a) / a) * 100 : 0);
  const row = (name: string, a: readonly ProcSample[], b: readonly ProcSample[]): Growth => {
    const ra = a.reduce((s, p) => s + p.rssKb, 0);
    const rb = b.reduce((s, p) => s + p.rssKb, 0);
    const fa = a.reduce((s, p) => s + p.fds, 0);
    const fb = b.reduce((s, p) => s + p.fds, 0);
    return { name, rssFromKb: ra, rssToKb: rb, rssPct: pct(ra, rb), fdsFrom: fa, fdsTo: fb, fdsPct: pct(fa, fb) };
  };
  const names = [...new Set(from.map((p) => p.name))].filter((n) => to.some((p) => p.name === n));
  return {
    perProcess: names.map((n) => row(n, from.filter((p) => p.name === n), to.filter((p) => p.name === n))),
    total: row('total', from, to),
  };
}

/** p50 / p95 / max of `xs` (nearest rank), NaN when empty. */
export function percentiles(xs: readonly number[]): { n: number; p50: number; p95: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => (s.length ? (s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number) : NaN);
  return { n: s.length, p50: at(50), p95: at(95), max: s.length ? (s[s.length - 1] as number) : NaN };
}
