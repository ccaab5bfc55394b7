import 'server-only';
/**
 * The SQLite index: one better-sqlite3 connection per process, pragmas set once, numbered
 * migrations. The index is a cache of the folder: deleting it and indexing
 * again gives the same board.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../config';
import { dbIdentity } from './health';
import { readMeta, writeMeta } from './store/meta';

export type DB = Database.Database;

/**
 * SQL turning a space-delimited agents column (' a b ') into a JSON array of its words
 * ('["a","b"]'; empty strings where spaces repeat or the list is empty). SQLite has no split and
 * allows no WITH inside a trigger, so this goes through json_each; quotes and backslashes are
 * escaped, so any name without control characters stays one JSON string.
 */
function agentsAsJson(column: string): string {
  return `'["' || replace(replace(replace(trim(${column}), '\\', '\\\\'), '"', '\\"'), ' ', '","') || '"]'`;
}

/** card_agents made again from every card (migration 5, and the end of a bulk load). */
const FILL_CARD_AGENTS = `INSERT OR IGNORE INTO card_agents (agent, lane, sort_ms, order_id)
        SELECT lower(j.value), c.lane, c.sort_ms, c.order_id FROM cards c, json_each(${agentsAsJson('c.agents')}) j WHERE j.value <> '';`;

/** The lane_counts triggers (migration 12; dropped and made again by a bulk load). */
const LANE_COUNT_TRIGGERS = `
      CREATE TRIGGER lane_counts_before_insert BEFORE INSERT ON cards BEGIN
        UPDATE lane_counts SET n = n - 1 WHERE lane = (SELECT lane FROM cards WHERE order_id = NEW.order_id);
      END;
      CREATE TRIGGER lane_counts_on_insert AFTER INSERT ON cards BEGIN
        INSERT INTO lane_counts (lane, n) VALUES (NEW.lane, 1) ON CONFLICT (lane) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER lane_counts_on_update AFTER UPDATE OF lane ON cards WHEN OLD.lane <> NEW.lane BEGIN
        UPDATE lane_counts SET n = n - 1 WHERE lane = OLD.lane;
        INSERT INTO lane_counts (lane, n) VALUES (NEW.lane, 1) ON CONFLICT (lane) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER lane_counts_on_delete AFTER DELETE ON cards BEGIN
        UPDATE lane_counts SET n = n - 1 WHERE lane = OLD.lane;
      END;`;

/** lane_counts made again from every card (migration 12, and the end of a bulk load). */
const FILL_LANE_COUNTS = 'DELETE FROM lane_counts; INSERT INTO lane_counts (lane, n) SELECT lane, COUNT(*) FROM cards GROUP BY lane;';

