import { describe, expect, it } from 'vitest';
import {
  BUCKET_RATIO,
  bucketCounts,
  bucketLo,
  bucketOf,
  countBeyond,
  distributionOfBuckets,
  distributionOfSamples,
  durationText,
  histogramOf,
  quantileOfHistogram,
  quantileOfSorted,
  roundUpThreshold,
  suggestThreshold,
  wouldFlag,
} from './tuning';

const S = 1000;
const MIN = 60 * S;

/** mulberry32: a small seeded generator, so the samples are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` gaps uniform in [lo, hi) ms, plus `outliers` gaps of `outlierMs`. */
function gaps(n: number, lo: number, hi: number, outliers: number, outlierMs: number, seed = 12): number[] {
  const r = seeded(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(lo + (hi - lo) * r());
  for (let i = 0; i < outliers; i++) out.push(outlierMs);
  return out;
}

/** Within one bucket width of `exact` (the estimate lies in the bucket holding the true value). */
function withinOneBucket(estimate: number | null, exact: number): void {
  expect(estimate).not.toBeNull();
  expect((estimate as number) / exact).toBeLessThanOrEqual(BUCKET_RATIO);
  expect((estimate as number) / exact).toBeGreaterThanOrEqual(1 / BUCKET_RATIO);
}

describe('buckets', () => {
  it('are ten per decade: 1 s opens bucket 30, 10 s bucket 40, 25 s lies in bucket 43', () => {
    expect(bucketOf(1000)).toBe(30);
    expect(bucketOf(10_000)).toBe(40);
    expect(bucketOf(9_999.999)).toBe(39);
    // 10^4.3 = 19 952.6, 10^4.4 = 25 118.9: 25 000 ms is in [10^4.3, 10^4.4).
    expect(bucketOf(25_000)).toBe(43);
    expect(bucketOf(30_000)).toBe(44); // [25 118.9, 31 622.8)
    expect(bucketLo(45)).toBeCloseTo(31_622.78, 1);
  });

  it('put every bound in its own bucket, whatever the logarithm rounds to', () => {
    for (let i = 0; i < 90; i++) {
      expect(bucketOf(bucketLo(i)), `bound of ${i}`).toBe(i);
      expect(bucketOf(bucketLo(i + 1) * (1 - 1e-12)), `just below bound of ${i + 1}`).toBe(i);
    }
  });

  it('count anything at or below 1 ms in bucket 0', () => {
    expect([bucketOf(0.3), bucketOf(1), bucketOf(0), bucketOf(-5), bucketOf(Number.NaN)]).toEqual([0, 0, 0, 0, 0]);
    expect(bucketOf(1.3)).toBe(1); // 10^0.1 = 1.2589
  });

  it('show as [lo, hi) with counts, non-empty, ascending, rows of one bucket summed', () => {
    const h = histogramOf([
      { bucket: 44, n: 2 },
      { bucket: 30, n: 1 },
      { bucket: 44, n: 3 },
      { bucket: 50, n: 0 },
    ]);
    expect(h.map((b) => [b.n, Math.round(b.lo_ms), Math.round(b.hi_ms)])).toEqual([
      [1, 1000, 1259],
      [5, 25119, 31623],
    ]);
    expect(bucketCounts([1000, 1100, 30_000])).toEqual([
      { bucket: 30, n: 2 },
      { bucket: 44, n: 1 },
    ]);
  });
});

describe('quantiles', () => {
  it('of sorted samples by nearest rank', () => {
    const s = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantileOfSorted(s, 0.5)).toBe(5); // ceil(5) = 5th
    expect(quantileOfSorted(s, 0.9)).toBe(9);
    expect(quantileOfSorted(s, 0.99)).toBe(10); // ceil(9.9) = 10th
    expect(quantileOfSorted(s, 0)).toBe(1);
    expect(quantileOfSorted([], 0.5)).toBeNull();
  });

  it('of a histogram interpolate linearly within the bucket holding the rank', () => {
    // 10 samples in [1000, 1258.9): the median is rank 5, halfway through the bucket.
    const h = histogramOf([{ bucket: 30, n: 10 }]);
    expect(quantileOfHistogram(h, 0.5)).toBeCloseTo(1000 + (bucketLo(31) - 1000) / 2, 6);
    // 4 in bucket 30 and 4 in bucket 40: rank 4 (p50) is the top of bucket 30, rank 6 (p75) halfway through 40.
    const two = histogramOf([
      { bucket: 30, n: 4 },
      { bucket: 40, n: 4 },
    ]);
    expect(quantileOfHistogram(two, 0.5)).toBeCloseTo(bucketLo(31), 6);
    expect(quantileOfHistogram(two, 0.75)).toBeCloseTo(10_000 + (bucketLo(41) - 10_000) / 2, 6);
    // with the true maximum known (10.5 s), the top bucket spans [10 s, 10.5 s]: rank 6 (p75) is
    // halfway through that, rank 7.92 (p99) 3.92/4 of it
    expect(quantileOfHistogram(two, 0.75, 10_500)).toBeCloseTo(10_250, 6);
    expect(quantileOfHistogram(two, 0.99, 10_500)).toBeCloseTo(10_000 + 500 * (3.92 / 4), 6);
    // a maximum below the bucket's bound stands at the bound (the bucket's samples are in it)
    expect(quantileOfHistogram(two, 1, 9_000)).toBe(10_000);
    expect(quantileOfHistogram([], 0.5)).toBeNull();
  });
});

