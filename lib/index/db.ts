import 'server-only';
/**
 * The SQLite index: one better-sqlite3 connection per process, pragmas set once, the numbered
 * migrations (migrations/, one module each) applied in order, and a cold index's bulk load. The
 * index is a cache of the folder: deleting it and indexing again gives the same board.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../config';
import { dbIdentity } from './health';
import { readMeta, writeMeta } from './store/meta';
import { MIGRATIONS } from './migrations';
import { FILL_CARD_AGENTS, FILL_LANE_COUNTS } from './migrations/kept-tables';

/** The migrations openWriter applies, in order (migrations/index.ts). */
export { MIGRATIONS };

export type DB = Database.Database;

/**
 * What a bulk load (a cold index into empty tables) does without: the secondary
 * indexes whose keys arrive in random order and the card_agents triggers. Each row inserted
 * into an index costs a B-tree descent; made once at the end, an index is one sort. The
 * primary keys, files_order_dir and cards_dir stay (the load reads by them), and so do
 * files_decisions (small; the activity page names it), holds_order (its keys come in order) and
 * runs_agent_offset (the agents' summaries read their clock offsets by it). holds_agent,
 * holds_window, holds_agent_window and runs_agent are read only by an agent's pages and the
 * history: one of them asked for during the load scans.
 * The lane_counts triggers go too: the counts are made once at the end (the board counts cards
 * while a load is open: queries.ts).
 */
const BULK_DROPPED = [
  'files_writer',
  'holds_agent',
  'holds_window',
  'holds_agent_window',
  'runs_agent',
  'cards_lane_sort',
  'cards_holder',
  'cards_next',
  'cards_lane_age',
  'cards_done_holder',
  'dirs_maybe_variant',
  'card_agents_on_insert',
  'card_agents_on_update',
  'card_agents_on_delete',
  'lane_counts_before_insert',
  'lane_counts_on_insert',
  'lane_counts_on_update',
  'lane_counts_on_delete',
];

/**
 * Drops BULK_DROPPED, keeping their SQL (as SQLite has it) in meta `bulk_load` in the same
 * transaction, so that a process killed before endBulkLoad leaves the way back: the next open
 * (prepare) ends the load. Call only on empty tables (a cold index).
 */
export function beginBulkLoad(db: DB): void {
  // No fsync while loading (each WAL checkpoint would sync the database file): what a crash of
  // the machine could spoil is a cold index, which the next open finds (closed_cleanly false:
  // every page checked, a spoiled file moved aside) and makes again from the folder.
  db.pragma('synchronous = OFF');
  db.transaction(() => {
    const rows = db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE name IN (${BULK_DROPPED.map(() => '?').join(', ')}) AND sql IS NOT NULL`).all(...BULK_DROPPED) as { type: string; name: string; sql: string }[];
    if (rows.length === 0) return;
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('bulk_load', ?)").run(JSON.stringify(rows.map((r) => r.sql)));
    for (const r of rows) db.exec(`DROP ${r.type === 'trigger' ? 'TRIGGER' : 'INDEX'} ${r.name}`);
  })();
}

/** Whether a cold index's bulk load is open (beginBulkLoad, not yet endBulkLoad): BULK_DROPPED is missing meanwhile. */
export function bulkLoadOpen(db: DB): boolean {
  return db.prepare("SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'bulk_load')").pluck().get() === 1;
}

/**
 * Makes again what beginBulkLoad dropped, card_agents and lane_counts from every card, in one
 * transaction (nothing when no load is open), and syncs again from then on.
 */
export function endBulkLoad(db: DB): void {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'bulk_load'").get() as { value: string } | undefined;
  if (row) {
    db.transaction(() => {
      for (const sql of JSON.parse(row.value) as string[]) db.exec(sql);
      db.exec(`DELETE FROM card_agents; ${FILL_CARD_AGENTS} ${FILL_LANE_COUNTS}`);
      db.prepare("DELETE FROM meta WHERE key = 'bulk_load'").run();
    })();
  }
  db.pragma('synchronous = NORMAL');
}

/**
 * Opens (creating if needed) the index for writing: WAL, synchronous NORMAL, migrations.
 * A file that is not a readable SQLite database, or whose integrity check fails, is moved
 * aside (`<file>.corrupt-<time>`) and rebuilt from the folder; `onRebuild` is told why. A
 * missing file (never built, or deleted) is built from the folder, saying so; a write-ahead
 * log left behind by a deleted database is moved aside first (`<file>.orphan-<time>-wal`),
 * never replayed into the new one.
 */
export function openWriter(file: string, onRebuild: (why: string) => void = () => {}): DB {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) {
    const orphans = ['-wal', '-shm'].filter((s) => fs.existsSync(file + s));
    const aside = `${file}.orphan-${Date.now()}`;
    for (const s of orphans) fs.renameSync(file + s, aside + s);
    onRebuild(
      `index ${file} not found${orphans.length ? ` (a deleted index's ${orphans.map((s) => s.slice(1)).join(' and ')} files were left behind: moved to ${aside}-*)` : ''}; building it from the folder`,
    );
  }
  let db: DB | null = null;
  try {
    db = new Database(file);
    if (!closedCleanly(file, db)) {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`integrity check: ${String(check)}`);
    }
    prepare(db);
  } catch (e) {
    return rebuildAside(file, db, e, onRebuild);
  }
  // Until closeWriter says otherwise, this run did not end cleanly: the next open checks every
  // page. Outside the check above: a write refused now (busy: `claimboard repin` beside a serve
  // in a long transaction; a full disk) is no damage, and the indexer's start writes it again.
  markOpen(db);
  return db;
}

/** Marks the index as in use (not closed cleanly); a refused write is left to the indexer's start. */
function markOpen(db: DB): void {
  try {
    writeMeta(db, 'closed_cleanly', false);
  } catch {
    // Busy or full: the indexer's first writes say it again (first-index.ts).
  }
}

/** Moves an unusable index (and its -wal, -shm) aside and opens a fresh one, saying why. */
function rebuildAside(file: string, db: DB | null, e: unknown, onRebuild: (why: string) => void): DB {
  try {
    db?.close();
  } catch {
    /* already unusable */
  }
  const aside = `${file}.corrupt-${Date.now()}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix);
  }
  onRebuild(`index ${file} was unreadable (${e instanceof Error ? e.message : String(e)}); moved to ${aside} and rebuilding from the folder`);
  const fresh = new Database(file);
  prepare(fresh);
  return fresh;
}

