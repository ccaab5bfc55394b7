/**
 * Holds (holds.ts) on the conformance vectors, with arrivals a test story gives each file: every
 * hold listed by hand from the files, its ending, who ended it and why, its arrivals and the
 * writers' clocks beside them.
 */
import { describe, expect, it } from 'vitest';
import { deriveChannel, type ChannelEntry } from './channel';
import { holdRow, lastSilence, orderHolds, type Hold } from './holds';
import { nodeVerify } from '../index/disk/node-verify';
import { vectorEntries } from '../../test/support/vectors';
import { ChannelBuilder } from '../../test/support/channel-builder';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const S = 1000;

/** The holds of each order of a vector, every file arriving at NOW except those `ages` (seconds before NOW) name. */
function vectorHolds(vector: string, ages: Record<string, number> = {}): Record<string, Hold[]> {
  const entries: ChannelEntry[] = vectorEntries(vector, NOW).map((e) => (ages[e.path] !== undefined ? { ...e, arrivalMs: NOW - (ages[e.path] as number) * S } : e));
  const state = deriveChannel(entries, { nowMs: NOW, staleAfterMs: 300 * S, verify: nodeVerify });
  return Object.fromEntries([...state.views.entries()].map(([id, v]) => [id, orderHolds(v, v.card)]));
}

/** A hold with the fields most have: project demo, no run, nothing delivered. */
const hold = (h: Partial<Hold> & Pick<Hold, 'order_id' | 'agent' | 'claimed_ms' | 'ending'>): Hold => ({
  project_id: 'demo',
  run: null,
  claimed_at: '2026-11-20T09:05:00Z',
  ended_ms: null,
  ended_at: null,
  ended_by: null,
  reason: '',
  beat_ms: null,
  beat_at: null,
  delivered: false,
  ...h,
});

