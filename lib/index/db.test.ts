/**
 * openWriter's integrity check at start (db.ts): every page is read (PRAGMA quick_check) unless
 * the last writer closed the index cleanly (closeWriter) and the file is as long as its header says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beginBulkLoad, closeWriter, endBulkLoad, openReader, openWriter } from './db';
import { readMeta } from './store/meta';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** A fresh index file with a table of 2,000 rows created last (so it owns the file's last pages). */
function indexWithBulk(): { file: string; db: Database.Database } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-dbopen-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'index.sqlite');
  const db = openWriter(file);
  db.exec('CREATE TABLE bulk (x TEXT NOT NULL)');
  const put = db.prepare('INSERT INTO bulk (x) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) put.run(`row ${i} `.repeat(20));
  })();
  return { file, db };
}

/** Overwrites the file's last 8 pages (the bulk table's) with garbage: the header and meta stay readable. */
function corruptTail(file: string): void {
  const size = fs.statSync(file).size;
  const page = new Database(file, { readonly: true }).pragma('page_size', { simple: true }) as number;
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(8 * page, 0xa5), 0, 8 * page, size - 8 * page);
  fs.closeSync(fd);
}

const opened = (file: string): string[] => {
  const said: string[] = [];
  const db = openWriter(file, (why) => said.push(why));
  db.close();
  return said;
};

describe('openWriter: the integrity check at start', () => {
  it('while a writer has it open, the index is marked not closed cleanly; closeWriter marks it', () => {
    const { file, db } = indexWithBulk();
    const reader = openReader(file);
    expect(readMeta(reader, 'closed_cleanly')).toBe(false);
    closeWriter(db);
    expect(readMeta(reader, 'closed_cleanly')).toBe(true);
    reader.close();
  });

  it('after a writer that did not close cleanly, every page is checked: a damaged page is found and the index rebuilt', () => {
    const { file, db } = indexWithBulk();
    db.close(); // as a killed writer leaves it: never marked
    corruptTail(file);
    const said = opened(file);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/unreadable \(integrity check: .*\).*rebuilding from the folder/s);
  });

  it('after a clean close, the index is trusted without reading every page (the same damage is not looked for)', () => {
    const { file, db } = indexWithBulk();
    closeWriter(db);
    corruptTail(file);
    expect(opened(file)).toEqual([]);
    // The open marked it as in use again: a second open after this unclean close checks it.
    expect(opened(file)).toEqual([expect.stringMatching(/integrity check/)]);
  });

  it('a cleanly closed index cut short is shorter than its header says: checked, and rebuilt', () => {
    const { file, db } = indexWithBulk();
    closeWriter(db);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const said = opened(file);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/unreadable.*rebuilding from the folder/);
  });
});

describe('openWriter beside a writer in a long transaction', () => {
  it('a mark it cannot write (busy) is no damage: the index is opened, not moved aside', () => {
    const { file, db } = indexWithBulk();
    db.exec('BEGIN IMMEDIATE'); // as a serve in a long write (a migration, a settle of every card)
    const said: string[] = [];
    const second = openWriter(file, (why) => said.push(why)); // waits out busy_timeout (5 s) for its mark, then goes on
    expect(said).toEqual([]);
    expect(second.prepare('SELECT COUNT(*) AS n FROM bulk').get()).toEqual({ n: 2000 });
    second.close();
    db.exec('ROLLBACK');
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes('corrupt'))).toEqual([]);
    db.close();
  });
});

describe('a bulk load does without fsync, and only it', () => {
  it('synchronous is NORMAL (1) on open, OFF (0) while a cold load is open, NORMAL again after it', () => {
    const { db } = indexWithBulk();
    cleanup.push(() => db.close());
    const sync = () => db.pragma('synchronous', { simple: true });
    expect(sync()).toBe(1);
    beginBulkLoad(db);
    expect(sync()).toBe(0);
    endBulkLoad(db);
    expect(sync()).toBe(1);
    // An end with no load open (nothing was dropped) syncs again too.
    db.pragma('synchronous = OFF');
    endBulkLoad(db);
    expect(sync()).toBe(1);
  });
});
