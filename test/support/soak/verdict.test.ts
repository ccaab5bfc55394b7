/**
 * The soak's judgements on hand-made records: each check finds the miss it is meant to find
 * (so a soak that passes says something), and lets pass what the server is allowed to do
 * (`all: true`, a reconnect's hello).
 */
import { describe, expect, it } from 'vitest';
import type { FeedRow, Notice } from './clients';
import type { SoakWrite } from './fleet';
import { feedMisses, firstRows, growth, percentiles, streamGaps, unheard } from './verdict';

const row = (seq: number, order_id: string, at_ms: number): FeedRow => ({ seq, order_id, at_ms });
const hello = (seq: number, atMs = 0): Notice => ({ atMs, seq, orders: null, kind: 'hello' });
const changed = (seq: number, orders: string[] | null, atMs = 0): Notice => ({ atMs, seq, orders, kind: 'changed' });
const write = (orderId: string | null, startMs: number): SoakWrite => ({ kind: 'heartbeat', rel: `tasks/${orderId}/heartbeat.w.json`, orderId, startMs, ctimeMs: startMs });

// The feed after the clients connected at seq 10: rows 11..14.
const ROWS = [row(11, 'a', 1000), row(12, 'b', 1010), row(13, 'a', 2000), row(14, 'c', 3000)];

describe('streamGaps', () => {
  it('nothing missed when each event names the orders of its range', () => {
    expect(streamGaps([hello(10), changed(12, ['a', 'b']), changed(14, ['a', 'c'])], ROWS)).toEqual([]);
  });
  it('all: true covers its whole range', () => {
    expect(streamGaps([hello(10), changed(14, null)], ROWS)).toEqual([]);
  });
  it('a row of a range whose event does not name its order is missed', () => {
    expect(streamGaps([hello(10), changed(12, ['a']), changed(14, ['a', 'c'])], ROWS)).toEqual([{ row: ROWS[1], why: 'not named' }]);
  });
  it('rows after the last event are never covered', () => {
    expect(streamGaps([hello(10), changed(12, ['a', 'b'])], ROWS)).toEqual([
      { row: ROWS[2], why: 'never covered' },
      { row: ROWS[3], why: 'never covered' },
    ]);
  });
  it('a reconnect covers every row up to its hello (the page refetches everything)', () => {
    expect(streamGaps([hello(10), changed(11, ['a']), hello(13), changed(14, ['c'])], ROWS)).toEqual([]);
  });
  it("a '*' row needs an event for everything", () => {
    const rows = [row(11, '*', 1000)];
    expect(streamGaps([hello(10), changed(11, ['a'])], rows)).toEqual([{ row: rows[0], why: 'not named' }]);
    expect(streamGaps([hello(10), changed(11, null)], rows)).toEqual([]);
  });
});

describe('firstRows, feedMisses, unheard', () => {
  const writes = [write('a', 900), write('a', 1500), write('b', 1005), write('c', 3500), write(null, 100)];
  const first = firstRows(writes, ROWS);
  it('each write is carried by the first row of its order committed at or after it', () => {
    expect(first.map((r) => r?.seq ?? null)).toEqual([11, 13, 12, null, null]);
  });
  it('a write with no row of its order after it is a feed miss; a channel-level write is not judged', () => {
    expect(feedMisses(writes, first)).toEqual([writes[3]]);
  });
  it("a '*' row carries every order's writes", () => {
    const f = firstRows([write('c', 3500)], [...ROWS, row(15, '*', 4000)]);
    expect(f.map((r) => r?.seq)).toEqual([15]);
  });
  it('a client that heard of each order at or after its row heard everything; one whose last notice of a is older missed a write', () => {
    expect(unheard([hello(10), changed(12, ['a', 'b']), changed(14, ['a', 'c'])], writes, first)).toEqual([]);
    // a's second write is carried by row 13; this client's last notice naming a is seq 12.
    expect(unheard([hello(10), changed(12, ['a', 'b']), changed(14, ['c'])], writes, first)).toEqual([writes[1]]);
    expect(unheard([hello(10), changed(14, null)], writes, first)).toEqual([]);
  });
});

describe('growth and percentiles', () => {
  it('growth per process name and in total, in % of the first sample', () => {
    const g = growth(
      [
        { pid: 1, name: 'serve', rssKb: 100_000, fds: 20 },
        { pid: 2, name: 'next', rssKb: 200_000, fds: 80 },
      ],
      [
        { pid: 1, name: 'serve', rssKb: 110_000, fds: 20 },
        { pid: 2, name: 'next', rssKb: 190_000, fds: 100 },
      ],
    );
    expect(g.perProcess.map((p) => [p.name, p.rssPct, p.fdsPct])).toEqual([
      ['serve', 10, 0],
      ['next', -5, 25],
    ]);
    expect(g.total.rssPct).toBe(0); // 300,000 -> 300,000 kB
    expect(g.total.fdsPct).toBe(20); // 100 -> 120
  });
  it('nearest-rank percentiles', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
    expect(percentiles(xs)).toEqual({ n: 100, p50: 50, p95: 95, max: 100 });
    expect(percentiles([]).n).toBe(0);
  });
});