describe('orderHolds on the vectors', () => {
  it('08: a worker releasing its own claim ends its hold when the release arrives here', () => {
    expect(vectorHolds('08-self-release', { 'tasks/t1/claim.fang.json': 2400, 'tasks/t1/release.fang.json': 300 })).toEqual({
      t1: [hold({ order_id: 't1', agent: 'fang', claimed_ms: NOW - 2400 * S, ending: 'released_self', ended_ms: NOW - 300 * S, ended_at: '2026-11-20T09:40:00Z', ended_by: 'fang', reason: 'worker died mid-run' })],
    });
  });

  it('09: a result ends it as finished, at its revision', () => {
    expect(vectorHolds('09-done', { 'tasks/t1/claim.fang.json': 1800 })).toEqual({
      t1: [hold({ order_id: 't1', agent: 'fang', claimed_ms: NOW - 1800 * S, ending: 'finished', ended_ms: NOW, ended_at: '2026-11-20T09:30:00Z', ended_by: 'fang', reason: 'revision 1', delivered: true })],
    });
  });

  it('11: a give-up ends it, acknowledged or not; a reopened give-up leaves the hold going', () => {
    const run = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    expect(vectorHolds('11-give-up-ack-reopen', { 'tasks/g1/claim.fang.json': 3600, 'tasks/g2/claim.wisp.json': 3600, 'tasks/g3/claim.nebra.json': 3600 })).toEqual({
      g1: [hold({ order_id: 'g1', agent: 'fang', claimed_ms: NOW - 3600 * S, ending: 'gave_up', ended_ms: NOW, ended_at: '2026-11-20T09:50:00Z', ended_by: 'fang', reason: 'run pruned; delivery unknown' })],
      g2: [hold({ order_id: 'g2', agent: 'wisp', claimed_ms: NOW - 3600 * S, ending: 'gave_up', ended_ms: NOW, ended_at: '2026-11-20T09:50:00Z', ended_by: 'wisp', reason: 'retry ceiling reached' })],
      g3: [hold({ order_id: 'g3', agent: 'nebra', claimed_ms: NOW - 3600 * S, ending: 'held', run, beat_ms: NOW - 10 * S, beat_at: '2026-11-20T09:06:00Z' })],
    });
  });

  it('12: a reopened result leaves the hold going; a result at a later revision still finishes it', () => {
    const got = vectorHolds('12-reopen-done');
    expect(got.t1?.map((h) => [h.agent, h.ending, h.ended_ms, h.delivered])).toEqual([['fang', 'held', null, true]]);
    expect(got.t2?.map((h) => [h.agent, h.ending, h.ended_ms, h.reason])).toEqual([['fang', 'finished', NOW, 'revision 2']]);
  });

  it('13: a retire release ends it as retired, by the operator; the retired agent still holding t2 is held', () => {
    expect(vectorHolds('13-retired', { 'tasks/t1/claim.fang.json': 7200, 'tasks/t1/release.ops.fang.json': 600 })).toEqual({
      t1: [hold({ order_id: 't1', agent: 'fang', claimed_ms: NOW - 7200 * S, ending: 'retired', ended_ms: NOW - 600 * S, ended_at: '2026-11-20T09:40:00Z', ended_by: 'ops', reason: 'retired' })],
      t2: [hold({ order_id: 't2', agent: 'fang', claimed_ms: NOW - 10 * S, claimed_at: '2026-11-20T11:30:00Z', ending: 'held' })],
    });
  });

  it('14: a claim that arrived first and lost to an older claim on its writer\'s clock held until that claim arrived', () => {
    const got = vectorHolds('14-double-run', { 'tasks/t1/claim.wisp.json': 60, 'tasks/t1/claim.fang.json': 30 });
    const run = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    expect(got.t1).toEqual([
      hold({ order_id: 't1', agent: 'fang', claimed_ms: NOW - 30 * S, ending: 'held', run, beat_ms: NOW - 5 * S, beat_at: '2026-11-20T09:06:00Z' }),
      hold({
        order_id: 't1',
        agent: 'wisp',
        claimed_ms: NOW - 60 * S,
        claimed_at: '2026-11-20T09:05:00.2Z',
        ending: 'lost',
        ended_ms: NOW - 30 * S,
        ended_at: '2026-11-20T09:05:00Z',
        ended_by: 'fang',
        reason: 'fang holds it',
        run,
        beat_ms: NOW - 5 * S,
        beat_at: '2026-11-20T09:06:00Z',
      }),
    ]);
  });

  it('15: whichever arrives first ends it: the operator\'s release (a re-queue), or the late result', () => {
    const base = { 'tasks/t1/claim.fang.json': 3000 };
    const released = vectorHolds('15-late-result', { ...base, 'tasks/t1/release.ops.fang.json': 100, 'tasks/t1/result.fang.001.json': 50 }).t1?.[0];
    expect(released).toEqual(
      hold({ order_id: 't1', agent: 'fang', claimed_ms: NOW - 3000 * S, ending: 'requeued', ended_ms: NOW - 100 * S, ended_at: '2026-11-20T09:40:00Z', ended_by: 'ops', reason: 'requeued: stale', delivered: true }),
    );
    const finished = vectorHolds('15-late-result', { ...base, 'tasks/t1/release.ops.fang.json': 50, 'tasks/t1/result.fang.001.json': 100 }).t1?.[0];
    expect([finished?.ending, finished?.ended_ms, finished?.ended_at, finished?.ended_by, finished?.reason]).toEqual(['finished', NOW - 100 * S, '2026-11-20T09:30:00Z', 'fang', 'revision 1']);
    // Arriving together: the release first, as ferry reads a released claim.
    expect(vectorHolds('15-late-result', base).t1?.[0]?.ending).toBe('requeued');
  });

  it('16: an assignee\'s release of itself ends its hold when it did not run on after it', () => {
    expect(vectorHolds('16-released-assignee').t1?.map((h) => [h.agent, h.ending, h.ended_by, h.reason])).toEqual([['fang', 'released_self', 'fang', 'orphaned at startup']]);
  });
});

