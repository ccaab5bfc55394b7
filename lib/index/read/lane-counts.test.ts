/**
 * lane_counts (db.ts migration 12): the triggers keep each lane's count equal to the cards in it
 * whatever writes the cards (INSERT OR REPLACE moving a card between lanes, a delete, a lane
 * updated in place), and the unfiltered board reads it; a filtered one still counts cards.
 */
import { describe, expect, it } from 'vitest';
import { openMemory, type DB } from '../db';
import * as q from './queries';

const put = (db: DB, id: string, lane: string) =>
  db
    .prepare("INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, card) VALUES (?, ?, ?, 'open', NULL, '  ', '  ', ?, 1, ?)")
    .run(id, id, lane, id, JSON.stringify({ order_id: id, lane }));

/** lane → count, as kept (lanes at 0 left out) and as counted. */
const kept = (db: DB) => Object.fromEntries((db.prepare('SELECT lane, n FROM lane_counts WHERE n <> 0 ORDER BY lane').all() as { lane: string; n: number }[]).map((r) => [r.lane, r.n]));
const counted = (db: DB) => Object.fromEntries((db.prepare('SELECT lane, COUNT(*) AS n FROM cards GROUP BY lane ORDER BY lane').all() as { lane: string; n: number }[]).map((r) => [r.lane, r.n]));

describe('lane_counts', () => {
  it('follows inserts, replaces across lanes, updates and deletes', () => {
    const db = openMemory();
    put(db, 't1', 'queue');
    put(db, 't2', 'queue');
    put(db, 't3', 'running');
    expect(kept(db)).toEqual({ queue: 2, running: 1 });
    put(db, 't1', 'running'); // replaced: out of queue, into running
    put(db, 't3', 'running'); // replaced in the same lane: no change
    expect(kept(db)).toEqual({ queue: 1, running: 2 });
    db.prepare("UPDATE cards SET lane = 'done' WHERE order_id = 't2'").run();
    db.prepare("DELETE FROM cards WHERE order_id = 't3'").run();
    expect(kept(db)).toEqual({ done: 1, running: 1 });
    expect(kept(db)).toEqual(counted(db));
  });

  it('is what the unfiltered board counts; a query counts the cards it matches', () => {
    const db = openMemory();
    put(db, 'a1', 'attention');
    put(db, 'a2', 'attention');
    put(db, 'q1', 'queue');
    // A count kept wrong on purpose shows which one the board read.
    db.prepare("UPDATE lane_counts SET n = 40 WHERE lane = 'attention'").run();
    expect(q.lanePage(db, 'attention', [], null).count).toBe(40);
    expect(q.lanePage(db, 'attention', [{ kind: 'text', neg: false, value: 'a1' }], null).count).toBe(1);
  });
});
