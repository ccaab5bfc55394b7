import 'server-only';
/**
 * The index's writer side in SQL: every statement the indexer (and `claimboard repin`) runs
 * against the index, prepared once per connection, with the row types they read. The tables are
 * db.ts's; the meta keys meta.ts's; the read side is queries.ts (and the other *-queries
 * modules). Nothing here decides anything: the indexer says what to store, this says how.
 *
 * Times are ms on this machine's clock: arrivals are file ctimes here, the rest the indexer's
 * own clock.
 */
import type { Statement } from 'better-sqlite3';
import { bulkLoadOpen, type DB } from '../db';
import { readMeta, writeMeta, writeMetaIfAbsent, type MetaKey, type MetaValues } from './meta';
import type { Card, Lane, OrderState } from '../../ledger/derive';
import type { Problem } from '../../ledger/channel';
import type { LedgerFileReport } from '../../ledger/ledger-file';
import type { Hold } from '../../ledger/holds';
import type { BeatSeen, FileRow, OrderPassResult } from '../writer/order-pass';
import type { StoredAgent } from '../types';

/** A folder's remembered fingerprints (order-pass.ts: its own stat identity, its whole listing). */
export interface DirRow {
  readonly dir: string;
  readonly self: number;
  readonly listing: number;
}

/** One order's row as a warm start needs it: no card parsed unless its fingerprint is missing. */
export interface CardInfoRow {
  readonly order_id: string;
  readonly order_dir: string;
  readonly lane: Lane;
  readonly state: OrderState;
  readonly holder: string | null;
  readonly fp: number | null;
  /** The card JSON, only when `fp` is null (a row from before migration 6). */
  readonly card: string | null;
}

/** A ledger file's stored report with the stat identity and keys it was verified against. */
export interface LedgerFileRow {
  readonly path: string;
  readonly entries: number;
  readonly intact: number;
  readonly broken_at: number | null;
  readonly stat: string;
  readonly keys: string;
  readonly reason: string | null;
}

/** A file of a folder as stored at its last pass: its row, and when it was first seen here. */
export interface StoredFileRow extends Omit<FileRow, 'order_dir'> {
  readonly first_seen_ms: number;
}

/** A remembered signature check (valid while the file's stat identity is `stat`). */
export interface RememberedSig {
  readonly stat: string;
  readonly key: string;
  readonly ok: boolean;
}

/** A card as stored, before settle applies the channel-wide facts to it. */
export interface CardRow {
  readonly card: string;
  readonly order_dir: string;
  readonly next_ms: number | null;
}

/** The columns of a card row besides the card itself (the indexer computes them). */
export interface CardColumns {
  readonly dir: string;
  /** ' a b ': the holder and every agent the card's flags involve. */
  readonly agents: string;
  /** ' f1 f2 ' */
  readonly flags: string;
  /** Lowercase words: id, holder, project, reason, state, flags. */
  readonly search: string;
  readonly sortMs: number;
  /** When the card may change with no file changing, or null. */
  readonly nextMs: number | null;
  readonly json: string;
  readonly fp: number;
  /** The arrival the card's age counts from, or null: the folder's newest file then. */
  readonly ageRefMs: number | null;
}

/** A file row's columns, in the order addFile and addFiles take them. */
const FILE_COLUMNS = 'path, order_dir, stat, type, arrival_ms, first_seen_ms, kind, status, problem, writer, sig_key, sig_ok';
const FILE_ROW_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const ADD_FILES = `INSERT OR REPLACE INTO files (${FILE_COLUMNS}) VALUES`;