describe('orderHolds, endings the vectors lack', () => {
  it('a supersede ends the hold going when it arrives, by the operator, naming the new order', () => {
    const b = new ChannelBuilder()
      .roster()
      .order('w1', { assigned_to: 'wisp' }, { age: 900 })
      .claim('w1', 'wisp', { age: 800 })
      .signed('tasks/w1/supersede.ops.json', 'supersede', { order_id: 'w1', operator: 'ops', by: 'w1-2', reason: 'wisp is gone', at: '2026-11-20T12:00:00Z' }, 'ops', { age: 100 });
    const v = b.derive().views.get('w1');
    if (!v) throw new Error('no view');
    expect(orderHolds(v, v.card).map((h) => [h.agent, h.ending, h.ended_ms, h.ended_at, h.ended_by, h.reason])).toEqual([
      ['wisp', 'superseded', b.nowMs - 100 * S, '2026-11-20T12:00:00Z', 'ops', 'by w1-2: wisp is gone'],
    ]);
  });

  it('an assignee that released itself and ran on after (its heartbeat dated later on its own clock) still holds it', () => {
    const b = new ChannelBuilder()
      .roster()
      .order('a1', { assigned_to: 'fang' }, { age: 900 })
      .release('a1', 'fang', 'fang', { reason: 'orphaned at startup', ferrymanName: true, age: 700 })
      .claim('a1', 'fang', { age: 800 })
      .heartbeat('a1', 'fang', { at: '2026-11-20T09:45:00Z', age: 20 });
    const v = b.derive().views.get('a1');
    if (!v) throw new Error('no view');
    expect(orderHolds(v, v.card).map((h) => [h.agent, h.ending, h.ended_ms])).toEqual([['fang', 'held', null]]);
  });
});

describe('silences', () => {
  const h = hold({ order_id: 't1', agent: 'fang', claimed_ms: 1_000_000, ending: 'requeued', ended_ms: 2_000_000, beat_ms: 1_200_000 });

  it('the last one runs from the last heartbeat here to the end, when longer than stale_after; to now while held', () => {
    expect(lastSilence(h, 9_000_000, 300_000)).toEqual({ from_ms: 1_200_000, to_ms: 2_000_000 });
    expect(lastSilence(h, 9_000_000, 800_000)).toBeNull();
    expect(lastSilence({ ...h, ended_ms: null }, 3_000_000, 300_000)).toEqual({ from_ms: 1_200_000, to_ms: 3_000_000 });
    // No heartbeat: from the claim's arrival.
    expect(lastSilence({ ...h, beat_ms: null }, 9_000_000, 300_000)).toEqual({ from_ms: 1_000_000, to_ms: 2_000_000 });
    // A heartbeat that arrived after the end (a run going on after its release) leaves none.
    expect(lastSilence({ ...h, beat_ms: 2_100_000 }, 9_000_000, 300_000)).toBeNull();
  });

  it('a row has the silences the index saw inside the hold and longer than stale_after, then its last', () => {
    const seen = [
      { from_ms: 1_050_000, to_ms: 1_100_000 }, // 50 s: a heartbeat late, not a silence
      { from_ms: 1_100_000, to_ms: 1_550_000 }, // ends after the last heartbeat arrived: not before the last silence
      { from_ms: 500_000, to_ms: 900_000 }, // before the claim arrived
      { from_ms: 1_010_000, to_ms: 1_190_000 }, // 180 s
    ];
    const row = holdRow(h, [...seen, { from_ms: 1_010_000, to_ms: 1_190_000 + 200_000 }], 9_000_000, 150_000);
    expect(row.silences).toEqual([
      { from_ms: 1_010_000, to_ms: 1_190_000 },
      { from_ms: 1_200_000, to_ms: 2_000_000 },
    ]);
    expect(row.silent_ms).toBe(180_000 + 800_000);
  });
});
