/**
 * An order's story (timeline.ts): interrupt acknowledgements (ferry's
 * `interrupt.<issuer>.<agent>.acked.json`, on the agent's clock) and supersede records are events
 * of their own, and an order issued to replace another says so.
 */
import { describe, expect, it } from 'vitest';
import { ChannelBuilder } from '../../test/support/channel-builder';
import { describeTarget, orderTimeline } from './timeline';
import { runDuration } from './holds';

function view(b: ChannelBuilder, id: string) {
  const v = b.derive().views.get(id);
  if (!v) throw new Error(`no view ${id}`);
  return v;
}

describe('orderTimeline', () => {
  it('an interrupt acknowledgement is an event by the agent, on its clock, naming the interrupt it saw', () => {
    const b = new ChannelBuilder()
      .roster()
      .order('k1', { assigned_to: 'fang' }, { age: 60 })
      .claim('k1', 'fang', { age: 50 })
      .signed('tasks/k1/interrupt.ops.json', 'interrupt', { order_id: 'k1', action: 'kill', note: 'Not wanted after all.', issued_by: 'ops', created_at: '2026-11-20T09:10:00Z' }, 'ops', { age: 40 })
      .json('tasks/k1/interrupt.ops.fang.acked.json', { acknowledged_at: '2026-11-20T09:12:30.700227738+00:00', agent: 'fang', issued_by: 'ops', order_id: 'k1' }, { age: 30 });
    const ev = orderTimeline(view(b, 'k1'));
    expect(ev.map((e) => e.kind)).toEqual(['order', 'claim', 'interrupt', 'interrupt_ack']);
    expect(ev[3]).toEqual({
      kind: 'interrupt_ack',
      writer: 'fang',
      writer_time: '2026-11-20T09:12:30.700227738+00:00',
      arrival_ms: b.nowMs - 30_000,
      summary: 'fang acknowledged ops\'s kill (“Not wanted after all.”) when its run started',
      path: 'tasks/k1/interrupt.ops.fang.acked.json',
      detail: { issued_by: 'ops' },
    });
  });

  it('a supersede record is the operator\'s event on the old order; the new order says whose work it does', () => {
    const b = new ChannelBuilder()
      .roster()
      .order('w1', { assigned_to: 'wisp' }, { age: 60 })
      .order('w1-2', { assigned_to: 'nebra', supersedes: 'w1', created_at: '2026-11-20T12:00:00Z' }, { age: 10 })
      .signed('tasks/w1/supersede.ops.json', 'supersede', { order_id: 'w1', operator: 'ops', by: 'w1-2', reason: 'wisp is gone', at: '2026-11-20T12:00:00Z' }, 'ops', { age: 10 });
    const old = orderTimeline(view(b, 'w1'));
    expect(old.map((e) => e.kind)).toEqual(['order', 'supersede']);
    expect(old[1]).toEqual({
      kind: 'supersede',
      writer: 'ops',
      writer_time: '2026-11-20T12:00:00Z',
      arrival_ms: b.nowMs - 10_000,
      summary: 'ops superseded it by w1-2: wisp is gone',
      path: 'tasks/w1/supersede.ops.json',
      detail: { by: 'w1-2', reason: 'wisp is gone' },
    });
    const neu = orderTimeline(view(b, 'w1-2'));
    expect(neu[0]?.summary).toBe("ops issued w1-2 to nebra, to do w1's work");
    expect(neu[0]?.detail).toEqual({ project: 'demo', requires_review: false, supersedes: 'w1' });
    // An order that replaces nothing has no such field.
    expect(old[0]?.detail).toEqual({ project: 'demo', requires_review: false });
  });
});

describe('runDuration', () => {
  const result = (b: ChannelBuilder, order: string, agent: string, revision: number, submitted_at: string) =>
    b.signed(`tasks/${order}/result.${agent}.${String(revision).padStart(3, '0')}.json`, 'result', { order_id: order, agent, revision, submitted_at, payload: { summary: 'done' } }, agent);
  const runs = (b: ChannelBuilder, id: string) => {
    const v = view(b, id);
    return v.folder.claims.map((c) => [c.record.agent, runDuration(v, c.record.agent, c.record.claimed_at)]);
  };

  it('is claimed_at to the same agent\'s earliest result, both its own clock, offsets applied', () => {
    const b = new ChannelBuilder().roster().order('r1').claim('r1', 'fang', { claimed_at: '2026-11-20T11:05:00+02:00' });
    result(b, 'r1', 'fang', 2, '2026-11-20T10:00:00Z');
    result(b, 'r1', 'fang', 1, '2026-11-20T09:30:00.250Z');
    // 09:05Z to 09:30:00.250Z (revision 2 at 10:00 came later): 25 min and 250 ms
    expect(runs(b, 'r1')).toEqual([['fang', 25 * 60_000 + 250]]);
  });

  it('is null without a result by that agent, and when the result is dated before the claim', () => {
    const b = new ChannelBuilder().roster().order('r2').claim('r2', 'fang').claim('r2', 'wisp', { claimed_at: '2026-11-20T09:40:00Z' });
    result(b, 'r2', 'wisp', 1, '2026-11-20T09:30:00Z');
    // fang delivered nothing; wisp's result says 09:30, ten minutes before its own claim
    expect(runs(b, 'r2')).toEqual([
      ['fang', null],
      ['wisp', null],
    ]);
  });
});

describe('describeTarget', () => {
  it('says what a target names: a late result open or held, and each of several an ack names', () => {
    expect(describeTarget('late:1:fang:open')).toBe('the late result by fang at revision 1 (order open)');
    expect(describeTarget('late:2:fang,wisp:held:nebra')).toBe('the late results by fang, wisp at revision 2 (held by nebra)');
    expect(describeTarget('giveup:0123456789abcdef late:1:wisp:held:fang')).toBe('the give-up 0123456789ab… and the late result by wisp at revision 1 (held by fang)');
    expect(describeTarget('result:3')).toBe('the result at revision 3');
  });
});
