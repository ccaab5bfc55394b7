/**
 * The stale-threshold page rendered to static markup from TuningReports built here by hand:
 * the threshold lines and their labels where the log scale puts them, the words beside the
 * charts, and "Not enough data yet" for empty and tiny channels instead of a chart.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Distribution, HistogramBucket, TuningReport } from '@/lib/ledger/tuning-types';
import { LANES } from '@/lib/ledger/derive';
import { DurationHistogram } from './DurationHistogram';
import { TuningReportView } from './TuningView';
import { AgentTuningView } from './AgentTuning';

const S = 1000;
const M = 60 * S;

const EMPTY: Distribution = { count: 0, p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null, histogram: [] };

function dist(histogram: HistogramBucket[], p: Pick<Distribution, 'p50_ms' | 'p90_ms' | 'p99_ms' | 'max_ms'>): Distribution {
  return { count: histogram.reduce((n, b) => n + b.n, 0), histogram, ...p };
}

/** 40 gaps: 30 around 30 s, 8 around 1 min, 2 around 10 min (beyond a 5 min threshold). */
const GAPS = dist(
  [
    { lo_ms: 25 * S, hi_ms: 32 * S, n: 30 },
    { lo_ms: 50 * S, hi_ms: 63 * S, n: 8 },
    { lo_ms: 8 * M, hi_ms: 10 * M, n: 2 },
  ],
  { p50_ms: 30 * S, p90_ms: 60 * S, p99_ms: 9 * M, max_ms: 9.5 * M },
);

function report(over: Partial<TuningReport> = {}): TuningReport {
  return {
    channel: '/srv/channel',
    agent: null,
    stale_after_ms: 5 * M,
    now_ms: 1_800_000_000_000,
    gaps: { ...GAPS, beyond_threshold: 2, share_beyond: 2 / 40, observed_since_ms: 1_800_000_000_000 - 3_600_000 },
    runs: dist([{ lo_ms: 10 * M, hi_ms: 12.6 * M, n: 6 }], { p50_ms: 11 * M, p90_ms: 12 * M, p99_ms: 12 * M, max_ms: 12.5 * M }),
    suggestion: { rule: 'suggested = max(3 × p99 of heartbeat gaps, 10 × median heartbeat gap): max(27 min, 5 min) = 27 min', suggested_ms: 27 * M, not_enough: null },
    would_flag: {
      current: { threshold_ms: 5 * M, runs: 2, of_runs: 9, examples: [{ order_id: 'ord-17', agent: 'fang', run: 'r17', max_gap_ms: 9.5 * M }, { order_id: 'ord-4', agent: 'wisp', run: 'r4', max_gap_ms: 8.2 * M }] },
      suggested: { threshold_ms: 27 * M, runs: 0, of_runs: 9, examples: [] },
    },
    stale_now: { total: 0, stopped: 0, no_heartbeat: 0 },
    lanes: LANES.map((lane) => ({ lane, count: 0, oldest: null, time_in_lane: EMPTY })),
    ...over,
  };
}

const html = (el: Parameters<typeof renderToStaticMarkup>[0]) => renderToStaticMarkup(el);
/** The text content of the markup, tags dropped and entities of apostrophes decoded. */
const text = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/&#x27;|&#39;/g, "'").replace(/\s+/g, ' ');

describe('DurationHistogram', () => {
  const marks = [
    { ms: 5 * M, label: 'stale after 5 min', kind: 'current' as const },
    { ms: 27 * M, label: 'suggested 27 min', kind: 'suggested' as const },
  ];
  const markup = html(createElement(DurationHistogram, { id: 'g', title: 'gaps', dist: GAPS, noun: ['gap', 'gaps'], marks }));

  it('draws one bar per non-empty bucket and labels both threshold lines, the suggested one dashed', () => {
    expect(markup.match(/<rect /g)).toHaveLength(3);
    expect(markup).toContain('stale after 5 min');
    expect(markup).toContain('suggested 27 min');
    expect(markup).toMatch(/data-mark="suggested"><line[^>]*stroke-dasharray="5 4"/);
    expect(markup).not.toMatch(/data-mark="current"><line[^>]*stroke-dasharray/);
  });

  it('puts a line where the log scale puts its duration: 5 min on 1 s … 1 h', () => {
    // Before measuring, the chart is 640 px wide; left margin 14 + 7 × digits of the tallest
    // bucket (30: 2) = 28, right 12, so the plot is 600 px. Both lines fit in 1 s … 1 h (27 min
    // × 1.25 < 1 h), so x(5 min) = 600 × log(300 s / 1 s) / log(3600 s / 1 s).
    const expected = (600 * Math.log(300)) / Math.log(3600);
    const m = /data-mark="current"><line class="[^"]*" x1="([\d.]+)"/.exec(markup);
    expect(Number(m?.[1])).toBeCloseTo(expected, 3);
  });

  it('marks the axis in words and says the chart in its description', () => {
    for (const t of ['1 s', '5 s', '30 s', '1 min', '5 min', '30 min', '1 h']) expect(markup).toContain(`>${t}</tspan>`);
    expect(text(markup)).toContain(
      '40 gaps on a log scale from 1 s to 1 h; median 30 s; 90th percentile 1 min; 99th percentile 9 min; longest 9 min 30 s; a solid line at 5 min: stale after 5 min; a dashed line at 27 min: suggested 27 min.',
    );
    expect(markup).toMatch(/role="img" aria-labelledby="g-title g-desc"/);
  });
});

