/**
 * IndexStore.latestArrivals (LEDGER.md §6: a writer's latest arrival here): one seek of the
 * writer index per writer, or one pass over the files while a cold bulk load has dropped it.
 */
import { describe, expect, it } from 'vitest';
import { beginBulkLoad, endBulkLoad, openMemory, type DB } from './db';
import { IndexStore, SQL } from './store';

const file = (db: DB, p: string, writer: string | null, arrival: number) =>
  db
    .prepare("INSERT INTO files (path, order_dir, stat, type, arrival_ms, first_seen_ms, kind, status, writer) VALUES (?, 't1', 's', 'file', ?, ?, 'claim', 'ok', ?)")
    .run(p, arrival, arrival, writer);

const sorted = (rows: { writer: string; t: number }[]) => [...rows].sort((a, b) => a.writer.localeCompare(b.writer));

describe('IndexStore.latestArrivals', () => {
  const fill = (db: DB) => {
    file(db, 'tasks/t1/a1', 'ada', 100);
    file(db, 'tasks/t1/a2', 'ada', 250);
    file(db, 'tasks/t1/b1', 'bo', 40);
    file(db, 'tasks/t1/c1', 'cy', 90);
    file(db, 'tasks/t1/c2', 'cy', 60);
    file(db, 'tasks/t1/x', null, 999); // no writer: counts for nobody
  };
  const want = [
    { writer: 'ada', t: 250 },
    { writer: 'bo', t: 40 },
    { writer: 'cy', t: 90 },
  ];

  it('is each writer\'s latest arrival, read one seek per writer', () => {
    const db = openMemory();
    fill(db);
    expect(sorted(new IndexStore(db).latestArrivals())).toEqual(want);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${SQL.latestArrivalsSeek}`).all() as { detail: string }[]).map((r) => r.detail);
    expect(plan.filter((d) => d.includes('files') && !d.includes('COVERING INDEX files_writer'))).toEqual([]);
  });

  it('is the same while a bulk load has dropped the writer index', () => {
    const db = openMemory();
    beginBulkLoad(db);
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'files_writer'").get()).toEqual({ n: 0 });
    fill(db);
    expect(sorted(new IndexStore(db).latestArrivals())).toEqual(want);
    endBulkLoad(db);
    expect(sorted(new IndexStore(db).latestArrivals())).toEqual(want);
    expect(new IndexStore(db).latestArrivals()).toHaveLength(3);
  });
});