describe('distributions', () => {
  it('1,000 gaps uniform in 25-35 s plus 10 of 200 s: the histogram estimates are within one bucket of the sorted samples', () => {
    const g = gaps(1000, 25 * S, 35 * S, 10, 200 * S);
    const sorted = [...g].sort((a, b) => a - b);
    // n = 1,010. p50: the 505th smallest (ceil(0.5 × 1010)); p99: the 1,000th (ceil(999.9)),
    // the largest uniform sample: the 10 outliers are the top 1 % less a tenth of a sample.
    const p50 = sorted[504] as number;
    const p99 = sorted[999] as number;
    expect(p50).toBeGreaterThan(29 * S);
    expect(p50).toBeLessThan(31 * S);
    expect(p99).toBeGreaterThan(34.9 * S);
    expect(p99).toBeLessThan(35 * S);

    const exact = distributionOfSamples(g);
    expect([exact.count, exact.p50_ms, exact.p99_ms, exact.max_ms]).toEqual([1010, p50, p99, 200 * S]);

    const est = distributionOfBuckets(bucketCounts(g), 200 * S);
    expect(est.count).toBe(1010);
    withinOneBucket(est.p50_ms, p50);
    withinOneBucket(est.p99_ms, p99);
    expect(est.max_ms).toBe(200 * S);
    // the histogram's buckets: 43 (25.0-25.1 s), 44 (25.1-31.6 s), 45 (31.6-35 s), 53 (200 s: [199.5, 251.2) s)
    expect(est.histogram.map((b) => bucketOf(b.lo_ms))).toEqual([43, 44, 45, 53]);
    expect(est.histogram[3]?.n).toBe(10);
    expect(est.histogram.reduce((s, b) => s + b.n, 0)).toBe(1010);

    // The suggestion is the rule applied to the estimate: here the floor, 10 × median (~300 s),
    // beats 3 × p99 (~3 × 35-40 s).
    const s = suggestThreshold(est, 5);
    const raw = Math.max(3 * (est.p99_ms as number), 10 * (est.p50_ms as number));
    expect(raw).toBe(10 * (est.p50_ms as number));
    expect(s.suggested_ms).toBe(Math.ceil(Math.round(raw) / 10_000) * 10_000);
    expect(s.suggested_ms).toBeGreaterThanOrEqual(300 * S);
    expect(s.suggested_ms).toBeLessThanOrEqual(330 * S);
    expect(s.not_enough).toBeNull();
    expect(s.rule).toContain('(the floor)');
  });

  it('with 2 % of gaps at 200 s the tail term decides: 3 × p99 ≈ 600 s, rounded to a whole minute', () => {
    const g = gaps(1000, 25 * S, 35 * S, 20, 200 * S, 7);
    const sorted = [...g].sort((a, b) => a - b);
    // n = 1,020: p99 is the 1,010th smallest (ceil(1009.8)), one of the outliers.
    expect(sorted[1009]).toBe(200 * S);
    const est = distributionOfBuckets(bucketCounts(g), 200 * S);
    withinOneBucket(est.p99_ms, 200 * S);
    const tail = 3 * (est.p99_ms as number);
    expect(tail).toBeGreaterThan(10 * (est.p50_ms as number));
    const s = suggestThreshold(est, 4);
    // the 20 outliers are bucket 53, [199.5 s, 251.2 s), which ends at the 200 s maximum here:
    // rank 1,009.8 is 9.8/20 of the way from 199.53 s to 200 s, 199.76 s; 3 × that is 599.3 s,
    // rounded up to 600 s.
    expect(est.p99_ms).toBeCloseTo(bucketLo(53) + (200_000 - bucketLo(53)) * (9.8 / 20), 6);
    expect(s.suggested_ms).toBe(600 * S);
    expect(s.rule).toContain('(the tail term)');
    expect(s.rule).toContain('max(3 × 3 min 20 s = 9 min 59 s');
  });

  it('of no samples: count 0, null percentiles, empty histogram', () => {
    expect(distributionOfSamples([])).toEqual({ count: 0, p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null, histogram: [] });
    expect(distributionOfBuckets([], null)).toEqual({ count: 0, p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null, histogram: [] });
  });

  it('count gaps beyond a threshold: whole buckets above, the straddled bucket by its share', () => {
    const h = histogramOf([
      { bucket: 40, n: 10 }, // [10 s, 12.6 s)
      { bucket: 50, n: 6 }, // [100 s, 125.9 s)
    ]);
    expect(countBeyond(h, 60 * S)).toBe(6);
    expect(countBeyond(h, 10 * S)).toBe(16);
    // halfway through bucket 40: half its 10, and the 6 above
    expect(countBeyond(h, 10_000 + (bucketLo(41) - 10_000) / 2)).toBe(11);
    expect(countBeyond(h, 200 * S)).toBe(0);
    // with the longest gap known to be 110 s, bucket 50 spans [100 s, 110 s]: 105 s splits it in half
    expect(countBeyond(h, 105 * S, 110 * S)).toBe(3);
    expect(countBeyond(h, 110 * S, 110 * S)).toBe(0);
    expect(countBeyond(h, 120 * S, 110 * S)).toBe(0);
  });
});