describe('the page', () => {
  it('says the share beyond the threshold, the suggestion with its rule, and what each threshold would have flagged', () => {
    const t = text(html(createElement(TuningReportView, { r: report(), now: 1_800_000_000_000 })));
    expect(t).toContain('2 gaps (5 %) were longer than the threshold (5 min).');
    expect(t).toContain('Suggested threshold: 27 min');
    expect(t).toContain('max(27 min, 5 min) = 27 min');
    expect(t).toContain('claimboard serve --stale-after 1620');
    expect(t).toContain('At the threshold in force (5 min) 2 of 9 runs would have shown as stale at least once.');
    expect(t).toContain('At the suggested threshold (27 min) 0 of 9 runs would have shown as stale at least once.');
    expect(t).toContain('observed by this index since 1 h ago');
  });

  it('says which stale cards of the board the flagged runs leave out, and why', () => {
    const t = text(html(createElement(TuningReportView, { r: report({ stale_now: { total: 5, stopped: 3, no_heartbeat: 2 } }), now: 1_800_000_000_000 })));
    expect(t).toContain(
      "The board's Stale lane holds 5 cards now, not counted above: 3 runs that stopped (the gap since their last heartbeat is still open: a gap counts here once the next heartbeat arrives) and 2 claims with no heartbeat ever (no gap to measure).",
    );
    expect(text(html(createElement(TuningReportView, { r: report(), now: 1_800_000_000_000 })))).not.toContain('Stale lane holds');
  });

  it('links the example runs to their orders', () => {
    const markup = html(createElement(TuningReportView, { r: report(), now: 1_800_000_000_000 }));
    expect(markup).toContain('href="/orders/ord-17"');
    expect(markup).toContain('href="/orders/ord-4"');
  });

  it('says "Not enough data yet" instead of a chart for an empty channel', () => {
    const empty = report({
      gaps: { ...EMPTY, beyond_threshold: 0, share_beyond: null, observed_since_ms: null },
      runs: EMPTY,
      suggestion: { rule: 'r', suggested_ms: null, not_enough: 'only 0 heartbeat gaps observed; the suggestion needs 30.' },
      would_flag: { current: { threshold_ms: 5 * M, runs: 0, of_runs: 0, examples: [] }, suggested: null },
    });
    const markup = html(createElement(TuningReportView, { r: empty, now: 1_800_000_000_000 }));
    expect(markup).not.toContain('<svg');
    const t = text(markup);
    expect(t).toContain('Not enough data yet: no run’s heartbeat has arrived here twice');
    expect(t).toContain('Not enough data yet: no run in this channel has both a claim and a result yet');
    expect(t).toContain('Not enough data yet: the channel has no orders');
    expect(t).toContain('No suggestion yet. Only 0 heartbeat gaps observed; the suggestion needs 30.');
  });

  it('says "Not enough data yet" for a tiny channel (3 gaps), with its figures still listed', () => {
    const tiny = report({
      gaps: { ...dist([{ lo_ms: 25 * S, hi_ms: 32 * S, n: 3 }], { p50_ms: 30 * S, p90_ms: 31 * S, p99_ms: 31 * S, max_ms: 31 * S }), beyond_threshold: 0, share_beyond: 0, observed_since_ms: 1 },
    });
    const t = text(html(createElement(TuningReportView, { r: tiny, now: 1_800_000_000_000 })));
    expect(t).toContain('Not enough data yet: only 3 heartbeat gaps observed so far; a distribution needs at least 5.');
    expect(t).toContain('No gap was longer than the threshold (5 min).');
    expect(t).toContain('median (p50) 30 s');
  });

  it('lists each lane with its count and oldest card, linked', () => {
    const lanes = report().lanes.map((l) =>
      l.lane === 'stale' ? { ...l, count: 4, oldest: { order_id: 'ord-9', age_ms: 2 * 60 * M + 5 * M }, time_in_lane: dist([{ lo_ms: 20 * M, hi_ms: 25 * M, n: 3 }, { lo_ms: 2 * 60 * M, hi_ms: 2.5 * 60 * M, n: 1 }], { p50_ms: 22 * M, p90_ms: 125 * M, p99_ms: 125 * M, max_ms: 125 * M }) } : l,
    );
    const markup = html(createElement(TuningReportView, { r: report({ lanes }), now: 1_800_000_000_000 }));
    expect(markup).toContain('href="/orders/ord-9"');
    const row = text(/<tr data-lane-age="stale">.*?<\/tr>/.exec(markup)?.[0] ?? '');
    expect(row).toContain('Stale 4 ord-9 for 2 h 5 min 22 min');
    expect(row).toContain('Stale: 4 cards, 90 % there under 2 h 5 min, the longest 2 h 5 min');
  });
});

describe('the agent page', () => {
  it('draws its gaps with the threshold line and its runs, compact', () => {
    const markup = html(createElement(AgentTuningView, { r: report({ agent: 'fang', lanes: [] }) }));
    expect(markup.match(/<svg [^>]*role="img"/g)).toHaveLength(2);
    expect(markup).toContain('height="150"');
    expect(text(markup)).toContain('40 gaps: median 30 s, p99 9 min, longest 9 min 30 s.');
    expect(markup).toContain('stale after 5 min');
  });
});
