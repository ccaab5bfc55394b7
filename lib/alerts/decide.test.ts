/**
 * The alert decision (decide.ts) on its rules: once per item and reason, a message per group,
 * the quiet period for sending and for resolving, a flapping item paging once, a new episode
 * after a resolution.
 */
import { describe, expect, it } from 'vitest';
import { decide, type OpenRow } from './decide';
import type { AlertItem } from './items';

const item = (order: string, kind: 'attention' | 'stale', reason: string): AlertItem => ({
  key: `${kind}:${order}:${reason}`,
  grp: `order:${order}:${kind}`,
  kind,
  order_id: order,
  path: null,
  reason,
});
const now = (...items: AlertItem[]) => new Map(items.map((i) => [i.key, i]));

/** Applies a decision to the open rows, as the store does (resolved rows leave the open set). */
function apply(open: readonly OpenRow[], d: ReturnType<typeof decide>): OpenRow[] {
  const m = new Map(open.map((r) => [r.key, r]));
  for (const r of d.put) m.set(r.key, r);
  for (const k of d.drop) m.delete(k);
  for (const g of d.resolve) for (const r of g.rows) m.delete(r.key);
  return [...m.values()];
}

describe('decide', () => {
  it('sends a new item at once without a quiet period, the flags of one order in one message, and never again', () => {
    const items = now(item('a', 'attention', 'gave_up'), item('a', 'attention', 'late_result'), item('b', 'stale', 'agent_silent'));
    const d = decide(items, [], 1000, 0);
    expect(d.send.map((g) => [g.grp, g.items.map((i) => i.reason)])).toEqual([
      ['order:a:attention', ['gave_up', 'late_result']],
      ['order:b:stale', ['agent_silent']],
    ]);
    expect(d.send.flatMap((g) => g.items.map((i) => i.sent_ms))).toEqual([1000, 1000, 1000]);
    const open = apply([], d);
    // The same items later (a restart reads the same rows): nothing to send, nothing to store.
    const again = decide(items, open, 5000, 0);
    expect(again).toEqual({ put: [], drop: [], send: [], resolve: [], wakeMs: null });
  });

  it('a new reason for an order already alerted sends that reason alone', () => {
    const first = decide(now(item('a', 'attention', 'gave_up')), [], 1000, 0);
    const open = apply([], first);
    const d = decide(now(item('a', 'attention', 'gave_up'), item('a', 'attention', 'double_run')), open, 2000, 0);
    expect(d.send.map((g) => g.items.map((i) => i.reason))).toEqual([['double_run']]);
  });

  it('waits out the quiet period on this clock, and forgets an item gone before it ends', () => {
    const it1 = item('a', 'stale', 'agent_silent');
    const d0 = decide(now(it1), [], 10_000, 60_000);
    expect(d0.send).toEqual([]);
    expect(d0.wakeMs).toBe(70_000); // first seen + 60 s
    let open = apply([], d0);
    expect(decide(now(it1), open, 69_999, 60_000).send).toEqual([]);
    const due = decide(now(it1), open, 70_000, 60_000);
    expect(due.send.map((g) => g.grp)).toEqual(['order:a:stale']);
    // Another run: gone at 30 s, before its quiet period ended: dropped, nothing sent or resolved.
    open = apply([], d0);
    const gone = decide(now(), open, 40_000, 60_000);
    expect(gone).toMatchObject({ drop: [it1.key], send: [], resolve: [] });
  });

  it('resolves a sent group once every item has been gone for the quiet period; one back before that keeps it open', () => {
    const a1 = item('a', 'attention', 'gave_up');
    const a2 = item('a', 'attention', 'double_run');
    let open = apply([], decide(now(a1, a2), [], 0, 0));
    // One flag goes while the other stays: no message, the gone one is marked.
    const d1 = decide(now(a2), open, 1000, 5000);
    expect(d1.send).toEqual([]);
    expect(d1.resolve).toEqual([]);
    expect(d1.put).toEqual([expect.objectContaining({ key: a1.key, gone_ms: 1000 })]);
    open = apply(open, d1);
    // Both gone at 2 s: the group resolves 5 s after the last went, not before.
    const d2 = decide(now(), open, 2000, 5000);
    expect(d2.resolve).toEqual([]);
    expect(d2.wakeMs).toBe(7000);
    open = apply(open, d2);
    // Back at 4 s (flapping): the gone marks are cleared, nothing sent.
    const d3 = decide(now(a1, a2), open, 4000, 5000);
    expect(d3.send).toEqual([]);
    expect(d3.put.map((r) => [r.key, r.gone_ms])).toEqual([
      [a1.key, null],
      [a2.key, null],
    ]);
    open = apply(open, d3);
    // Gone for good at 10 s: resolved at 15 s, one group with both rows.
    open = apply(open, decide(now(), open, 10_000, 5000));
    const d5 = decide(now(), open, 15_000, 5000);
    expect(d5.resolve.map((g) => [g.grp, g.rows.map((r) => r.reason).sort()])).toEqual([['order:a:attention', ['double_run', 'gave_up']]]);
  });

  it('an item back after its group was resolved is a new episode, sent again', () => {
    const s = item('a', 'stale', 'no_heartbeat');
    let open = apply([], decide(now(s), [], 0, 0));
    // Gone, with no quiet period: marked gone and resolved in the same decision.
    const r = decide(now(), open, 1000, 0);
    expect(r.resolve.map((g) => [g.grp, g.rows.map((x) => x.gone_ms)])).toEqual([['order:a:stale', [1000]]]);
    open = apply(open, r);
    expect(open).toEqual([]);
    const back = decide(now(s), open, 2000, 0);
    expect(back.send.map((g) => g.items.map((i) => [i.key, i.first_seen_ms]))).toEqual([[[s.key, 2000]]]);
  });

  it('a group with a sent item gone and a new item in its quiet period is not resolved; the new one is sent when due', () => {
    const a1 = item('a', 'attention', 'gave_up');
    const a2 = item('a', 'attention', 'bad_record');
    let open = apply([], decide(now(a1), [], 0, 1000)); // pending
    open = apply(open, decide(now(a1), open, 1000, 1000)); // sent at 1 s
    const d = decide(now(a2), open, 2000, 1000); // a1 gone, a2 new
    expect(d.resolve).toEqual([]);
    expect(d.send).toEqual([]);
    expect(d.wakeMs).toBe(3000);
    open = apply(open, d);
    const d2 = decide(now(a2), open, 3000, 1000);
    expect(d2.send.map((g) => g.items.map((i) => i.reason))).toEqual([['bad_record']]);
  });
});
