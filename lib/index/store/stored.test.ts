/**
 * The reads of what memory does not keep (stored.ts) go by index: each per-call lookup is a
 * SEARCH, never a SCAN, and the two start-time reads that look up a table per row do so by the
 * folder's index. A correlated lookup by lane instead scans the Done lane once per folder: a warm
 * start of 100,000 orders that never ended (seen in the bench before the fix).
 */
import { describe, expect, it } from 'vitest';
import { beginBulkLoad, endBulkLoad, openMemory } from '../db';
import { STORED_SQL, StoredIndex } from './stored';

const plan = (sql: string, args: unknown[]) => {
  const db = openMemory();
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
};

describe('stored.ts query plans', () => {
  it('each lookup made per call reads by an index', () => {
    const perCall = { info: ['t1'], idIn: ['t1'], dependentsOf: ['t1'], dir: ['t1'], dirsAfter: ['', 500] } as const;
    for (const [k, args] of Object.entries(perCall)) {
      const p = plan(STORED_SQL[k as keyof typeof perCall], [...args]);
      expect(p.filter((d) => d.startsWith('SCAN')), `${k}: ${p.join('; ')}`).toEqual([]);
    }
  });

  it('the live folders and the cards with no folder row are matched by folder, one indexed lookup per row', () => {
    // Folder and lane are both in cards_dir: no card row is read (709 MB of them at 1M orders).
    expect(plan(STORED_SQL.liveDirs, [])).toEqual(['SCAN d', 'CORRELATED SCALAR SUBQUERY 1', 'SEARCH c USING COVERING INDEX cards_dir (order_dir=? AND lane=?)']);
    expect(plan(STORED_SQL.cardDirsNotListed, [])).toEqual(['SCAN c USING COVERING INDEX cards_dir', 'CORRELATED SCALAR SUBQUERY 1', 'SEARCH d USING COVERING INDEX sqlite_autoindex_dirs_1 (dir=?)']);
  });

  it('what else a start reads comes from partial indexes, not from every card or folder', () => {
    expect(plan(STORED_SQL.doneHeld, [])).toEqual(['SEARCH cards USING COVERING INDEX cards_done_holder (holder>?)']);
    expect(plan(STORED_SQL.maybeVariantDirs, [])).toEqual(['SCAN dirs USING COVERING INDEX dirs_maybe_variant']);
  });
});

describe('StoredIndex.doneHeld', () => {
  it('counts finished orders per holder, from the partial index or, while a bulk load has dropped it, from the cards', () => {
    const db = openMemory();
    const stored = new StoredIndex(db);
    const put = (id: string, lane: string, holder: string | null) =>
      db
        .prepare("INSERT INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, card) VALUES (?, ?, ?, 'done', ?, '  ', '  ', ?, 1, '{}')")
        .run(id, id, lane, holder, id);
    put('a', 'done', 'fang');
    put('b', 'done', 'fang');
    put('c', 'done', 'wisp');
    put('d', 'done', null);
    put('e', 'running', 'wisp');
    const want = [
      { holder: 'fang', n: 2 },
      { holder: 'wisp', n: 1 },
    ];
    const sorted = (r: { holder: string; n: number }[]) => [...r].sort((x, y) => x.holder.localeCompare(y.holder));
    expect(sorted(stored.doneHeld())).toEqual(want);
    beginBulkLoad(db);
    expect(sorted(stored.doneHeld())).toEqual(want);
    endBulkLoad(db);
    expect(sorted(stored.doneHeld())).toEqual(want);
  });
});
