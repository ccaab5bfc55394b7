/** The history page's URL, its sub-rows, its axis and a hold in words (history.ts). */
import { describe, expect, it } from 'vitest';
import { closerWindow, fitWords, historySearch, holdWords, packRows, parseHistoryParams, timeTicks } from './history';
import type { HoldRow } from '../ledger/holds';

const get = (s: string) => {
  const p = new URLSearchParams(s);
  return { get: (k: string) => p.get(k) };
};

describe('the URL', () => {
  it('reads a range or a from-to pair and a query; writes them back in one order (no window: none written, the server fits it)', () => {
    expect(parseHistoryParams(get('range=7d&q=agent:fang'))).toEqual({ range: '7d', q: 'agent:fang' });
    expect(parseHistoryParams(get('from=1000&to=2000&range=7d'))).toEqual({ from: 1000, to: 2000 });
    expect(parseHistoryParams(get('from=2000&to=1000&range=week&q=%20'))).toEqual({});
    expect(parseHistoryParams(get('range=1h'))).toEqual({ range: '1h' });
    expect(historySearch({ range: '24h' })).toBe('range=24h');
    expect(historySearch({ q: 't1' })).toBe('q=t1');
    expect(historySearch({ range: '30d', q: 'project:atlas t1' })).toBe('range=30d&q=project%3Aatlas+t1');
    expect(historySearch({ from: 1000.4, to: 2000, range: '7d' })).toBe('from=1000&to=2000');
  });
});

describe('fitWords', () => {
  const from = 1_000_000;
  const fitted = { range: '1h' as const, fitted: true, total: 2, from_ms: from, holds: [{ claimed_ms: from + 10 }, { claimed_ms: from + 20 }] };
  it('says which range was fitted and why; nothing when the window was asked for', () => {
    expect(fitWords(fitted)).toBe("Fitted to the holds: the last hour is the shortest window in which every hold of the last 30 days begins (its claim's arrival here).");
    expect(fitWords({ ...fitted, fitted: false })).toBeNull();
    expect(fitWords({ ...fitted, range: '30d', total: 0, holds: [] })).toBe('Fitted to the holds: none in the last 30 days, so the longest window is shown.');
    expect(fitWords({ ...fitted, range: '30d', holds: [{ claimed_ms: from - 1 }] })).toBe('Fitted to the holds: one began before the last 30 days, so the longest window is shown and its bar runs in from the left edge.');
    expect(fitWords({ ...fitted, range: '30d' })).toBe("Fitted to the holds: the last 30 days is the shortest window in which every hold of the last 30 days begins (its claim's arrival here).");
  });
});

describe('closerWindow', () => {
  const M = 60_000;
  const w = { from_ms: 0, to_ms: 60 * M };
  it('offers from a tenth of the holds\' span before the earliest claim to now when they fill under a quarter of the window', () => {
    expect(closerWindow([{ claimed_ms: 50 * M }, { claimed_ms: 55 * M }], w, 60 * M)).toEqual({ from_ms: 49 * M, to_ms: 60 * M });
    // Seconds old: a minute at least.
    expect(closerWindow([{ claimed_ms: 60 * M - 7_000 }], w, 60 * M)).toEqual({ from_ms: 59 * M, to_ms: 60 * M });
  });
  it('offers none when the holds fill a quarter or more, there is none, or now is outside the window', () => {
    expect(closerWindow([{ claimed_ms: 45 * M }], w, 60 * M)).toBeNull();
    expect(closerWindow([{ claimed_ms: -5 * M }], w, 60 * M)).toBeNull(); // began before the window: all of it is theirs
    expect(closerWindow([], w, 60 * M)).toBeNull();
    expect(closerWindow([{ claimed_ms: 50 * M }], w, 61 * M)).toBeNull();
  });
});

describe('packRows', () => {
  it('puts each hold in the first sub-row free when it begins; one still held runs to now', () => {
    const holds = [
      { claimed_ms: 0, ended_ms: 100 },
      { claimed_ms: 50, ended_ms: null }, // held: to now (1000)
      { claimed_ms: 100, ended_ms: 200 }, // sub-row 0 ends at 100, not before 100: a third row
      { claimed_ms: 150, ended_ms: 300 },
      { claimed_ms: 201, ended_ms: 250 },
    ];
    expect(packRows(holds, 1000)).toEqual({ row: [0, 1, 2, 0, 2], rows: 3 });
    expect(packRows([], 1000)).toEqual({ row: [], rows: 1 });
    // Drawn at least 60 ms wide: an instant's hold takes its place, a hold starting within it another row.
    expect(packRows([{ claimed_ms: 0, ended_ms: 1 }, { claimed_ms: 30, ended_ms: 500 }, { claimed_ms: 61, ended_ms: 70 }], 1000, 60)).toEqual({ row: [0, 1, 0], rows: 2 });
  });
});

describe('timeTicks', () => {
  const day = Date.parse('2026-11-20T00:00:00Z');
  it('round UTC instants, at most as many as asked: hours with the date at midnight, days for long windows', () => {
    expect(timeTicks({ from_ms: day - 2 * 3_600_000, to_ms: day + 4 * 3_600_000 }, 4)).toEqual([
      { ms: day, label: 'Nov 20' },
      { ms: day + 3 * 3_600_000, label: '03:00' },
    ]);
    expect(timeTicks({ from_ms: day, to_ms: day + 7 * 86_400_000 }, 4).map((t) => t.label)).toEqual(['Nov 20', 'Nov 22', 'Nov 24', 'Nov 26']);
  });
});

describe('holdWords', () => {
  it('says both clocks of each end, how long, the silences, and a result delivered by a hold that did not finish', () => {
    const h: HoldRow = {
      order_id: 't1',
      agent: 'fang',
      project_id: 'demo',
      run: null,
      claimed_ms: Date.parse('2026-11-20T09:05:02Z'),
      claimed_at: '2026-11-20T11:05:00+02:00',
      ended_ms: Date.parse('2026-11-20T10:05:02Z'),
      ended_at: '2026-11-20T09:40:00Z',
      ending: 'requeued',
      ended_by: 'ops',
      reason: 'requeued: stale',
      beat_ms: null,
      beat_at: null,
      delivered: true,
      silences: [{ from_ms: Date.parse('2026-11-20T09:05:02Z'), to_ms: Date.parse('2026-11-20T10:05:02Z') }],
      silent_ms: 3_600_000,
    };
    expect(holdWords(h, 0)).toBe(
      'fang on t1: released by ops: requeued: stale. claimed: arrived here 2026-11-20 09:05:02 UTC; fang\'s clock 2026-11-20 09:05:00 UTC. ended: arrived here 2026-11-20 10:05:02 UTC; ops\'s clock 2026-11-20 09:40:00 UTC; held 1 h. silent 1 h in one stretch (nothing of its run arrived here). it delivered a result.',
    );
  });
});