/**
 * Whether the index at `file` was closed by its last writer (closeWriter) and is at least as long
 * as its header says: then it is opened without PRAGMA quick_check, which reads every page (about
 * 8 s for the 5 GB index of a million orders). A writer that was killed, a file cut short, or any
 * doubt: false, and the check runs. (A page corrupted at rest after a clean close is not seen.)
 */
function closedCleanly(file: string, db: DB): boolean {
  try {
    // The header: page size at offset 16 (2 bytes, big-endian; 1 means 65,536), the database's size
    // in pages at 28 (4 bytes), valid when the change counter at 24 equals "version valid for" at 92.
    const head = Buffer.alloc(100);
    const fd = fs.openSync(file, 'r');
    try {
      if (fs.readSync(fd, head, 0, 100, 0) < 100) return false;
    } finally {
      fs.closeSync(fd);
    }
    const raw = head.readUInt16BE(16);
    const pageSize = raw === 1 ? 65_536 : raw;
    const pages = head.readUInt32BE(28);
    if (pages === 0 || head.readUInt32BE(24) !== head.readUInt32BE(92)) return false;
    if (fs.statSync(file).size < pages * pageSize) return false;
    return readMeta(db, 'closed_cleanly') === true;
  } catch {
    return false;
  }
}

/**
 * Closes the index this process wrote (openWriter's), marking it closed cleanly first so that
 * the next open trusts it without reading every page. Call it only once the indexer stopped.
 */
export function closeWriter(db: DB): void {
  try {
    if (db.open && !db.readonly) writeMeta(db, 'closed_cleanly', true);
  } catch {
    // Not marked: the next open checks it.
  }
  db.close();
}

function prepare(db: DB): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const done = new Set((db.prepare('SELECT id FROM migrations').all() as { id: number }[]).map((r) => r.id));
  for (const m of MIGRATIONS) {
    if (done.has(m.id)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString());
    })();
  }
  // A bulk load a killed process left open (its indexes and triggers dropped) is ended first.
  endBulkLoad(db);
}

/** Opens the index read-only (request handlers), with a page cache of at most `cacheKib` KiB when given (else better-sqlite3's, 16 MB). Throws when it does not exist yet. */
export function openReader(file: string, cacheKib?: number): DB {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  if (cacheKib !== undefined) db.pragma(`cache_size = -${Math.floor(cacheKib)}`);
  return db;
}

/** The read-only connections readDbOf keeps, by file: each with the identity of the file it opened. */
const readers = new Map<string, { id: string | null; db: DB }>();

/**
 * The process's read-only connection to the index at `file` (the web server's), opened on first
 * use and kept while the file at that path is the one opened (its device and inode, one stat per
 * call): a database deleted or replaced while serving is reopened, so the board is never read
 * from a file the writer left. Throws when the file does not exist (yet, or any more: the writer
 * is rebuilding it).
 */
export function readDbOf(file: string, cacheKib?: number): DB {
  const id = dbIdentity(file);
  const kept = readers.get(file);
  if (kept && kept.id === id) return kept.db;
  if (kept) {
    kept.db.close();
    readers.delete(file);
  }
  const db = openReader(file, cacheKib);
  readers.set(file, { id: dbIdentity(file), db });
  return db;
}

/** The read-only connection to the index named by CLAIMBOARD_DB (readDbOf); throws when the variable is unset. */
export function readDb(): DB {
  const file = settings.dbFile();
  if (!file) throw new Error('CLAIMBOARD_DB is not set: start the dashboard with `claimboard serve`');
  return readDbOf(file);
}

/** An in-memory index (tests). */
export function openMemory(): DB {
  const db = new Database(':memory:');
  prepare(db);
  return db;
}