/** Numbered migrations with descriptive names; applied in order, each once. */
export const MIGRATIONS: readonly { readonly id: number; readonly name: string; readonly sql: string }[] = [
  {
    id: 1,
    name: 'initial_index',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- Every file claimboard reads, with the stat identity that decides whether to read it again,
      -- its outcome (record or problem, JSON), and the remembered signature check.
      CREATE TABLE files (
        path TEXT PRIMARY KEY,
        stat TEXT NOT NULL,
        type TEXT NOT NULL,
        arrival_ms REAL NOT NULL,
        first_seen_ms REAL NOT NULL,
        outcome TEXT NOT NULL,
        sig_key TEXT,
        sig_ok INTEGER
      );
      CREATE TABLE pins (name TEXT PRIMARY KEY, public_key TEXT NOT NULL, pinned_at_ms REAL NOT NULL);
      CREATE TABLE cards (
        order_id TEXT PRIMARY KEY,
        lane TEXT NOT NULL,
        state TEXT NOT NULL,
        holder TEXT,
        agents TEXT NOT NULL,   -- ' a b ' : holder and every agent its flags involve
        flags TEXT NOT NULL,    -- ' f1 f2 '
        search TEXT NOT NULL,   -- lowercase: id, holder, project, reason
        sort_ms REAL NOT NULL,
        card TEXT NOT NULL,
        view TEXT NOT NULL
      );
      CREATE INDEX cards_lane_sort ON cards (lane, sort_ms, order_id);
      CREATE INDEX cards_holder ON cards (holder);
      CREATE TABLE problems (path TEXT NOT NULL, problem TEXT NOT NULL, detail TEXT NOT NULL, line INTEGER, order_id TEXT);
      CREATE INDEX problems_order ON problems (order_id);
      CREATE TABLE ledger_files (path TEXT PRIMARY KEY, entries INTEGER NOT NULL, intact INTEGER NOT NULL, broken_at INTEGER);
      CREATE TABLE agents (name TEXT PRIMARY KEY, summary TEXT NOT NULL);
      CREATE TABLE holds (order_id TEXT NOT NULL, agent TEXT NOT NULL, history TEXT NOT NULL);
      CREATE INDEX holds_agent ON holds (agent);
      CREATE INDEX holds_order ON holds (order_id);
      CREATE TABLE runs (
        order_id TEXT NOT NULL, agent TEXT NOT NULL, run TEXT NOT NULL, pid INTEGER NOT NULL,
        first_arrival_ms REAL NOT NULL, last_arrival_ms REAL NOT NULL, last_writer_at TEXT NOT NULL,
        writer_offset_ms REAL, beats INTEGER NOT NULL,
        PRIMARY KEY (order_id, agent, run)
      );
      CREATE INDEX runs_agent ON runs (agent);
      -- Change feed for /api/events: one row per changed order ('*' = everything).
      CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL, at_ms REAL NOT NULL);
    `,
  },
  {
    id: 2,
    name: 'per_order_index',
    // The index derives one order folder at a time and keeps no record content: files keep
    // their stat identity, outcome code, writer and remembered signature check; problems are
    // scoped to the folder (or '' for the channel) they came from; cards know when they may
    // change with no file changing (next_ms). A cache: dropping the old tables only costs a
    // cold index.
    sql: `
      DROP TABLE files;
      CREATE TABLE files (
        path TEXT PRIMARY KEY,
        order_dir TEXT,
        stat TEXT NOT NULL,
        type TEXT NOT NULL,
        arrival_ms REAL NOT NULL,
        first_seen_ms REAL NOT NULL,
        kind TEXT,
        status TEXT NOT NULL,
        problem TEXT,
        writer TEXT,
        sig_key TEXT,
        sig_ok INTEGER
      );
      CREATE INDEX files_order_dir ON files (order_dir);
      CREATE INDEX files_writer ON files (writer, arrival_ms);
      DROP TABLE cards;
      CREATE TABLE cards (
        order_id TEXT PRIMARY KEY,
        order_dir TEXT NOT NULL,
        lane TEXT NOT NULL,
        state TEXT NOT NULL,
        holder TEXT,
        agents TEXT NOT NULL,
        flags TEXT NOT NULL,
        search TEXT NOT NULL,
        sort_ms REAL NOT NULL,
        next_ms REAL,
        card TEXT NOT NULL
      );
      CREATE INDEX cards_lane_sort ON cards (lane, sort_ms, order_id);
      CREATE INDEX cards_holder ON cards (holder, state);
      CREATE INDEX cards_next ON cards (next_ms);
      CREATE INDEX cards_dir ON cards (order_dir);
      DROP TABLE problems;
      CREATE TABLE problems (scope TEXT NOT NULL, path TEXT NOT NULL, problem TEXT NOT NULL, detail TEXT NOT NULL, line INTEGER, order_id TEXT);
      CREATE INDEX problems_scope ON problems (scope);
      CREATE TABLE deps (order_id TEXT NOT NULL, dep TEXT NOT NULL);
      CREATE INDEX deps_dep ON deps (dep);
      CREATE INDEX deps_order ON deps (order_id);
      DELETE FROM holds;
      DELETE FROM runs;
      DELETE FROM agents;
      DELETE FROM ledger_files;
      DELETE FROM meta WHERE key = 'progress';
    `,
  },
  {
    id: 3,
    name: 'ledger_report_memo',
    // A ledger file's report depends only on its content (stat identity) and the keys it
    // verifies against: remembered, a warm start verifies none of its lines again.
    sql: `
      ALTER TABLE ledger_files ADD COLUMN stat TEXT;
      ALTER TABLE ledger_files ADD COLUMN keys TEXT;
      ALTER TABLE ledger_files ADD COLUMN reason TEXT;
    `,
  },
  {
    id: 4,
    name: 'runs_offset_index',
    // The agents table takes each agent's median clock offset straight from this index.
    sql: `CREATE INDEX runs_agent_offset ON runs (agent, writer_offset_ms);`,
  },
  {
    id: 5,
    name: 'card_agents_index',
    // The board's agent filter as an index: one row per (agent, card) for every agent in
    // cards.agents (' a b ', names are safe components: no space, quote or backslash), in the
    // card's lane and sort order, so a filtered lane page and its count read only that agent's
    // cards. Kept in step with `cards` by triggers, whatever writes the cards. The insert trigger
    // first deletes the order's rows: INSERT OR REPLACE fires no delete trigger (recursive
    // triggers are off). Names are lowercased as the filter is (LIKE compared ASCII case-blind).
    sql: `
      CREATE TABLE card_agents (
        agent TEXT NOT NULL,
        lane TEXT NOT NULL,
        sort_ms REAL NOT NULL,
        order_id TEXT NOT NULL,
        PRIMARY KEY (agent, lane, sort_ms, order_id)
      ) WITHOUT ROWID;
      CREATE INDEX card_agents_order ON card_agents (order_id);
      CREATE TRIGGER card_agents_on_insert AFTER INSERT ON cards BEGIN
        DELETE FROM card_agents WHERE order_id = NEW.order_id;
        INSERT OR IGNORE INTO card_agents (agent, lane, sort_ms, order_id)
          SELECT lower(value), NEW.lane, NEW.sort_ms, NEW.order_id FROM json_each(${agentsAsJson('NEW.agents')}) WHERE value <> '';
      END;
      CREATE TRIGGER card_agents_on_update AFTER UPDATE OF order_id, lane, sort_ms, agents ON cards BEGIN
        DELETE FROM card_agents WHERE order_id = OLD.order_id;
        INSERT OR IGNORE INTO card_agents (agent, lane, sort_ms, order_id)
          SELECT lower(value), NEW.lane, NEW.sort_ms, NEW.order_id FROM json_each(${agentsAsJson('NEW.agents')}) WHERE value <> '';
      END;
      CREATE TRIGGER card_agents_on_delete AFTER DELETE ON cards BEGIN
        DELETE FROM card_agents WHERE order_id = OLD.order_id;
      END;
      ${FILL_CARD_AGENTS}
    `,
  },
  {
    id: 6,
    name: 'folder_listing_memo',
    // Per order folder, fingerprints of its own stat identity and of its whole listing: a warm
    // start and the periodic looks compare one number per folder instead of every entry's
    // identity. The card's fingerprint is stored so a warm start need not parse cards.
    // Folders without a row are looked at once more (a database from before reads them again).
    sql: `
      CREATE TABLE dirs (dir TEXT PRIMARY KEY, self REAL NOT NULL, listing REAL NOT NULL);
      ALTER TABLE cards ADD COLUMN fp REAL;
    `,
  },
  {
    id: 7,
    name: 'alerts',
    // Alerts (lib/alerts, `serve --alert-webhook`): the sent set, one row per item and reason
    // (an order in Needs attention per flag, in Stale per stale reason, a channel problem), so a
    // restart sends nothing already sent; the deliveries each target still owes or made; each
    // target's last success and error. Times are this machine's clock, ms. Not the folder's:
    // deleting the index forgets what was sent (the next start alerts on what is there).
    sql: `
      CREATE TABLE alerts_sent (
        key TEXT PRIMARY KEY,
        grp TEXT NOT NULL,
        event TEXT NOT NULL,
        order_id TEXT,
        path TEXT,
        reason TEXT NOT NULL,
        first_seen_ms REAL NOT NULL,
        sent_ms REAL,
        gone_ms REAL,
        resolved_ms REAL
      );
      CREATE INDEX alerts_sent_open ON alerts_sent (resolved_ms, grp);
      CREATE TABLE alert_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        target TEXT NOT NULL,
        event TEXT NOT NULL,
        grp TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_ms REAL NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_ms REAL,
        done_ms REAL,
        last_error TEXT
      );
      CREATE INDEX alert_outbox_target ON alert_outbox (target, status, id);
      CREATE TABLE alert_state (
        target TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        label TEXT NOT NULL,
        last_success_ms REAL,
        last_error TEXT,
        last_error_ms REAL,
        sent INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    id: 8,
    name: 'decision_files_index',
    // The operator activity (lib/index/read/activity.ts) reads the decision records' rows: a partial
    // index holds only those (a few in a hundred files), so the query reads them, not every file.
    sql: `CREATE INDEX files_decisions ON files (kind, status, writer) WHERE kind IN ('release', 'interrupt', 'reopen', 'ack', 'supersede');`,
  },
  {
    id: 9,
    name: 'tuning_observations',
    // The stale-threshold report (lib/index/read/tuning-queries.ts, docs/tuning.md). Heartbeat gaps
    // (successive arrivals of one run's heartbeat, this machine's clock) are observed live by the
    // indexer (beat-gaps.ts): per agent a count per log bucket (lib/ledger/tuning.ts), per run
    // how many and the longest; meta 'gaps_since_ms' says since when. They are not in the folder:
    // a rebuilt index starts over. holds.run_ms: claim to result on the holder's clock.
    // cards.age_ref_ms: the arrival a card's age counts from (board-where.ts REF) as a number, so
    // time in lane reads one column. Every folder is passed once more (dirs emptied; signatures
    // stay remembered) so the existing holds and cards get their new columns.
    sql: `
      ALTER TABLE runs ADD COLUMN max_gap_ms REAL;
      ALTER TABLE runs ADD COLUMN gaps INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX runs_gapped ON runs (agent, max_gap_ms) WHERE gaps > 0;
      CREATE TABLE beat_gaps (agent TEXT NOT NULL, bucket INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (agent, bucket)) WITHOUT ROWID;
      ALTER TABLE holds ADD COLUMN run_ms REAL;
      CREATE INDEX holds_run ON holds (agent, run_ms) WHERE run_ms IS NOT NULL;
      ALTER TABLE cards ADD COLUMN age_ref_ms REAL;
      CREATE INDEX cards_lane_age ON cards (lane, age_ref_ms);
      DELETE FROM dirs;
    `,
  },
  {
    id: 10,
    name: 'unverified_cards',
    // A cold index shows the board before it checks signatures: the orders whose card
    // was derived from records not yet verified. The checking pass deletes each row it confirms;
    // a start that finds rows left (a process killed while checking) passes those folders again,
    // verifying everything.
    sql: `CREATE TABLE unverified (order_id TEXT PRIMARY KEY, order_dir TEXT NOT NULL) WITHOUT ROWID;`,
  },
  {
    id: 11,
    name: 'card_retires_column',
    // The names a card's ferry retire releases retire (Card.retires, JSON), in a column of their
    // own with a partial index over the few cards that have any: every settle asks for them, and
    // reading them out of every card's JSON cost a scan of the whole table.
    sql: `
      ALTER TABLE cards ADD COLUMN retires TEXT;
      UPDATE cards SET retires = json_extract(card, '$.retires') WHERE json_type(card, '$.retires') = 'array';
      CREATE INDEX cards_retires ON cards (order_id) WHERE retires IS NOT NULL;
    `,
  },
  {
    id: 12,
    name: 'lane_counts',
    // How many cards each lane has, kept by triggers whatever writes the cards: the unfiltered
    // board reads six rows instead of counting every card at every request.
    // A card is written by INSERT OR REPLACE, which fires no delete trigger (recursive triggers
    // are off): the BEFORE INSERT trigger takes out the row about to be replaced.
    sql: `
      CREATE TABLE lane_counts (lane TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
      ${LANE_COUNT_TRIGGERS}
      ${FILL_LANE_COUNTS}
    `,
  },
  {
    id: 13,
    name: 'attention_since',
    // Per order in Needs attention, when this index first stored it there (this machine's clock):
    // a row per order, kept from the orders each settle changed, instead of a meta JSON object of
    // every attention id read and rewritten at every settle (44,000 ids at 1M orders). The old
    // row's entries move in.
    sql: `
      CREATE TABLE attention_since (order_id TEXT PRIMARY KEY, since_ms REAL NOT NULL) WITHOUT ROWID;
      INSERT OR IGNORE INTO attention_since (order_id, since_ms)
        SELECT j.key, j.value FROM meta m, json_each(m.value) j
        WHERE m.key = 'attention_since' AND json_valid(m.value) AND json_type(m.value) = 'object' AND j.type IN ('integer', 'real');
      DELETE FROM meta WHERE key = 'attention_since';
    `,
  },
  {
    id: 14,
    name: 'start_indexes',
    // What a warm start reads, answered from indexes instead of the cards table (709 MB at a
    // million orders): which folders hold a finished order (folder and lane in one index), how
    // many finished orders each holder holds, and the folder names that may be case variants.
    sql: `
      DROP INDEX cards_dir;
      CREATE INDEX cards_dir ON cards (order_dir, lane);
      CREATE INDEX cards_done_holder ON cards (holder) WHERE lane = 'done' AND holder IS NOT NULL;
      CREATE INDEX dirs_maybe_variant ON dirs (dir) WHERE dir GLOB '*[A-Z]*' OR dir GLOB '*[^!-~]*';
    `,
  },
  {
    id: 15,
    name: 'late_target',
    // A late result can now be acknowledged (Card.late_target), and a card lists each operator's
    // ack and reopen (Card.decided): cards stored with the flag, or with an ack or a reopen in their
    // folder, lack them, so their folders are marked to be passed again at the next start (the
    // mark a start already honours: every signature checked, the card replaced).
    sql: `
      INSERT OR IGNORE INTO unverified (order_id, order_dir) SELECT order_id, order_dir FROM cards WHERE flags LIKE '% late_result %';
      INSERT OR IGNORE INTO unverified (order_id, order_dir)
        SELECT c.order_id, c.order_dir FROM cards c WHERE c.order_dir IN (SELECT order_dir FROM files WHERE kind IN ('ack', 'reopen'));
    `,
  },
  {
    id: 16,
    name: 'decided',
    // Card.decided replaced two fields an index built between migration 15 and it may hold: the
    // folders with an ack or a reopen are passed again once more (none on a new index).
    sql: `
      INSERT OR IGNORE INTO unverified (order_id, order_dir)
        SELECT c.order_id, c.order_dir FROM cards c WHERE c.order_dir IN (SELECT order_dir FROM files WHERE kind IN ('ack', 'reopen'));
    `,
  },
  {
    id: 17,
    name: 'fleet_history',
    // The fleet history (GET /api/holds, /history, lib/index/read/holds-queries.ts): each hold's
    // arrivals, ending and what its numbers read as columns (lib/ledger/holds.ts), the whole row as
    // JSON, read by window
    // (claimed_ms, then ended_ms) overall or per agent. hold_gaps: the silences this index saw
    // inside a hold while it ran (a heartbeat arriving more than stale_after after the one before
    // it, this machine's clock); not in the folder: a rebuilt index starts over. Every folder is
    // passed once more (dirs emptied; signatures stay remembered) so existing holds get the columns.
    sql: `
      ALTER TABLE holds ADD COLUMN claimed_ms REAL;
      ALTER TABLE holds ADD COLUMN ended_ms REAL;
      ALTER TABLE holds ADD COLUMN ending TEXT;
      ALTER TABLE holds ADD COLUMN project TEXT;
      ALTER TABLE holds ADD COLUMN search TEXT;
      ALTER TABLE holds ADD COLUMN beat_ms REAL;
      ALTER TABLE holds ADD COLUMN delivered INTEGER;
      ALTER TABLE holds ADD COLUMN hold TEXT;
      CREATE INDEX holds_window ON holds (claimed_ms, order_id, agent, ended_ms);
      CREATE INDEX holds_agent_window ON holds (agent, claimed_ms, order_id, ended_ms);
      CREATE TABLE hold_gaps (order_id TEXT NOT NULL, agent TEXT NOT NULL, from_ms REAL NOT NULL, to_ms REAL NOT NULL, PRIMARY KEY (order_id, agent, from_ms)) WITHOUT ROWID;
      CREATE INDEX hold_gaps_to ON hold_gaps (to_ms);
      DELETE FROM dirs;
    `,
  },
];

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

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.id ?? 0;

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

/** Opens the index read-only (request handlers). Throws when it does not exist yet. */
export function openReader(file: string): DB {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

let shared: { file: string; id: string | null; db: DB } | null = null;

/**
 * The process's read-only connection to the index named by CLAIMBOARD_DB (the web server's),
 * opened on first use and kept while the file at that path is the one opened (its device and
 * inode, one stat per call): a database deleted or replaced while serving is reopened, so the
 * board is never read from a file the writer left. Throws when the variable is unset or the file
 * does not exist (yet, or any more: the writer is rebuilding it).
 */
export function readDb(): DB {
  const file = settings.dbFile();
  if (!file) throw new Error('CLAIMBOARD_DB is not set: start the dashboard with `claimboard serve`');
  const id = dbIdentity(file);
  if (shared && shared.file === file && shared.id === id) return shared.db;
  if (shared) {
    shared.db.close();
    shared = null;
  }
  const db = openReader(file);
  shared = { file, id: dbIdentity(file), db };
  return db;
}

/** An in-memory index (tests). */
export function openMemory(): DB {
  const db = new Database(':memory:');
  prepare(db);
  return db;
}
