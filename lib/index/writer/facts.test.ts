/**
 * The channel-wide facts without SQLite (facts.ts): settle re-applies dependencies and stale
 * reasons to the cards a change touches, round after round, and says when it stopped at
 * MAX_SETTLE_ROUNDS. The stored cards are a Map here.
 */
import { describe, expect, it } from 'vitest';
import { ChannelFacts, fingerprint, MAX_SETTLE_ROUNDS, type SettleCards, type StoredOrders } from './facts';
import type { Card } from '../../ledger/derive';

/** A card with the given fields; the rest as an unclaimed order with no flags would have them. */
function card(over: Partial<Card> & Pick<Card, 'order_id' | 'state' | 'lane'>): Card {
  return {
    holder: null,
    flags: [],
    project_id: 'p',
    assigned_to: null,
    issued_by: 'ops',
    created_at: '2026-11-20T09:00:00Z',
    depends_on: [],
    requires_review: false,
    latest_revision: null,
    holder_fresh: null,
    heartbeat: null,
    missing_dependencies: [],
    other_runs: [],
    late_results: [],
    ferry: { state: 'open', holder: null },
    alerts: [],
    notes: [],
    ...over,
  };
}

/**
 * Cards stored as JSON in a Map, each write told to the facts as the indexer's writer does (what
 * was known of the order looked up before the write); the facts read the finished orders, which
 * memory does not keep, from the same Map (StoredOrders).
 */
function mapStore(cards: readonly Card[]): SettleCards & { facts: ChannelFacts; get(id: string): Card; delete(id: string): void; writes: number } {
  const rows = new Map<string, { card: string; order_dir: string; next_ms: number | null }>();
  const parsed = (id: string) => {
    const r = rows.get(id);
    return r ? (JSON.parse(r.card) as Card) : undefined;
  };
  const stored: StoredOrders = {
    info: (id) => {
      const r = rows.get(id);
      const c = parsed(id);
      return r && c ? { id, dir: r.order_dir, state: c.state, lane: c.lane, holder: c.holder, fp: fingerprint(r.card) } : undefined;
    },
    idIn: (dir) => [...rows].find(([, r]) => r.order_dir === dir)?.[0],
    dependentsOf: (id) => [...rows.keys()].filter((k) => parsed(k)?.depends_on.includes(id)),
    ids: () => [...rows.keys()],
    orderDirs: () => [...rows.values()].map((r) => r.order_dir),
    doneDirsHeldByOrNone: (names) => [...rows.keys()].filter((k) => parsed(k)?.lane === 'done' && (parsed(k)?.holder == null || names.has(parsed(k)?.holder ?? ''))),
  };
  const facts = new ChannelFacts(stored);
  const put = (c: Card, next: number | null) => {
    const json = JSON.stringify(c);
    const prev = facts.lookup(c.order_id);
    rows.set(c.order_id, { card: json, order_dir: c.order_id, next_ms: next });
    facts.noteStored(c, c.order_id, fingerprint(json), prev);
  };
  for (const c of cards) put(c, null);
  const store = {
    facts,
    writes: 0,
    read: (id: string) => rows.get(id),
    write: (c: Card, _dir: string, next: number | null) => {
      store.writes++;
      put(c, next);
    },
    get: (id: string) => JSON.parse(rows.get(id)?.card ?? 'null') as Card,
    delete: (id: string) => void rows.delete(id),
  };
  return store;
}

const CTX = { nowMs: 10_000, staleAfterMs: 3_000 };

