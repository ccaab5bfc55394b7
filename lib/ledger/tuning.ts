/**
 * The arithmetic of the stale-threshold report: log-scaled
 * histograms, percentiles, the suggested threshold and what a threshold would have flagged.
 * Pure: numbers in, numbers and words out; no clock is read here. Every duration is in ms.
 *
 * Histograms have 10 buckets per decade: bucket `i` covers `[10^(i/10), 10^((i+1)/10))` ms,
 * each about 26 % wider than the one before (10^0.1 = 1.2589). Bucket 0 starts at 1 ms and also
 * holds anything shorter (a sub-millisecond duration says nothing a threshold cares about).
 */
import type { Distribution, FlaggedRun, HistogramBucket, Suggestion, WouldFlag } from './tuning-types';

/** Buckets per factor of ten. */
export const BUCKETS_PER_DECADE = 10;
/** The ratio of one bucket's upper bound to its lower bound (10^0.1). */
export const BUCKET_RATIO = 10 ** (1 / BUCKETS_PER_DECADE);

/** The suggestion needs at least this many heartbeat gaps... */
export const MIN_GAPS = 30;
/** ... from at least this many runs (a single run's rhythm is no fleet's). */
export const MIN_RUNS = 3;
/** The suggestion's margin over the 99th percentile of gaps. */
export const P99_MARGIN = 3;
/** The suggestion's floor: this many median gaps (the Orphan Reaper's "never below ten times the median"). */
export const MEDIAN_FLOOR = 10;
/** Examples a WouldFlag lists at most. */
export const FLAG_EXAMPLES = 20;

/** A bucket index with its count (what the index stores per agent in `beat_gaps`). */
export interface BucketCount {
  readonly bucket: number;
  readonly n: number;
}

/** The lower bound of bucket `i`, ms. */
export function bucketLo(i: number): number {
  return 10 ** (i / BUCKETS_PER_DECADE);
}

/**
 * The bucket (an integer ≥ 0) holding a duration of `ms`: the `i` with
 * `10^(i/10) ≤ ms < 10^((i+1)/10)`; 0 for anything below 10^0.1 ms (non-finite: 0 too).
 * Corrected against {@link bucketLo} so that a bound itself always opens its own bucket,
 * whatever the rounding of the logarithm.
 */
export function bucketOf(ms: number): number {
  if (!(ms > 1)) return 0;
  let i = Math.floor(Math.log10(ms) * BUCKETS_PER_DECADE);
  if (bucketLo(i) > ms) i--;
  else if (bucketLo(i + 1) <= ms) i++;
  return Math.max(0, i);
}

/** Counts per bucket of `samples` (ms), ascending by bucket, non-empty buckets only. */
export function bucketCounts(samples: Iterable<number>): BucketCount[] {
  const m = new Map<number, number>();
  for (const s of samples) {
    const b = bucketOf(s);
    m.set(b, (m.get(b) ?? 0) + 1);
  }
  return [...m].map(([bucket, n]) => ({ bucket, n })).sort((a, b) => a.bucket - b.bucket);
}

/** Bucket counts as the report shows them: `[lo_ms, hi_ms)`, non-empty, ascending (several rows of one bucket are summed). */
export function histogramOf(counts: readonly BucketCount[]): HistogramBucket[] {
  const m = new Map<number, number>();
  for (const c of counts) if (c.n > 0) m.set(c.bucket, (m.get(c.bucket) ?? 0) + c.n);
  return [...m]
    .sort((a, b) => a[0] - b[0])
    .map(([i, n]) => ({ lo_ms: bucketLo(i), hi_ms: bucketLo(i + 1), n }));
}

/**
 * The span a bucket's samples may occupy: `[lo_ms, hi_ms)`, except that the top bucket ends at
 * the true maximum when it is known (`maxMs`, kept exactly): its samples lie at or below it.
 */
function spanOf(histogram: readonly HistogramBucket[], i: number, maxMs: number | null): { lo: number; hi: number } {
  const b = histogram[i] as HistogramBucket;
  const top = i === histogram.length - 1 && maxMs !== null;
  return { lo: b.lo_ms, hi: top ? Math.min(Math.max(maxMs, b.lo_ms), b.hi_ms) : b.hi_ms };
}

/**
 * The `p` quantile (0..1) estimated from a histogram (ascending, as {@link histogramOf} makes it):
 * the rank `p × count` is found in the cumulative counts and the value interpolated linearly (in
 * ms) within its bucket, as if the bucket's samples were spread evenly over it; the top bucket
 * spans only up to `maxMs`, the true maximum, when known. So the estimate is within the bucket
 * holding the true quantile: off by at most one bucket width (26 %). Null for an empty histogram.
 */