/** Every statement the indexer runs (exported for the tests of their query plans). */
export const SQL = {
  allCards: 'SELECT card FROM cards ORDER BY order_id',
  allProblems: 'SELECT path, problem, detail, line, order_id FROM problems ORDER BY path',
  pins: 'SELECT name, public_key FROM pins',
  addPin: 'INSERT OR IGNORE INTO pins (name, public_key, pinned_at_ms) VALUES (?, ?, ?)',
  pinnedKey: 'SELECT public_key FROM pins WHERE name = ?',
  repin: 'INSERT OR REPLACE INTO pins (name, public_key, pinned_at_ms) VALUES (?, ?, ?)',
  anyFile: 'SELECT 1 FROM files LIMIT 1',
  setDir: 'INSERT OR REPLACE INTO dirs (dir, self, listing) VALUES (?, ?, ?)',
  deleteDir: 'DELETE FROM dirs WHERE dir = ?',
  ledgerMemos: 'SELECT path, entries, intact, broken_at, stat, keys, reason FROM ledger_files WHERE stat IS NOT NULL',
  latestArrivals: 'SELECT writer, MAX(arrival_ms) AS t FROM files WHERE writer IS NOT NULL GROUP BY writer',
  // The same, one seek of files_writer per writer (a few dozen) instead of reading the whole
  // index (5.9 million entries at a million orders: 0.5 s, against 1 ms).
  latestArrivalsSeek: `WITH RECURSIVE w(writer) AS (
      SELECT MIN(writer) FROM files WHERE writer IS NOT NULL
      UNION ALL SELECT (SELECT MIN(writer) FROM files WHERE writer > w.writer) FROM w WHERE w.writer IS NOT NULL)
    SELECT writer, (SELECT MAX(arrival_ms) FROM files f WHERE f.writer = w.writer) AS t FROM w WHERE writer IS NOT NULL`,
  latestArrivalOf: 'SELECT MAX(arrival_ms) AS t FROM files WHERE writer = ?',
  pathsIn: 'SELECT path FROM files WHERE order_dir = ?',
  sigsIn: 'SELECT path, stat, sig_key, sig_ok FROM files WHERE order_dir = ? AND sig_key IS NOT NULL',
  arrivalsIn: 'SELECT path, stat, arrival_ms FROM files WHERE order_dir = ?',
  filesIn: 'SELECT path, stat, type, arrival_ms, first_seen_ms, kind, status, problem, writer, sig_key, sig_ok FROM files WHERE order_dir = ?',
  addFile: `${ADD_FILES} ${FILE_ROW_VALUES}`,
  addLedgerFile: `${ADD_FILES} (?, NULL, ?, 'file', ?, ?, 'ledger', 'ledger', NULL, ?, NULL, NULL)`,
  channelFilePaths: 'SELECT path FROM files WHERE order_dir IS NULL',
  deleteFile: 'DELETE FROM files WHERE path = ?',
  deleteProblemsIn: 'DELETE FROM problems WHERE scope = ?',
  addProblem: 'INSERT INTO problems (scope, path, problem, detail, line, order_id) VALUES (?, ?, ?, ?, ?, ?)',
  deleteLedgerFiles: 'DELETE FROM ledger_files',
  addLedgerReport: 'INSERT INTO ledger_files (path, entries, intact, broken_at, stat, keys, reason) VALUES (?, ?, ?, ?, ?, ?, ?)',
  deleteHolds: 'DELETE FROM holds WHERE order_id = ?',
  addHold: 'INSERT INTO holds (order_id, agent, run_ms, retire, claimed_ms, ended_ms, ending, project, search, beat_ms, delivered, hold) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  deleteHoldGaps: 'DELETE FROM hold_gaps WHERE order_id = ?',
  lastAgentBeat: 'SELECT MAX(last_arrival_ms) AS t FROM runs WHERE order_id = ? AND agent = ?',
  addHoldGap: 'INSERT OR REPLACE INTO hold_gaps (order_id, agent, from_ms, to_ms) VALUES (?, ?, ?, ?)',
  deleteCard: 'DELETE FROM cards WHERE order_id = ?',
  markUnverified: 'INSERT OR REPLACE INTO unverified (order_id, order_dir) VALUES (?, ?)',
  clearUnverified: 'DELETE FROM unverified WHERE order_id = ?',
  unverifiedDirs: 'SELECT DISTINCT order_dir FROM unverified',
  unverifiedCount: 'SELECT COUNT(*) FROM unverified',
  deleteDeps: 'DELETE FROM deps WHERE order_id = ?',
  addDep: 'INSERT INTO deps (order_id, dep) VALUES (?, ?)',
  upsertRun: `
      INSERT INTO runs (order_id, agent, run, pid, first_arrival_ms, last_arrival_ms, last_writer_at, writer_offset_ms, beats)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
      ON CONFLICT (order_id, agent, run) DO UPDATE SET
        pid = excluded.pid, last_arrival_ms = excluded.last_arrival_ms, last_writer_at = excluded.last_writer_at,
        writer_offset_ms = excluded.writer_offset_ms,
        beats = runs.beats + (excluded.last_arrival_ms <> runs.last_arrival_ms)`,
  lastBeatArrival: 'SELECT last_arrival_ms AS t FROM runs WHERE order_id = ? AND agent = ? AND run = ?',
  addRunGap: 'UPDATE runs SET gaps = gaps + 1, max_gap_ms = max(COALESCE(max_gap_ms, 0), ?) WHERE order_id = ? AND agent = ? AND run = ?',
  countAgentGap: 'INSERT INTO beat_gaps (agent, bucket, n) VALUES (?, ?, 1) ON CONFLICT (agent, bucket) DO UPDATE SET n = n + 1',
  writeCard:
    "INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, next_ms, card, fp, retires, age_ref_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT MAX(arrival_ms) FROM files WHERE order_dir = ? AND type = 'file')))",
  cardRow: 'SELECT card, order_dir, next_ms FROM cards WHERE order_id = ?',
  addChange: 'INSERT INTO changes (order_id, at_ms) VALUES (?, ?)',
  trimChanges: 'DELETE FROM changes WHERE seq < (SELECT MAX(seq) FROM changes) - 10000',
  ferryRetired: 'SELECT DISTINCT j.value AS a FROM cards INDEXED BY cards_retires, json_each(cards.retires) j WHERE cards.retires IS NOT NULL',
  dueDirs: 'SELECT order_dir FROM cards WHERE next_ms IS NOT NULL AND next_ms <= ?',
  nextDue: 'SELECT MIN(next_ms) AS t FROM cards WHERE next_ms IS NOT NULL',
  isAttention: "SELECT lane = 'attention' FROM cards WHERE order_id = ?",
  attentionSinceAdd: 'INSERT OR IGNORE INTO attention_since (order_id, since_ms) VALUES (?, ?)',
  attentionSinceDelete: 'DELETE FROM attention_since WHERE order_id = ?',
  attentionSinceTrim: "DELETE FROM attention_since WHERE order_id NOT IN (SELECT order_id FROM cards WHERE lane = 'attention')",
  attentionSinceFill: "INSERT OR IGNORE INTO attention_since (order_id, since_ms) SELECT order_id, ? FROM cards WHERE lane = 'attention'",
  offsetCount: 'SELECT COUNT(*) AS n FROM runs WHERE agent = ? AND writer_offset_ms IS NOT NULL',
  offsetAt: 'SELECT writer_offset_ms AS o FROM runs WHERE agent = ? AND writer_offset_ms IS NOT NULL ORDER BY writer_offset_ms LIMIT 1 OFFSET ?',
  deleteAgents: 'DELETE FROM agents',
  addAgent: 'INSERT INTO agents (name, summary) VALUES (?, ?)',
} as const;