describe('ChannelFacts.settle', () => {
  it('opens an order whose dependency is done, and looks at its own dependents once more', () => {
    const cards = mapStore([
      card({ order_id: 'a', state: 'done', lane: 'done' }),
      card({ order_id: 'b', state: 'blocked', lane: 'queue', depends_on: ['a'] }),
      card({ order_id: 'c', state: 'blocked', lane: 'queue', depends_on: ['b'] }),
    ]);
    const { facts } = cards;
    facts.takeChanged();
    facts.settle(true, CTX, cards); // every card once: the state the stored cards started in
    facts.takeChanged();
    expect(cards.get('b').state).toBe('open'); // a is done
    expect(cards.get('c').state).toBe('blocked'); // b is open, not done
    // a is reopened (its card says open now): b waits for it again, and c is looked at in the next round.
    cards.write(card({ order_id: 'a', state: 'open', lane: 'queue' }), 'a', null);
    const before = cards.writes;
    const out = facts.settle(false, CTX, cards);
    expect(cards.get('b').state).toBe('blocked');
    expect(cards.get('c').state).toBe('blocked');
    // Round 1: b (a's dependent) rewritten; round 2: c (b's dependent) unchanged, nothing written.
    expect(out).toEqual({ rounds: 2, unsettled: [] });
    expect(cards.writes - before).toBe(1);
    expect([...facts.takeChanged()].sort()).toEqual(['a', 'b']);
  });

  it('flags a dependency that is no order of the channel, and drops the flag when it appears', () => {
    const cards = mapStore([card({ order_id: 'd', state: 'open', lane: 'queue', depends_on: ['zz'] })]);
    const { facts } = cards;
    facts.settle(true, CTX, cards);
    expect(cards.get('d')).toMatchObject({ flags: ['missing_dependency'], missing_dependencies: ['zz'], lane: 'attention', state: 'blocked' });
    // zz is stored (a new order, done): its dependents are touched; d loses the flag and is open (zz is done).
    cards.write(card({ order_id: 'zz', state: 'done', lane: 'done' }), 'zz', null);
    facts.settle(false, CTX, cards);
    expect(cards.get('d')).toMatchObject({ flags: [], missing_dependencies: [], lane: 'queue', state: 'open' });
  });

  it("turns a stale claim's reason with its holder's latest arrival anywhere, and says when it may turn again", () => {
    const stale = card({ order_id: 's', state: 'stale', lane: 'stale', holder: 'fang', reason: 'heartbeat_lapsed', heartbeat: { arrival_ms: 1_000, at: '2026-11-20T09:00:00Z', run: 'r', pid: 1 } });
    const cards = mapStore([stale]);
    const { facts } = cards;
    // fang's latest file arrived at 5 000: 10 000 − 5 000 = 5 000 ms silent > 3 000: agent_silent.
    facts.touchWriter('fang');
    facts.updateTouchedWriters(() => 5_000);
    facts.settle(false, CTX, cards);
    expect(cards.get('s').reason).toBe('agent_silent');
    expect(cards.read('s')?.next_ms).toBe(null);
    // Then a file of fang's arrives at 8 000: 2 000 ms ≤ 3 000, heartbeat_lapsed until 8 000 + 3 000.
    facts.touchWriter('fang');
    facts.updateTouchedWriters(() => 8_000);
    facts.settle(false, CTX, cards);
    expect(cards.get('s').reason).toBe('heartbeat_lapsed');
    expect(cards.read('s')?.next_ms).toBe(11_000);
  });

  it("does the same for a rerun stale by its run (run_lane stale, the order's state not stale): the soak's 5 of 600", () => {
    const rerun = card({ order_id: 'r', state: 'changes_requested', run_lane: 'stale', lane: 'stale', holder: 'fang', reason: 'heartbeat_lapsed', heartbeat: { arrival_ms: 1_000, at: '2026-11-20T09:00:00Z', run: 'r2', pid: 1 } });
    const cards = mapStore([rerun]);
    const { facts } = cards;
    // As above: fang silent for 5 000 ms > 3 000 turns the reason; a file at 8 000 turns it back until 11 000.
    facts.touchWriter('fang');
    facts.updateTouchedWriters(() => 5_000);
    facts.settle(false, CTX, cards);
    expect(cards.get('r').reason).toBe('agent_silent');
    facts.touchWriter('fang');
    facts.updateTouchedWriters(() => 8_000);
    facts.settle(false, CTX, cards);
    expect(cards.get('r').reason).toBe('heartbeat_lapsed');
    expect(cards.read('r')?.next_ms).toBe(11_000);
  });

  it(`stops after ${MAX_SETTLE_ROUNDS} rounds when the cards never settle, and names what was still changing`, () => {
    const cards = mapStore([card({ order_id: 'a', state: 'done', lane: 'done' }), card({ order_id: 'b', state: 'blocked', lane: 'queue', depends_on: ['a'] })]);
    const { facts } = cards;
    // A store that keeps nothing and touches what it is given: every round finds b to fix again.
    const forgetful: SettleCards = { read: (id) => cards.read(id), write: (c) => facts.touchOrder(c.order_id) };
    facts.touchOrder('b');
    const out = facts.settle(false, CTX, forgetful);
    expect(MAX_SETTLE_ROUNDS).toBe(50);
    expect(out).toEqual({ rounds: 50, unsettled: ['b'] });
  });
});

