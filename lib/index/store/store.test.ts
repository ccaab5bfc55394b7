/**
 * IndexStore.latestArrivals: one seek of the
 * writer index per writer, or one pass over the files while a cold bulk load has dropped it.
 */
import { describe, expect, it } from 'vitest';
import { beginBulkLoad, endBulkLoad, openMemory, type DB } from '../db';
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

describe('IndexStore.addFiles', () => {
  it("stores every row of a folder, 8 to a statement, as addFile would one by one", () => {
    // 19 rows: two full statements of 8 and one of 3.
    const rows = Array.from({ length: 19 }, (_, i) => ({
      path: `tasks/t1/f${String(i).padStart(2, '0')}`,
      order_dir: 't1',
      stat: `f:${i}`,
      type: 'file',
      arrival_ms: 1000 + i,
      kind: 'claim',
      status: 'record',
      problem: null,
      writer: i % 2 === 0 ? 'ada' : null,
      sig_key: null,
      sig_ok: null,
    }));
    const many = openMemory();
    new IndexStore(many).addFiles(rows, 5000);
    const one = openMemory();
    const s = new IndexStore(one);
    for (const r of rows) s.addFile(r, 5000);
    const all = (db: DB) => db.prepare('SELECT * FROM files ORDER BY path').all();
    expect(all(many)).toHaveLength(19);
    expect(all(many)).toEqual(all(one));
    expect(new IndexStore(many).filesIn('t1').map((r) => r.first_seen_ms)).toEqual(Array(19).fill(5000));
  });
});