export function quantileOfHistogram(histogram: readonly HistogramBucket[], p: number, maxMs: number | null = null): number | null {
  let count = 0;
  for (const b of histogram) count += b.n;
  if (count === 0) return null;
  const rank = Math.min(Math.max(p, 0), 1) * count;
  let before = 0;
  for (const [i, b] of histogram.entries()) {
    if (b.n > 0 && before + b.n >= rank) {
      const { lo, hi } = spanOf(histogram, i, maxMs);
      return lo + (hi - lo) * ((rank - before) / b.n);
    }
    before += b.n;
  }
  return spanOf(histogram, histogram.length - 1, maxMs).hi;
}

/**
 * The `p` quantile (0..1) of ascending `sorted` samples by nearest rank: the smallest sample
 * with at least `p × n` samples at or below it (`sorted[ceil(p × n) − 1]`). Null when empty.
 */
export function quantileOfSorted(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const k = Math.min(sorted.length, Math.max(1, Math.ceil(Math.min(Math.max(p, 0), 1) * sorted.length)));
  return sorted[k - 1] ?? null;
}

/** Counts per bucket of ascending `sorted` samples in one walk (a logarithm per bucket, not per sample). */
function bucketCountsOfSorted(sorted: ArrayLike<number>): BucketCount[] {
  const out: BucketCount[] = [];
  let i = 0;
  while (i < sorted.length) {
    const b = bucketOf(sorted[i] as number);
    const hi = bucketLo(b + 1);
    let j = i + 1;
    // bucketOf(x) = b exactly when x < hi here: x ≥ sorted[i] ≥ bucketLo(b) (or b is 0)
    while (j < sorted.length && (sorted[j] as number) < hi) j++;
    out.push({ bucket: b, n: j - i });
    i = j;
  }
  return out;
}

/**
 * The distribution of raw samples (ms): percentiles exact (nearest rank, {@link quantileOfSorted}),
 * the histogram by {@link bucketOf}. Negative samples count as 0 (a duration cannot be negative;
 * the callers drop the ones that mean a broken timestamp before). Sorted as a Float64Array
 * (numeric and native: 100,000 samples in a few ms).
 */
export function distributionOfSamples(samples: readonly number[]): Distribution {
  const sorted = Float64Array.from(samples, (s) => Math.max(0, s)).sort();
  const n = sorted.length;
  return {
    count: n,
    p50_ms: quantileOfSorted(sorted, 0.5),
    p90_ms: quantileOfSorted(sorted, 0.9),
    p99_ms: quantileOfSorted(sorted, 0.99),
    max_ms: n > 0 ? (sorted[n - 1] ?? null) : null,
    histogram: histogramOf(bucketCountsOfSorted(sorted)),
  };
}

/**
 * The distribution of stored bucket counts (the samples themselves are not kept): percentiles
 * estimated by {@link quantileOfHistogram} (within one bucket width), the top bucket ending at
 * `maxMs`, the true maximum, when known (else its upper bound stands for the maximum).
 */
export function distributionOfBuckets(counts: readonly BucketCount[], maxMs: number | null): Distribution {
  const histogram = histogramOf(counts);
  const count = histogram.reduce((s, b) => s + b.n, 0);
  const top = histogram[histogram.length - 1];
  return {
    count,
    p50_ms: quantileOfHistogram(histogram, 0.5, maxMs),
    p90_ms: quantileOfHistogram(histogram, 0.9, maxMs),
    p99_ms: quantileOfHistogram(histogram, 0.99, maxMs),
    max_ms: count === 0 ? null : (maxMs ?? top?.hi_ms ?? null),
    histogram,
  };
}

/**
 * How many of a histogram's samples are longer than `thresholdMs`, estimated as the quantiles
 * are: whole buckets above it, plus the share of the bucket it falls in that lies above it (linear
 * within the bucket; the top bucket up to `maxMs` when known), rounded to a whole sample. Exact
 * when no bucket straddles the threshold (and 0 when it is at or above the known maximum).
 */
export function countBeyond(histogram: readonly HistogramBucket[], thresholdMs: number, maxMs: number | null = null): number {
  let n = 0;
  for (const [i, b] of histogram.entries()) {
    const { lo, hi } = spanOf(histogram, i, maxMs);
    if (lo > thresholdMs || (lo === thresholdMs && hi > lo)) n += b.n;
    else if (hi > thresholdMs) n += b.n * ((hi - thresholdMs) / (hi - lo));
  }
  return Math.round(n);
}