type Statements = { readonly [K in keyof typeof SQL]: Statement };

/** addFiles: rows per statement. */
const FILE_ROWS_PER_STATEMENT = 8;

/**
 * The writer's statements on one connection. One per indexer (and per `repin`); not for the
 * web server's read-only connection.
 */
export class IndexStore {
  private readonly s: Statements;
  /** addFiles' statements by row count (prepared when first needed). */
  private readonly addFilesOf: (Statement | undefined)[] = [];

  constructor(readonly db: DB) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, db.prepare(sql)])) as unknown as Statements;
  }

  /** Runs `fn` in one transaction (nested: a savepoint). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  readMeta<K extends MetaKey>(key: K): MetaValues[K] | null {
    return readMeta(this.db, key);
  }

  writeMeta<K extends MetaKey>(key: K, value: MetaValues[K]): void {
    writeMeta(this.db, key, value);
  }

  writeMetaIfAbsent<K extends MetaKey>(key: K, value: MetaValues[K]): void {
    writeMetaIfAbsent(this.db, key, value);
  }

  /** Every card (by order id) and problem (by path), as stored. */
  cardsAndProblems(): { orders: Card[]; problems: Problem[] } {
    return {
      orders: (this.s.allCards.all() as { card: string }[]).map((r) => JSON.parse(r.card) as Card),
      problems: this.s.allProblems.all() as Problem[],
    };
  }

  // --- pins: first key seen, replaced only by `claimboard repin` ---

  /** Pinned keys by name. */
  pins(): Map<string, string> {
    return new Map((this.s.pins.all() as { name: string; public_key: string }[]).map((r) => [r.name, r.public_key]));
  }

  /** Pins `key` for `name` unless a key is pinned already. */
  addPin(name: string, key: string, atMs: number): void {
    this.s.addPin.run(name, key, atMs);
  }

  pinnedKey(name: string): string | null {
    return (this.s.pinnedKey.get(name) as { public_key: string } | undefined)?.public_key ?? null;
  }

  /** Pins the given keys, replacing what is pinned for those names (serve's `--ferryman-pins`: ferry's pins on this machine win), in one transaction. */
  replacePins(pins: ReadonlyMap<string, string>, atMs: number): void {
    this.transaction(() => {
      for (const [name, key] of pins) this.s.repin.run(name, key, atMs);
    });
  }

  /** Replaces `name`'s pinned key and bumps `pins_version` (the running indexer rebuilds its roster), in one transaction. */
  repin(name: string, key: string, atMs: number): void {
    this.transaction(() => {
      this.s.repin.run(name, key, atMs);
      this.writeMeta('pins_version', String(atMs));
    });
  }

  // --- what a start loads ---

  /** Whether any file was ever stored (false: a cold start). */
  hasFiles(): boolean {
    return this.s.anyFile.get() !== undefined;
  }

  ledgerMemos(): LedgerFileRow[] {
    return this.s.ledgerMemos.all() as LedgerFileRow[];
  }

  /** The latest arrival of every writer's files. */
  latestArrivals(): { writer: string; t: number }[] {
    // A cold index's bulk load has dropped files_writer: there, one pass over the files is the way.
    const bulk = bulkLoadOpen(this.db);
    return (bulk ? this.s.latestArrivals : this.s.latestArrivalsSeek).all() as { writer: string; t: number }[];
  }

  /** The latest arrival of `writer`'s files, or null when none is stored. */
  latestArrivalOf(writer: string): number | null {
    return (this.s.latestArrivalOf.get(writer) as { t: number | null }).t;
  }

  // --- folders ---

  setDir(dir: string, self: number, listing: number): void {
    this.s.setDir.run(dir, self, listing);
  }

  deleteDir(dir: string): void {
    this.s.deleteDir.run(dir);
  }

  /** The paths stored for a folder at its last pass. */
  pathsIn(dir: string): Iterable<string> {
    return this.s.pathsIn.pluck().iterate(dir) as Iterable<string>;
  }

  /** The remembered signature checks of the files of some folders, by path. */
  rememberedSigsIn(dirs: readonly string[]): Map<string, RememberedSig> {
    const m = new Map<string, RememberedSig>();
    for (const d of dirs) {
      for (const r of this.s.sigsIn.iterate(d) as Iterable<{ path: string; stat: string; sig_key: string; sig_ok: number }>) m.set(r.path, { stat: r.stat, key: r.sig_key, ok: r.sig_ok === 1 });
    }
    return m;
  }

  /** The stored arrival (ms, the index's clock) and stat identity of every file of some folders, by path (kept across a clock step: steady-clock.ts). */
  arrivalsIn(dirs: readonly string[]): Map<string, { readonly stat: string; readonly arrival_ms: number }> {
    const m = new Map<string, { stat: string; arrival_ms: number }>();
    for (const d of dirs) {
      for (const r of this.s.arrivalsIn.iterate(d) as Iterable<{ path: string; stat: string; arrival_ms: number }>) m.set(r.path, { stat: r.stat, arrival_ms: r.arrival_ms });
    }
    return m;
  }

  /** Every file row stored for a folder. */
  filesIn(dir: string): StoredFileRow[] {
    return this.s.filesIn.all(dir) as StoredFileRow[];
  }

  addFile(f: FileRow, firstSeenMs: number): void {
    this.s.addFile.run(f.path, f.order_dir, f.stat, f.type, f.arrival_ms, firstSeenMs, f.kind, f.status, f.problem, f.writer, f.sig_key, f.sig_ok);
  }

  /**
   * Rows of distinct paths (a folder's), each first seen at `firstSeenMs`, several per
   * statement: a cold index stores 590,000 file rows at 100,000 orders, and a statement a row
   * cost about a third more (the calls, not SQLite's inserts).
   */
  addFiles(files: readonly FileRow[], firstSeenMs: number): void {
    for (let i = 0; i < files.length; i += FILE_ROWS_PER_STATEMENT) {
      const n = Math.min(FILE_ROWS_PER_STATEMENT, files.length - i);
      let st = this.addFilesOf[n];
      if (!st) st = this.addFilesOf[n] = this.db.prepare(`${ADD_FILES} ${Array(n).fill(FILE_ROW_VALUES).join(', ')}`);
      const args: unknown[] = [];
      for (let j = i; j < i + n; j++) {
        const f = files[j] as FileRow;
        args.push(f.path, f.order_dir, f.stat, f.type, f.arrival_ms, firstSeenMs, f.kind, f.status, f.problem, f.writer, f.sig_key, f.sig_ok);
      }
      st.run(args);
    }
  }

  /** A ledger file as a file of its signer, at the channel level. */
  addLedgerFile(path: string, stat: string, arrivalMs: number, firstSeenMs: number, signer: string): void {
    this.s.addLedgerFile.run(path, stat, arrivalMs, firstSeenMs, signer);
  }

  /** The paths of the channel-level files stored (order_dir NULL). */
  channelFilePaths(): string[] {
    return (this.s.channelFilePaths.all() as { path: string }[]).map((r) => r.path);
  }

  deleteFile(path: string): void {
    this.s.deleteFile.run(path);
  }

  // --- problems: scoped to the folder they came from, '' for the channel level, 'ledger' for ledger files ---

  deleteProblemsIn(scope: string): void {
    this.s.deleteProblemsIn.run(scope);
  }

  addProblem(scope: string, p: OrderPassResult['problems'][number]): void {
    this.s.addProblem.run(scope, p.path, p.problem, p.detail, p.line ?? null, p.order_id ?? null);
  }

  /** Replaces the ledger files' reports and their `ledger_broken` problems. */
  replaceLedgerReports(rows: readonly { path: string; report: LedgerFileReport; stat: string | null; keys: string | null }[]): void {
    this.transaction(() => {
      this.s.deleteProblemsIn.run('ledger');
      this.s.deleteLedgerFiles.run();
      for (const { path, report, stat, keys } of rows) {
        this.s.addLedgerReport.run(path, report.entries, report.intact ? 1 : 0, report.broken_at ?? null, stat, keys, report.reason ?? null);
        if (!report.intact) this.s.addProblem.run('ledger', path, 'ledger_broken', report.reason ?? 'chain broken', report.broken_at ?? null, null);
      }
    });
  }

  // --- an order's rows ---

  deleteHolds(id: string): void {
    this.s.deleteHolds.run(id);
  }

  /** One claim's row: the hold (lib/ledger/holds.ts), its run's duration (ms or null), whether a retirement of its agent releases the order now. */
  addHold(id: string, hold: Hold, runMs: number | null, retire: boolean): void {
    const search = [hold.order_id, hold.agent, hold.project_id, hold.ending, hold.ended_by ?? '', hold.reason].join(' ').toLowerCase();
    this.s.addHold.run(id, hold.agent, runMs, retire ? 1 : 0, hold.claimed_ms, hold.ended_ms, hold.ending, hold.project_id.toLowerCase(), search, hold.beat_ms, hold.delivered ? 1 : 0, JSON.stringify(hold));
  }

  /** Forgets the silences seen inside an order's holds (the order left the channel). */
  deleteHoldGaps(id: string): void {
    this.s.deleteHoldGaps.run(id);
  }

  /** When the latest heartbeat of `agent` on the order arrived here as stored (any run), or undefined. */
  lastAgentBeat(orderId: string, agent: string): number | undefined {
    return (this.s.lastAgentBeat.get(orderId, agent) as { t: number | null } | undefined)?.t ?? undefined;
  }

  /** A silence seen inside a hold: nothing of the agent's run on the order arrived between `fromMs` and `toMs`. */
  addHoldGap(orderId: string, agent: string, fromMs: number, toMs: number): void {
    this.s.addHoldGap.run(orderId, agent, fromMs, toMs);
  }

  deleteDeps(id: string): void {
    this.s.deleteDeps.run(id);
  }

  addDep(id: string, dep: string): void {
    this.s.addDep.run(id, dep);
  }

  /** An order whose card was derived from records not verified yet (a cold index's first look). */
  markUnverified(id: string, dir: string): void {
    this.s.markUnverified.run(id, dir);
  }

  /** The order's card is derived from verified records (or it has none). */
  clearUnverified(id: string): void {
    this.s.clearUnverified.run(id);
  }

  /** The folders of the orders still marked unverified. */
  unverifiedDirs(): string[] {
    return this.s.unverifiedDirs.pluck().all() as string[];
  }

  /** How many orders are still marked unverified. */
  unverifiedCount(): number {
    return this.s.unverifiedCount.pluck().get() as number;
  }

  deleteCard(id: string): void {
    this.s.deleteCard.run(id);
    this.s.clearUnverified.run(id);
  }

  /** Records a heartbeat's arrival in its run (beats counts arrivals that moved). */
  upsertRun(b: BeatSeen): void {
    this.s.upsertRun.run(b.order_id, b.agent, b.run, b.pid, b.arrival_ms, b.arrival_ms, b.at, b.at_ms - b.arrival_ms);
  }

  /** The run's stored last heartbeat arrival, or undefined when the run is not stored. */
  lastBeatArrival(b: BeatSeen): number | undefined {
    return (this.s.lastBeatArrival.get(b.order_id, b.agent, b.run) as { t: number } | undefined)?.t;
  }

  /** Counts a heartbeat gap: on its run (how many, the longest) and in its agent's log bucket. */
  addBeatGap(b: BeatSeen, gapMs: number, bucket: number): void {
    this.s.addRunGap.run(gapMs, b.order_id, b.agent, b.run);
    this.s.countAgentGap.run(b.agent, bucket);
  }

  /** Writes a card row (replacing it); its age reference falls back to the folder's newest file. */
  writeCard(card: Card, c: CardColumns): void {
    const retires = card.retires && card.retires.length > 0 ? JSON.stringify(card.retires) : null;
    this.s.writeCard.run(card.order_id, c.dir, card.lane, card.state, card.holder, c.agents, c.flags, c.search, c.sortMs, c.nextMs, c.json, c.fp, retires, c.ageRefMs, c.dir);
  }

  cardRow(id: string): CardRow | undefined {
    return this.s.cardRow.get(id) as CardRow | undefined;
  }

  // --- the change feed (GET /api/events): one row per changed order, '*' for everything ---

  addChange(id: string, atMs: number): void {
    this.s.addChange.run(id, atMs);
  }

  /** Keeps the newest 10,000 changes. */
  trimChanges(): void {
    this.s.trimChanges.run();
  }

  // --- what settles and the clock ask ---

  /** Names any card's `retires` lists (ferry retire releases): read off the partial index of the cards that have any, not every card. */
  ferryRetiredNames(): Set<string> {
    return new Set((this.s.ferryRetired.all() as { a: string }[]).map((r) => r.a));
  }

  /** The folders of cards whose `next_ms` is at or before `nowMs`. */
  dueDirs(nowMs: number): string[] {
    return (this.s.dueDirs.all(nowMs) as { order_dir: string }[]).map((r) => r.order_dir);
  }

  /** The earliest `next_ms` of any card, or null. */
  nextDueMs(): number | null {
    return (this.s.nextDue.get() as { t: number | null }).t;
  }

  /** The orders in the Needs attention lane. */
  /**
   * Keeps `attention_since` equal to the Needs attention lane: an order of `ids` now there gets
   * `nowMs` (ms, this machine's clock) unless it has a row, any other loses its row; `ids` null:
   * every card is looked at (a settle of every card).
   */
  noteAttention(ids: Iterable<string> | null, nowMs: number): void {
    const s = this.s;
    if (ids === null) {
      s.attentionSinceTrim.run();
      s.attentionSinceFill.run(nowMs);
      return;
    }
    for (const id of ids) {
      if (s.isAttention.pluck().get(id) === 1) s.attentionSinceAdd.run(id, nowMs);
      else s.attentionSinceDelete.run(id);
    }
  }

  // --- agents ---

  /** The median clock-plus-sync offset of an agent's runs (ms), read off the (agent, offset) index, or null. */
  medianOffset(agent: string): number | null {
    const n = (this.s.offsetCount.get(agent) as { n: number }).n;
    return n === 0 ? null : ((this.s.offsetAt.get(agent, Math.floor(n / 2)) as { o: number } | undefined)?.o ?? null);
  }

  /** Replaces the agents table. */
  replaceAgents(rows: readonly StoredAgent[]): void {
    this.transaction(() => {
      this.s.deleteAgents.run();
      for (const a of rows) this.s.addAgent.run(a.name, JSON.stringify(a));
    });
  }
}
