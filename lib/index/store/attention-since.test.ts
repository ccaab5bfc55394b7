/**
 * attention_since (db.ts migration 13, metrics-record.ts): per order in Needs attention, when this
 * index first stored it there; kept equal to the lane from the orders each settle changed.
 */
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, openMemory, type DB } from '../db';
import { IndexStore } from './store';
import { oldestAttentionSince } from '../writer/metrics-record';

const put = (db: DB, id: string, lane: string) =>
  db
    .prepare("INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, card) VALUES (?, ?, ?, 'open', NULL, '  ', '  ', ?, 1, ?)")
    .run(id, id, lane, id, JSON.stringify({ order_id: id, lane }));

const rows = (db: DB) => Object.fromEntries((db.prepare('SELECT order_id, since_ms FROM attention_since ORDER BY order_id').all() as { order_id: string; since_ms: number }[]).map((r) => [r.order_id, r.since_ms]));

describe('attention_since', () => {
  it('a settle of every card fills it from the lane; later settles follow only the orders they changed', () => {
    const db = openMemory();
    const s = new IndexStore(db);
    put(db, 'a1', 'attention');
    put(db, 'a2', 'attention');
    put(db, 'q1', 'queue');
    s.noteAttention(null, 100);
    expect(rows(db)).toEqual({ a1: 100, a2: 100 });
    // a1 leaves the lane, q1 enters it.
    put(db, 'a1', 'queue');
    put(db, 'q1', 'attention');
    s.noteAttention(['a1', 'q1'], 200);
    expect(rows(db)).toEqual({ a2: 100, q1: 200 });
    // a2 changed but stays: it keeps the moment it was first stored there.
    s.noteAttention(['a2'], 300);
    expect(rows(db)).toEqual({ a2: 100, q1: 200 });
    // a2's order is gone (no card).
    db.prepare("DELETE FROM cards WHERE order_id = 'a2'").run();
    s.noteAttention(['a2'], 400);
    expect(rows(db)).toEqual({ q1: 200 });
    expect(oldestAttentionSince(db)).toBe(200);
    // An order not named is not looked at (the settle did not change it).
    put(db, 'q1', 'done');
    s.noteAttention([], 500);
    expect(rows(db)).toEqual({ q1: 200 });
    // A settle of every card puts it right.
    s.noteAttention(null, 600);
    expect(rows(db)).toEqual({});
    expect(oldestAttentionSince(db)).toBeNull();
  });

  it('migration 13 moves the meta row of an older index into the table, dropping what is not a number', () => {
    const db = openMemory();
    const m13 = MIGRATIONS.find((m) => m.id === 13);
    expect(m13?.name).toBe('attention_since');
    db.exec('DROP TABLE attention_since');
    db.prepare("INSERT INTO meta (key, value) VALUES ('attention_since', ?)").run(JSON.stringify({ t1: 1500, t2: 2500.5, t3: 'soon' }));
    db.exec(m13!.sql);
    expect(rows(db)).toEqual({ t1: 1500, t2: 2500.5 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM meta WHERE key = 'attention_since'").get()).toEqual({ n: 0 });
  });

  it('migration 13 over a meta row that is not JSON: nothing moves in, the row goes', () => {
    const db = openMemory();
    db.exec('DROP TABLE attention_since');
    db.prepare("INSERT INTO meta (key, value) VALUES ('attention_since', '{not json')").run();
    db.exec(MIGRATIONS.find((m) => m.id === 13)!.sql);
    expect(rows(db)).toEqual({});
    expect(db.prepare("SELECT COUNT(*) AS n FROM meta WHERE key = 'attention_since'").get()).toEqual({ n: 0 });
  });
});