describe('ChannelFacts bookkeeping', () => {
  it('forgets an order with its folder, and its dependents are no longer its', () => {
    const cards = mapStore([card({ order_id: 'a', state: 'open', lane: 'queue' }), card({ order_id: 'b', state: 'blocked', lane: 'queue', depends_on: ['a'] })]);
    const { facts } = cards;
    expect(facts.orderIn('a')?.state).toBe('open');
    expect(facts.forget('a')).toBe('a');
    cards.delete('a'); // the indexer deletes the card right after
    expect(facts.orderIn('a')).toBeUndefined();
    expect(facts.forget('a')).toBe(null);
    // b's dependency is gone: settling b flags it.
    facts.touchOrder('b');
    facts.settle(false, CTX, cards);
    expect(cards.get('b').flags).toEqual(['missing_dependency']);
  });

  it('keeps only the orders not finished in memory; a finished one is read from the store, and counts in its holder\'s holdings', () => {
    const cards = mapStore([
      card({ order_id: 'a', state: 'done', lane: 'done', holder: 'fang' }),
      card({ order_id: 'b', state: 'done', lane: 'done', holder: 'fang' }),
      card({ order_id: 'c', state: 'claimed', lane: 'running', holder: 'fang' }),
      card({ order_id: 'd', state: 'open', lane: 'queue' }),
    ]);
    const { facts } = cards;
    facts.takeChanged();
    expect(facts.liveCount).toBe(2); // c and d
    expect(facts.orderIn('a')).toMatchObject({ id: 'a', state: 'done', lane: 'done', holder: 'fang' });
    expect(facts.has('b')).toBe(true);
    expect(facts.has('zz')).toBe(false);
    // fang: a and b (finished) and c.
    expect(facts.holdingCounts()).toEqual(new Map([['fang', 3]]));
    expect([...facts.dirsHeldByOrOpen(new Set(['fang']))].sort()).toEqual(['a', 'b', 'c', 'd']);
    // a is reopened: in memory again, still fang's; b's folder is gone (forgotten, then its card deleted).
    cards.write(card({ order_id: 'a', state: 'claimed', lane: 'running', holder: 'fang' }), 'a', null);
    expect(facts.liveCount).toBe(3);
    expect(facts.forget('b')).toBe('b');
    cards.delete('b');
    expect(facts.holdingCounts()).toEqual(new Map([['fang', 2]]));
    // c is done: out of memory, still counted.
    cards.write(card({ order_id: 'c', state: 'done', lane: 'done', holder: 'fang' }), 'c', null);
    expect(facts.liveCount).toBe(2);
    expect(facts.holdingCounts()).toEqual(new Map([['fang', 2]]));
    // The cards written since (b's removal is the writer's to note).
    expect([...facts.takeChanged()].sort()).toEqual(['a', 'c']);
  });

  it('passes case siblings together: a folder named T1 beside t1', () => {
    const { facts } = mapStore([]);
    facts.noteVariant('T1', true);
    facts.noteVariant('t2', true); // canonical: not a variant
    const listed = new Set(['t1', 'T1', 't2']);
    expect([...facts.withCaseSiblings(new Set(['t1']), (d) => listed.has(d))].sort()).toEqual(['T1', 't1']);
    expect([...facts.withCaseSiblings(new Set(['T1']), (d) => listed.has(d))].sort()).toEqual(['T1', 't1']);
    expect([...facts.withCaseSiblings(new Set(['t2']), (d) => listed.has(d))]).toEqual(['t2']);
    facts.noteVariant('T1', false);
    expect([...facts.withCaseSiblings(new Set(['t1']), (d) => listed.has(d))]).toEqual(['t1']);
  });
});