describe('the suggestion', () => {
  const dist = (p50: number, p99: number, count = 100) => ({ count, p50_ms: p50, p99_ms: p99 });

  it('is 10 × the median when that is more than 3 × p99 (the floor), with its figures in the rule', () => {
    const s = suggestThreshold(dist(30 * S, 40 * S), 3);
    // max(120 s, 300 s) = 300 s, a whole 10 s already
    expect(s.suggested_ms).toBe(300 * S);
    expect(s.rule).toBe(
      'suggested = max(3 × p99 of heartbeat gaps, 10 × median heartbeat gap), rounded up to a whole 10 s below 10 min and a whole minute above: ' +
        'max(3 × 40 s = 2 min, 10 × 30 s = 5 min) = 5 min (the floor), rounded up: 5 min; from 100 gaps of 3 runs',
    );
  });

  it('is 3 × p99 when that is more, rounded up to 10 s below 10 min', () => {
    // 3 × 101 s = 303 s → 310 s
    expect(suggestThreshold(dist(20 * S, 101 * S), 3).suggested_ms).toBe(310 * S);
  });

  it('rounds to a whole minute from 10 min up', () => {
    // 3 × 201 s = 603 s → 11 min
    expect(suggestThreshold(dist(20 * S, 201 * S), 3).suggested_ms).toBe(11 * MIN);
  });

  it('says plainly when there are too few gaps or runs', () => {
    const few = suggestThreshold(dist(30 * S, 40 * S, 12), 2);
    expect(few.suggested_ms).toBeNull();
    expect(few.not_enough).toBe('not enough data: 12 heartbeat gaps seen from 2 runs; the suggestion needs 30 from 3');
    expect(few.rule).toContain('it needs at least 30 gaps from 3 runs');
    expect(suggestThreshold(dist(30 * S, 40 * S, 29), 10).not_enough).toBe('not enough data: 29 heartbeat gaps seen from 10 runs; the suggestion needs 30 from 3');
    expect(suggestThreshold(dist(30 * S, 40 * S, 500), 2).suggested_ms).toBeNull();
    expect(suggestThreshold({ count: 1, p50_ms: 1, p99_ms: 1 }, 1).not_enough).toBe('not enough data: 1 heartbeat gap seen from 1 run; the suggestion needs 30 from 3');
    expect(suggestThreshold({ count: 0, p50_ms: null, p99_ms: null }, 0).not_enough).toBe('not enough data: 0 heartbeat gaps seen from 0 runs; the suggestion needs 30 from 3');
    // exactly the minimum is enough
    expect(suggestThreshold(dist(30 * S, 40 * S, 30), 3).suggested_ms).toBe(300 * S);
  });
});