/**
 * A threshold rounded up to what a person would configure: to a whole 10 s below 10 min, to a
 * whole minute from 10 min up. The input is first rounded to a whole ms (its sub-ms digits are
 * interpolation noise, and must not push 300 000.000001 ms up to 310 s).
 */
export function roundUpThreshold(ms: number): number {
  const whole = Math.round(ms);
  const step = whole < 600_000 ? 10_000 : 60_000;
  return Math.ceil(whole / step) * step;
}

/** A duration in short words for the rule's sentence: "850 ms", "39.8 s", "5 min 10 s", "2 h 5 min". */
export function durationText(ms: number): string {
  const d = Math.max(0, ms);
  if (d < 1000) return `${Math.round(d)} ms`;
  if (d < 60_000) return `${(Math.round(d / 100) / 10).toString()} s`;
  if (d < 3_600_000) {
    const s = Math.round(d / 1000);
    const m = Math.floor(s / 60);
    return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  }
  const m = Math.round(d / 60_000);
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const RULE =
  `suggested = max(${P99_MARGIN} × p99 of heartbeat gaps, ${MEDIAN_FLOOR} × median heartbeat gap), ` +
  'rounded up to a whole 10 s below 10 min and a whole minute above';

/**
 * The suggested stale threshold from the observed heartbeat gaps (docs/tuning.md):
 * `max(3 × p99, 10 × median)` of the gaps, rounded up by {@link roundUpThreshold}. The p99 term
 * covers the tail a live run really shows (sync delays, pauses); the floor keeps a fleet with
 * very regular heartbeats from getting a threshold a single late sync would cross (ferry's own
 * default is 10 × its 30 s interval). Null, with the reason in words, when fewer than
 * {@link MIN_GAPS} gaps or fewer than {@link MIN_RUNS} runs (runs with at least one gap) were seen.
 */
export function suggestThreshold(gaps: Pick<Distribution, 'count' | 'p50_ms' | 'p99_ms'>, runsObserved: number): Suggestion {
  if (gaps.count < MIN_GAPS || runsObserved < MIN_RUNS || gaps.p50_ms === null || gaps.p99_ms === null) {
    return {
      rule: `${RULE}; it needs at least ${MIN_GAPS} gaps from ${MIN_RUNS} runs`,
      suggested_ms: null,
      not_enough: `not enough data: ${plural(gaps.count, 'heartbeat gap', 'heartbeat gaps')} seen from ${plural(runsObserved, 'run', 'runs')}; the suggestion needs ${MIN_GAPS} from ${MIN_RUNS}`,
    };
  }
  const tail = P99_MARGIN * gaps.p99_ms;
  const floor = MEDIAN_FLOOR * gaps.p50_ms;
  const raw = Math.max(tail, floor);
  const suggested = roundUpThreshold(raw);
  const which = tail >= floor ? 'the tail term' : 'the floor';
  return {
    rule:
      `${RULE}: max(${P99_MARGIN} × ${durationText(gaps.p99_ms)} = ${durationText(tail)}, ` +
      `${MEDIAN_FLOOR} × ${durationText(gaps.p50_ms)} = ${durationText(floor)}) = ${durationText(raw)} (${which}), ` +
      `rounded up: ${durationText(suggested)}; from ${plural(gaps.count, 'gap', 'gaps')} of ${plural(runsObserved, 'run', 'runs')}`,
    suggested_ms: suggested,
    not_enough: null,
  };
}

/**
 * The runs a threshold would have shown stale at least once: those whose longest observed gap
 * exceeded `thresholdMs` (staleness is `now − arrival > stale_after`, so a gap longer than the
 * threshold was a stretch the board called the run stale). `runs` are those with at least one
 * observed gap; examples: up to {@link FLAG_EXAMPLES}, longest gap first (then order, agent, run).
 */
export function wouldFlag(runs: readonly FlaggedRun[], thresholdMs: number): WouldFlag {
  const over = runs.filter((r) => r.max_gap_ms > thresholdMs);
  over.sort((a, b) => b.max_gap_ms - a.max_gap_ms || cmp(a.order_id, b.order_id) || cmp(a.agent, b.agent) || cmp(a.run, b.run));
  return { threshold_ms: thresholdMs, runs: over.length, of_runs: runs.length, examples: over.slice(0, FLAG_EXAMPLES) };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