describe('roundUpThreshold', () => {
  it('rounds up to 10 s below 10 min and to a minute from 10 min', () => {
    expect(roundUpThreshold(300_000)).toBe(300_000);
    expect(roundUpThreshold(300_001)).toBe(310_000);
    expect(roundUpThreshold(300_000.0000001)).toBe(300_000); // interpolation noise, not a millisecond
    expect(roundUpThreshold(1)).toBe(10_000);
    expect(roundUpThreshold(595_000)).toBe(600_000);
    expect(roundUpThreshold(599_999)).toBe(600_000);
    expect(roundUpThreshold(600_000)).toBe(600_000);
    expect(roundUpThreshold(600_001)).toBe(660_000);
    expect(roundUpThreshold(7_230_000)).toBe(7_260_000); // 2 h 0 min 30 s → 2 h 1 min
  });
});

describe('durationText', () => {
  it('says ms, tenths of seconds, minutes and seconds, hours and minutes', () => {
    expect([durationText(850), durationText(39_810.7), durationText(300_000), durationText(310_000), durationText(7_260_000)]).toEqual([
      '850 ms',
      '39.8 s',
      '5 min',
      '5 min 10 s',
      '2 h 1 min',
    ]);
  });
});

describe('wouldFlag', () => {
  const run = (order_id: string, max_gap_ms: number, agent = 'fang') => ({ order_id, agent, run: 'r1', max_gap_ms });

  it('counts the runs whose longest gap exceeded the threshold, longest first, of the runs observed', () => {
    const runs = [run('a', 30 * S), run('b', 400 * S), run('c', 300 * S), run('d', 301 * S), run('e', 900 * S, 'wisp')];
    const w = wouldFlag(runs, 300 * S);
    // staleness is now − arrival > stale_after: a gap of exactly 300 s never showed stale
    expect([w.threshold_ms, w.runs, w.of_runs]).toEqual([300 * S, 3, 5]);
    expect(w.examples.map((r) => r.order_id)).toEqual(['e', 'b', 'd']);
    expect(wouldFlag(runs, 1000 * S).runs).toBe(0);
    expect(wouldFlag([], 300 * S)).toEqual({ threshold_ms: 300 * S, runs: 0, of_runs: 0, examples: [] });
  });

  it('lists at most 20 examples', () => {
    const many = Array.from({ length: 30 }, (_, i) => run(`o${String(i).padStart(2, '0')}`, (100 + i) * S));
    const w = wouldFlag(many, 0);
    expect(w.runs).toBe(30);
    expect(w.examples).toHaveLength(20);
    expect(w.examples[0]?.order_id).toBe('o29');
  });
});
