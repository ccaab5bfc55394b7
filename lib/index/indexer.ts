import 'server-only';
/**
 * The indexer: keeps the SQLite index equal to what the pure core derives from the folder
 * (DESIGN.md "Shape"; LEDGER.md §1.2, §6), one order folder at a time.
 *
 * - Folder events (FolderWatch: the channel level, `tasks/`, and the folders of orders not
 *   finished) are hints; periodic looks are the truth: a quick look every `rescanMs` compares
 *   each order folder's own stat identity (an entry added, removed or renamed in it changes it:
 *   how Syncthing and atomic writers deliver), and a sweep looks at every entry of every folder
 *   a slice at a time (an in-place rewrite whose event was lost).
 * - A folder is read again only when the stat identity (size, mtime, ctime, inode, type) of
 *   one of its entries changed (one 53-bit fingerprint of its listing is remembered per folder);
 *   its files are read fresh from disk, signatures checked against remembered outcomes first
 *   (stored per file with its stat identity), so re-deriving costs no cryptography for files
 *   that did not change.
 * - The channel-wide facts of a card (the stale reason from the holder's latest arrival
 *   anywhere, dependencies) are applied from small in-memory maps, so a change re-derives only
 *   its folder, the orders that depend on it, and the stale orders of an agent whose latest
 *   arrival moved.
 * - Staleness moves with the clock: each card knows when it may change with no file changing
 *   (`next_ms`); a timer re-derives those when the time comes.
 * - A cold index of a large folder reads and verifies on every core (worker threads).
 * One process writes the index; request handlers open it read-only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Stats } from 'node:fs';
import type { DB } from './db';
import { assertChannelRoot, entryFromStat, isRealDir, listOrderFolder, walkChannelLevel } from './read-channel';
import { nodeVerify } from './node-verify';
import { MetricsRecorder } from './metrics-record';
import { byCanonicalDir, channelContext, isTrustPath, workersOf, duplicateOrderDir, ledgerReportOf, readEntry, type ChannelContext, type FileOutcome, type Problem } from '../ledger/channel';
import { canonicalName } from '../ledger/names';
import type { LedgerFileReport } from '../ledger/ledger-file';
import type { Ed25519Verify } from '../ledger/verify';
import { withChannelFacts, type Card, type Lane, type OrderState } from '../ledger/derive';
import type { IndexProgress, StoredAgent } from './types';
import { cyrb53, listingFingerprint, passOrder, statKey, type OrderPassResult, type PassContext } from './order-pass';
import { runPassesInWorkers } from './worker-pool';
import { FolderWatch } from './folder-watch';
import { BeatGapRecorder } from './beat-gaps';
import type { FleetAgent } from './ferryman-state';

export interface IndexerOptions {
  /** The channel root. */
  readonly root: string;
  readonly db: DB;
  /** stale_after, ms (LEDGER.md §6). */
  readonly staleAfterMs: number;
  /** Configured operators (CLAIMBOARD_OPERATORS); empty: roster roles. */
  readonly operators?: readonly string[];
  /** This machine's ferry fleet roster (`--ferryman-state`, ferryman-state.ts). */
  readonly fleetAgents?: readonly FleetAgent[];
  /** This machine's clock, ms (default Date.now). */
  readonly clock?: () => number;
  /**
   * Quick look period, ms (default: 20x the last quick look's own duration, at least 1 000: about
   * 1 s up to ~10,000 orders, 8 s at 100,000, about 5% of a core); the sweep of every entry
   * starts at most this often too (default at least 10 000).
   */
  readonly rescanMs?: number;
  /** Subscribe to folder events (default true). */
  readonly watch?: boolean;
  /** Progress and notices, one line each. */
  readonly log?: (line: string) => void;
  /** The Ed25519 primitive (default node:crypto). Worker threads always use node:crypto. */
  readonly verify?: Ed25519Verify;
  /** Worker threads for a cold index, besides this thread (default: one per other core when more than 2,000 folders are dirty; 0 = none: this thread alone). */
  readonly workers?: number;
  /**
   * How long a file that vanished is still believed, ms (default 1 000): Syncthing replaces a
   * received file by unlinking it and then renaming its temp file into place, and a pass in
   * between must not see the heartbeat (or roster entry) gone.
   */
  readonly vanishGraceMs?: number;
  /**
   * Told after each pass has stored and settled its cards, and after the channel level (roster,
   * ledgers, channel problems) was read again. Called synchronously inside the pass: it must
   * return at once (the serve process's alerts, lib/alerts/engine.ts, only schedule their look).
   */
  readonly onSettled?: () => void;
}

/** What the indexer keeps of one order (small: the board's channel-wide facts need it). */
interface OrderInfo {
  readonly id: string;
  readonly dir: string;
  state: OrderState;
  lane: Lane;
  holder: string | null;
  deps: readonly string[];
  /** Fingerprint of the stored card JSON. */
  fp: number;
}

/** FNV-1a over a string, 32 bits: a cheap fingerprint to notice that a card changed. */
function fingerprint(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) + s.length * 4294967296;
}

/** One copy of each of the few distinct state, lane and agent names (a warm start loads 100,000 of each). */
const interned = new Map<string, string>();
function intern<T extends string>(s: T): T {
  const hit = interned.get(s);
  if (hit !== undefined) return hit as T;
  if (interned.size < 10_000) interned.set(s, s);
  return s;
}
const NO_DEPS: readonly string[] = [];

const dirOf = (rel: string): string | null => {
  const parts = rel.split('/');
  return parts[0] === 'tasks' && parts.length >= 2 ? (parts[1] ?? null) : null;
};

/**
 * Folders whose names fold to one order id (`tasks/T1` beside `tasks/t1`; names compare
 * case-insensitively, LEDGER.md §2) decided as deriveOutcomes decides: in byCanonicalDir order,
 * the first holding a readable order keeps the id; each other is one `invalid` problem at its
 * folder, its files not read (no card, no writer arrivals). `results` must hold every folder of
 * such a group; they come back in that order (a keeper before the folders it shadows).
 */
export function foldCaseVariants(results: readonly OrderPassResult[]): OrderPassResult[] {
  const byDir = new Map(results.map((r) => [r.dir, r]));
  const held = new Map<string, string>();
  return byCanonicalDir([...byDir.keys()]).map((d) => {
    const r = byDir.get(d) as OrderPassResult;
    if (!r.card) return r;
    const keeper = held.get(r.card.order_id);
    if (keeper === undefined) {
      held.set(r.card.order_id, r.dir);
      return r;
    }
    return {
      ...r,
      card: null,
      problems: [duplicateOrderDir(r.dir, `tasks/${keeper}/order.json`, r.card.order_id)],
      holds: [],
      beats: [],
      next_ms: null,
      files: r.files.map((f) => ({ ...f, writer: null })),
    };
  });
}

export class Indexer {
  /** Per order folder, as of its last pass: a fingerprint of its own stat identity (quick look) ... */
  private readonly selfOf = new Map<string, number>();
  /** ... and of its whole listing, itself included (full look); see listingFingerprint. */
  private readonly listing = new Map<string, number>();
  /** Stat identity of the channel-level entries. */
  private channelStats = new Map<string, string>();
  /** Outcomes of the channel-level files (agents/, retirements/, root files): few. */
  private readonly channelFiles = new Map<string, FileOutcome>();
  /** Ledger reports by path, valid while the file's stat identity and the keys it verifies against are the same. */
  private readonly ledgerMemo = new Map<string, { stat: string; keys: string; report: LedgerFileReport }>();
  private readonly orders = new Map<string, OrderInfo>();
  private readonly dirToId = new Map<string, string>();
  /** Known folders whose names are not in canonical form (rare): their case siblings are passed with them. */
  private readonly variantDirs = new Set<string>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly lastArrival = new Map<string, number>();
  private readonly pins = new Map<string, string>();
  private pinsVersion = '';
  private channel: ChannelContext | null = null;
  private rosterSig = '';
  private readonly clock: () => number;
  private readonly verify: Ed25519Verify;
  private readonly log: (line: string) => void;
  private pending = new Set<string>();
  /** Folders in which a file vanished in this look. */
  private lostNow = new Set<string>();
  /** Channel-level listing from before, when a channel-level file vanished in this look. */
  private channelLostNow: Map<string, string> | null = null;
  /** Folders (and '' for the channel level) whose vanished files are believed until a deadline (ms). */
  private readonly deferred = new Map<string, number>();
  private graceTimer: NodeJS.Timeout | null = null;
  private pendingAll = false;
  private pumpTimer: NodeJS.Timeout | null = null;
  private staleTimer: NodeJS.Timeout | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private watcher: FolderWatch | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  /** Folders the running sweep has still to look at. */
  private sweepQueue: string[] = [];
  private stopped = false;
  private verified = 0;
  /** Records heartbeat gaps seen live (beat-gaps.ts); made at start(), whose moment it needs. */
  private beatGaps: BeatGapRecorder | null = null;
  private progress: IndexProgress = { phase: 'starting', files_seen: 0, files_read: 0, files_verified: 0, ready_at_ms: null };

  constructor(private readonly opts: IndexerOptions) {
    this.clock = opts.clock ?? Date.now;
    this.log = opts.log ?? (() => {});
    const base = opts.verify ?? nodeVerify;
    this.verify = (k, m, s) => {
      this.verified++;
      return base(k, m, s);
    };
  }

  /** The cards and problems as stored now (tests, the serve command). */
  get state(): { readonly orders: Card[]; readonly problems: Problem[] } {
    const db = this.opts.db;
    return {
      orders: (db.prepare('SELECT card FROM cards ORDER BY order_id').all() as { card: string }[]).map((r) => JSON.parse(r.card) as Card),
      problems: db.prepare('SELECT path, problem, detail, line, order_id FROM problems ORDER BY path').all() as Problem[],
    };
  }

  /** The directories watched now, sorted ('' is the channel root); empty without folder events. */
  get watched(): string[] {
    return this.watcher?.list() ?? [];
  }

  /** Signatures verified (by this process) since start. */
  get verifiedCount(): number {
    return this.verified;
  }

  private setProgress(p: Partial<IndexProgress>): void {
    this.progress = { ...this.progress, ...p };
    this.opts.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('progress', JSON.stringify(this.progress));
  }

  private readPinsVersion(): string {
    return (this.opts.db.prepare("SELECT value FROM meta WHERE key = 'pins_version'").get() as { value: string } | undefined)?.value ?? '';
  }

  private setMeta(key: string, value: string): void {
    this.opts.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }

  /**
   * First index: loads what the database remembers, stats the whole folder, re-reads only the
   * folders in which something changed (all of them on a cold start), derives and stores; then
   * watches. Throws ChannelUnreadableError when the root is not a channel.
   */
  async start(): Promise<void> {
    assertChannelRoot(this.opts.root);
    const db = this.opts.db;
    const t0 = this.clock();
    this.beatGaps = new BeatGapRecorder(db, t0);
    this.setMeta('channel', path.resolve(this.opts.root));
    this.setMeta('stale_after_ms', String(this.opts.staleAfterMs));
    for (const r of db.prepare('SELECT name, public_key FROM pins').all() as { name: string; public_key: string }[]) this.pins.set(r.name, r.public_key);
    const warm = db.prepare('SELECT 1 FROM files LIMIT 1').get() !== undefined;
    // What the database remembers: one pair of fingerprints per folder, and per order what the
    // channel-wide facts need (no card is parsed).
    for (const r of db.prepare('SELECT dir, self, listing FROM dirs').iterate() as Iterable<{ dir: string; self: number; listing: number }>) {
      this.selfOf.set(r.dir, r.self);
      this.listing.set(r.dir, r.listing);
    }
    const depsOf = new Map<string, string[]>();
    for (const r of db.prepare('SELECT order_id, dep FROM deps').iterate() as Iterable<{ order_id: string; dep: string }>) {
      const l = depsOf.get(r.order_id);
      if (l) l.push(r.dep);
      else depsOf.set(r.order_id, [r.dep]);
    }
    for (const r of db.prepare('SELECT order_id, order_dir, lane, state, holder, fp, CASE WHEN fp IS NULL THEN card END AS card FROM cards').iterate() as Iterable<{
      order_id: string;
      order_dir: string;
      lane: Lane;
      state: OrderState;
      holder: string | null;
      fp: number | null;
      card: string | null;
    }>) {
      this.rememberInfo({
        id: r.order_id,
        dir: r.order_dir === r.order_id ? r.order_id : r.order_dir,
        state: intern(r.state),
        lane: intern(r.lane),
        holder: r.holder === null ? null : intern(r.holder),
        deps: depsOf.get(r.order_id) ?? NO_DEPS,
        fp: r.fp ?? fingerprint(r.card ?? ''),
      });
    }
    this.rosterSig = (db.prepare("SELECT value FROM meta WHERE key = 'roster_sig'").get() as { value: string } | undefined)?.value ?? '';
    for (const r of db.prepare('SELECT path, entries, intact, broken_at, stat, keys, reason FROM ledger_files WHERE stat IS NOT NULL').all() as {
      path: string;
      entries: number;
      intact: number;
      broken_at: number | null;
      stat: string;
      keys: string;
      reason: string | null;
    }[]) {
      const report: LedgerFileReport = r.intact === 1 ? { entries: r.entries, intact: true, lines: [] } : { entries: r.entries, intact: false, broken_at: r.broken_at ?? 1, reason: r.reason ?? 'chain broken', lines: [] };
      this.ledgerMemo.set(r.path, { stat: r.stat, keys: r.keys, report });
    }
    this.setProgress({ phase: 'scanning' });
    this.log(warm ? `index: warm start, ${this.listing.size} folders remembered` : 'index: cold start');

    const dirty = new Set<string>();
    walkChannelLevel(this.opts.root, (rel, st) => this.channelStats.set(rel, statKey(st)));
    let seen = this.channelStats.size;
    if (!warm) {
      // A cold start: every folder is read anyway, and reading it stats it.
      for (const n of this.tasksNames() ?? []) dirty.add(n);
      seen += dirty.size;
    } else {
      // A warm start is a quick look against the remembered folders; the sweep that follows
      // finds what changed in place meanwhile.
      const look = this.quickLook();
      for (const d of look.dirty) dirty.add(d);
      seen += look.folders;
      this.lostNow = new Set();
      // The latest arrival of every writer, as remembered (LEDGER.md §6).
      for (const r of db.prepare('SELECT writer, MAX(arrival_ms) AS t FROM files WHERE writer IS NOT NULL GROUP BY writer').all() as { writer: string; t: number }[]) {
        this.lastArrival.set(r.writer, r.t);
      }
    }
    // Folders the database knows that are gone.
    for (const info of this.orders.values()) if (!this.listing.has(info.dir)) dirty.add(info.dir);
    // Folders named in other case than their id: passed with their siblings from now on.
    for (const d of this.listing.keys()) if (d !== canonicalName(d)) this.variantDirs.add(d);
    this.setProgress({ phase: 'reading', files_seen: seen });
    this.log(`index: ${seen} entries, ${dirty.size} order folders to read`);

    // Channel-level files are always read (they are few); a roster change re-reads every folder.
    // Ledger files are verified later, while worker threads read the folders (passDirsCold).
    const rosterChanged = this.readChannelLevel(false);
    if (rosterChanged) for (const d of this.listing.keys()) dirty.add(d);

    const unsettled = (db.prepare("SELECT value FROM meta WHERE key = 'unsettled'").get() as { value: string } | undefined)?.value === '1';
    await this.passDirsCold(dirty, !warm);
    // The last run was killed between storing cards and settling them: settle every card.
    if (warm && unsettled) this.settle(true);
    // Folders whose stale time passed while we were not running.
    this.passDue();
    this.setProgress({ phase: 'ready', files_seen: seen, files_read: this.progress.files_read, files_verified: this.verified, ready_at_ms: this.clock() });
    db.prepare("INSERT INTO changes (order_id, at_ms) VALUES ('*', ?)").run(this.clock());
    this.log(
      `index: ready in ${((this.clock() - t0) / 1000).toFixed(1)} s: ${seen} entries seen, ${dirty.size} folders read, ${this.verified} signatures verified, ${this.orders.size} orders` +
        (warm ? '' : ` (storing ${(this.storeMs / 1000).toFixed(1)} s, settling ${(this.settleMs / 1000).toFixed(1)} s on this thread)`),
    );
    this.scheduleStaleTimer();
    if (this.stopped) return;
    if (this.opts.watch !== false) this.subscribe();
    this.scheduleRescan();
    // A warm start trusted the folders' own stat identities: the first sweep starts now.
    this.scheduleSweep(warm ? 0 : undefined);
  }

  /** The names under tasks/ (not starting with '.'), or null when it is not a folder (a symlink is not followed) or cannot be listed. */
  private tasksNames(): string[] | null {
    const abs = path.join(this.opts.root, 'tasks');
    if (!isRealDir(abs)) return null;
    try {
      return fs.readdirSync(abs).filter((n) => !n.startsWith('.'));
    } catch {
      return null;
    }
  }

  /**
   * The quick look, every `rescanMs`: lstat of each order folder (plus the channel level),
   * compared with the folder's own identity at its last pass; a folder whose identity changed
   * (an entry added, removed or renamed in it) is looked at fully and re-read only when its
   * listing changed. About 4 µs per folder.
   */
  private scheduleRescan(): void {
    if (this.stopped) return;
    this.rescanTimer = setTimeout(
      () => {
        this.rescanTimer = null;
        this.quickPending = true;
        this.schedule(0);
        this.scheduleRescan();
      },
      this.opts.rescanMs ?? Math.max(1000, 20 * this.quickMs),
    );
    this.rescanTimer.unref?.();
  }
  /** How long the last quick look took, ms. */
  private quickMs = 0;
  private quickPending = false;

  /**
   * The sweep: every entry of every folder, looked at a slice of 500 folders at a time (other
   * work runs between slices), so that an in-place rewrite whose event was lost is found. The
   * next sweep starts `rescanMs` after one ends, or 20x the sweep's own busy time on a large
   * folder (about 5% of a core).
   */
  private sweepBusyMs = 0;
  private scheduleSweep(delayMs?: number): void {
    if (this.stopped || this.sweepTimer) return;
    const every = delayMs ?? Math.max(this.opts.rescanMs ?? 10_000, 20 * this.sweepBusyMs);
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = null;
      if (this.sweepQueue.length === 0) {
        this.sweepQueue = [...this.listing.keys()];
        this.sweepBusyMs = 0;
      }
      const started = performance.now();
      const slice = this.sweepQueue.splice(0, 500);
      for (const d of slice) if (this.lookFolder(d)) this.pending.add(`tasks/${d}`);
      this.sweepBusyMs += performance.now() - started;
      if (this.pending.size > 0) this.schedule(0);
      if (this.sweepQueue.length > 0) {
        this.sweepTimer = setTimeout(() => {
          this.sweepTimer = null;
          this.scheduleSweep(0);
        }, 1);
        this.sweepTimer.unref?.();
      } else this.scheduleSweep();
    }, every);
    this.sweepTimer.unref?.();
  }

  /** Stops watching and timers. The database stays open (its owner closes it). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.pumpTimer, this.staleTimer, this.graceTimer, this.rescanTimer, this.sweepTimer]) if (t) clearTimeout(t);
    this.pumpTimer = this.staleTimer = this.rescanTimer = this.sweepTimer = null;
    this.watcher?.close();
    this.watcher = null;
  }

  /** Whether an order folder is watched: unless its order is finished (Done lane), when the looks suffice. */
  private wantsWatch(dir: string): boolean {
    const id = this.dirToId.get(dir);
    const info = id === undefined ? undefined : this.orders.get(id);
    return !(info && info.dir === dir && info.lane === 'done');
  }

  /** Watches or stops watching one order folder as its order's lane says; a new watch looks once more. */
  private updateWatch(dir: string): void {
    const w = this.watcher;
    if (!w) return;
    const rel = `tasks/${dir}`;
    if (this.listing.has(dir) && this.wantsWatch(dir)) {
      if (w.watch(rel)) this.request(rel);
    } else w.unwatch(rel);
  }

  /** The channel root, agents/, retirements/ and tasks/ (again, when one was replaced). */
  private watchChannelDirs(): void {
    const w = this.watcher;
    if (!w) return;
    for (const d of ['', 'agents', 'retirements', 'grants', 'tasks']) {
      w.unwatch(d);
      w.watch(d);
    }
  }

  private subscribe(): void {
    const w = new FolderWatch(
      path.resolve(this.opts.root),
      (rel) => {
        if (this.stopped) return;
        this.pending.add(rel);
        if (rel === 'agents' || rel === 'retirements' || rel === 'grants' || rel === 'tasks') this.channelDirsChanged = true;
        if (rel === 'tasks') this.tasksDirChanged = true;
        this.schedule(30);
      },
      (why) => this.log(`index: ${why}; relying on the periodic looks`),
    );
    this.watcher = w;
    this.watchChannelDirs();
    for (const d of this.listing.keys()) if (this.wantsWatch(d)) w.watch(`tasks/${d}`);
    // Changes between the passes above and these watches produced no event: look once more.
    this.quickPending = true;
    this.schedule(0);
  }
  private channelDirsChanged = false;
  /** tasks/ itself changed (replaced, perhaps): every order folder's watch is made again. */
  private tasksDirChanged = false;

  /** Asks for an update of `rel` (null: a full look at everything) soon. */
  request(rel: string | null): void {
    if (rel === null) this.pendingAll = true;
    else this.pending.add(rel);
    this.schedule(rel === null ? 0 : 30);
  }

  private schedule(ms: number): void {
    if (this.stopped || this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      try {
        this.pump();
      } catch (e) {
        this.log(`index: update failed, will rescan: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        this.pendingAll = true;
        this.schedule(1000);
      }
    }, ms);
  }

  /** Processes pending paths (or a full look, or a quick look): re-reads the folders where something changed. Synchronous. */
  pump(): void {
    const all = this.pendingAll;
    const quick = this.quickPending;
    const paths = this.pending;
    this.pendingAll = false;
    this.quickPending = false;
    this.pending = new Set();
    this.lostNow = new Set();
    this.channelLostNow = null;
    if (this.channelDirsChanged) {
      this.channelDirsChanged = false;
      this.watchChannelDirs();
    }
    if (this.tasksDirChanged && this.watcher) {
      this.tasksDirChanged = false;
      for (const rel of this.watcher.list()) if (rel.startsWith('tasks/')) this.watcher.unwatch(rel);
      for (const d of this.listing.keys()) if (this.wantsWatch(d)) this.watcher.watch(`tasks/${d}`);
    }
    const scanned = all ? this.rescan() : this.refresh(paths);
    const dirty = scanned.dirty;
    let channelDirty = scanned.channelDirty;
    if (quick && !all) {
      const look = this.quickLook();
      for (const d of look.dirty) dirty.add(d);
      channelDirty = channelDirty || look.channelDirty;
    }
    // A file that just vanished is believed a moment longer (see vanishGraceMs): the folder is
    // not passed now, and its remembered listing (untouched by looks) makes the next look see
    // it again. The grace is about the filesystem's timing, so it runs on a monotonic clock.
    const now = performance.now();
    const grace = this.opts.vanishGraceMs ?? 1000;
    if (grace <= 0) this.lostNow.clear();
    for (const d of this.lostNow) {
      if (!dirty.has(d)) continue;
      const until = this.deferred.get(d);
      if (until !== undefined && until <= now) {
        this.deferred.delete(d);
        continue;
      }
      if (until === undefined) this.deferred.set(d, now + grace);
      dirty.delete(d);
    }
    for (const d of dirty) this.deferred.delete(d);
    if (this.channelLostNow && channelDirty && grace > 0) {
      const until = this.deferred.get('');
      if (until !== undefined && until <= now) this.deferred.delete('');
      else {
        if (until === undefined) this.deferred.set('', now + grace);
        channelDirty = false;
        this.channelStats = this.channelLostNow;
      }
    } else if (channelDirty) this.deferred.delete('');
    this.scheduleGrace();
    // An operator re-pinned a key (claimboard repin): the roster must be rebuilt.
    channelDirty = channelDirty || this.readPinsVersion() !== this.pinsVersion;
    if (channelDirty) {
      if (this.readChannelLevel()) {
        for (const info of this.orders.values()) dirty.add(info.dir);
        for (const d of this.listing.keys()) dirty.add(d);
      }
      // The roster, ledger files or channel problems changed: every open page refetches.
      this.opts.db.prepare("INSERT INTO changes (order_id, at_ms) VALUES ('*', ?)").run(this.clock());
    }
    this.passDirs(dirty);
    this.scheduleStaleTimer();
    if (channelDirty) this.opts.onSettled?.();
  }

  /** Looks again at deferred folders when their grace ends. */
  private scheduleGrace(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = null;
    if (this.deferred.size === 0 || this.stopped) return;
    const next = Math.min(...this.deferred.values());
    this.graceTimer = setTimeout(() => {
      this.graceTimer = null;
      const now = performance.now();
      for (const [d, until] of this.deferred) {
        if (until > now) continue;
        this.pending.add(d === '' ? 'agents' : `tasks/${d}`);
      }
      this.schedule(0);
    }, Math.max(5, next - performance.now() + 5));
    this.graceTimer.unref?.();
  }

  /**
   * Looks at every entry of one order folder: true when its listing differs from the one of
   * its last pass (or it is new, or gone). Notes in `lostNow` a folder in which a file that
   * was there at the last pass is missing. Never changes what is remembered (passes do).
   */
  private lookFolder(d: string): boolean {
    const l = listOrderFolder(this.opts.root, d);
    if (!l) return this.listing.has(d);
    const pairs: [string, string][] = [[`tasks/${d}`, statKey(l.self)]];
    for (const e of l.entries) pairs.push([e.rel, statKey(e.st)]);
    if (listingFingerprint(pairs) === this.listing.get(d)) return false;
    if (this.listing.has(d)) this.noteVanished(d, new Set(pairs.map((p) => p[0])));
    return true;
  }

  /** Notes `d` in `lostNow` when a file stored at its last pass is not in `now`. */
  private noteVanished(d: string, now: ReadonlySet<string>): void {
    const q = this.opts.db.prepare('SELECT path FROM files WHERE order_dir = ?');
    for (const r of q.iterate(d) as Iterable<{ path: string }>) {
      if (!now.has(r.path)) {
        this.lostNow.add(d);
        return;
      }
    }
  }

  /** Compares the channel-level entries with the remembered ones (and remembers the new ones). */
  private lookChannelLevel(): boolean {
    const channelNow = new Map<string, string>();
    walkChannelLevel(this.opts.root, (rel, st) => channelNow.set(rel, statKey(st)));
    const changed = channelNow.size !== this.channelStats.size || [...channelNow].some(([p, k]) => this.channelStats.get(p) !== k);
    if ([...this.channelStats.keys()].some((p) => !channelNow.has(p))) this.channelLostNow = this.channelStats;
    this.channelStats = channelNow;
    return changed;
  }

  /**
   * The quick look: the folders whose own stat identity changed and whose listing differs,
   * the folders gone, and whether the channel level changed.
   */
  private quickLook(): { dirty: Set<string>; channelDirty: boolean; folders: number } {
    const started = performance.now();
    try {
      return this.quickLookNow();
    } finally {
      this.quickMs = performance.now() - started;
    }
  }

  private quickLookNow(): { dirty: Set<string>; channelDirty: boolean; folders: number } {
    return this.look(false);
  }

  /** The full look at everything (request(null)): every entry of every folder and of the channel level. */
  private rescan(): { dirty: Set<string>; channelDirty: boolean } {
    return this.look(true);
  }

  /**
   * A look at the channel level and every order folder: fully (`full`), or only at folders
   * whose own stat identity changed since their last pass. Returns the folders whose listing
   * changed or that are gone, and whether the channel level changed.
   */
  private look(full: boolean): { dirty: Set<string>; channelDirty: boolean; folders: number } {
    const dirty = new Set<string>();
    try {
      assertChannelRoot(this.opts.root);
    } catch (e) {
      this.log(`index: ${e instanceof Error ? e.message : String(e)}; keeping the last board`);
      return { dirty, channelDirty: false, folders: 0 };
    }
    const channelDirty = this.lookChannelLevel();
    const names = this.tasksNames() ?? [];
    const tasksAbs = path.join(this.opts.root, 'tasks');
    for (const d of names) {
      if (!full) {
        let st: Stats | null;
        try {
          st = fs.lstatSync(path.join(tasksAbs, d));
        } catch {
          st = null; // vanished, or a name that is not valid UTF-8: the full look at it decides
        }
        if (st && cyrb53(statKey(st)) === this.selfOf.get(d)) continue;
      }
      if (this.lookFolder(d)) dirty.add(d);
    }
    const present = new Set(names);
    for (const d of this.listing.keys()) if (!present.has(d)) dirty.add(d);
    return { dirty, channelDirty, folders: names.length };
  }

  /** Folders and channel level named by events: a path under tasks/<dir> marks the folder. */
  private refresh(paths: Set<string>): { dirty: Set<string>; channelDirty: boolean } {
    const dirty = new Set<string>();
    let channelDirty = false;
    for (const rel of paths) {
      const parts = rel.split('/');
      if (parts.some((p) => p.startsWith('.'))) continue;
      const d = dirOf(rel);
      if (d !== null) dirty.add(d);
      else if (rel === 'tasks') for (const r of this.rescan().dirty) dirty.add(r);
      else if (parts.length <= 2) channelDirty = true;
    }
    // Which of them lost a file since their last pass (the grace, in pump).
    for (const d of dirty) {
      if (!this.listing.has(d)) continue;
      const l = listOrderFolder(this.opts.root, d);
      if (l) this.noteVanished(d, new Set([`tasks/${d}`, ...l.entries.map((e) => e.rel)]));
    }
    if (channelDirty) this.lookChannelLevel();
    return { dirty, channelDirty };
  }

  /**
   * Reads the channel-level files (agents/, retirements/, root files) and rebuilds the roster,
   * retirements, ledger reports and channel problems. Returns true when the roster's keys or
   * operators changed (then every folder must be re-derived).
   */
  private readChannelLevel(withLedgers = true): boolean {
    const db = this.opts.db;
    this.channelFiles.clear();
    const entries: { rel: string; st: Stats }[] = [];
    walkChannelLevel(this.opts.root, (rel, st) => entries.push({ rel, st }));
    for (const { rel, st } of entries) this.channelFiles.set(rel, readEntry(entryFromStat(this.opts.root, rel, st)));
    const outcomes = [...this.channelFiles.values()];
    // Pins change only through the database (`claimboard repin`), never from the folder.
    this.pins.clear();
    for (const r of db.prepare('SELECT name, public_key FROM pins').all() as { name: string; public_key: string }[]) this.pins.set(r.name, r.public_key);
    this.pinsVersion = this.readPinsVersion();
    const options = { nowMs: this.clock(), staleAfterMs: this.opts.staleAfterMs, operators: this.opts.operators, fleetAgents: this.opts.fleetAgents, pins: this.pins, verify: this.verify };
    const prevRetired = new Set(this.channel?.retirements.map((r) => r.record.agent) ?? []);
    const ch = channelContext(outcomes, options);
    this.channel = ch;
    const problems: Problem[] = [...ch.problems];
    for (const o of outcomes) {
      if (isTrustPath(o.path)) continue;
      if (o.status === 'problem') problems.push({ path: o.path, problem: o.problem, detail: o.detail });
    }
    // A file directly at tasks/<name> (where a folder belongs) is found by the folder pass.
    const sig = [...ch.roster.entries.values()].map((e) => `${e.name}=${e.public_key ?? ''}`).sort().join(',') + '|' + [...ch.roster.operators].sort().join(',') + '|' + [...ch.roster.authorities].sort().join(',');
    const changed = sig !== this.rosterSig;
    const retired = new Set(ch.retirements.map((r) => r.record.agent));
    const retiredChanged = [...retired].filter((a) => !prevRetired.has(a)).concat([...prevRetired].filter((a) => !retired.has(a)));
    db.transaction(() => {
      db.prepare("DELETE FROM problems WHERE scope = ''").run();
      const add = db.prepare("INSERT INTO problems (scope, path, problem, detail, line, order_id) VALUES ('', ?, ?, ?, ?, NULL)");
      for (const p of problems) add.run(p.path, p.problem, p.detail, p.line ?? null);
      for (const [name, key] of ch.newPins) {
        if (!this.pins.has(name)) {
          this.pins.set(name, key);
          db.prepare('INSERT OR IGNORE INTO pins (name, public_key, pinned_at_ms) VALUES (?, ?, ?)').run(name, key, this.clock());
        }
      }
      if (changed) {
        this.rosterSig = sig;
        this.setMeta('roster_sig', sig);
      }
      // Ledger files count as files of their signer (LEDGER.md §6).
      for (const o of outcomes) {
        if (o.status === 'ledger' && o.signer) {
          db.prepare(
            'INSERT OR REPLACE INTO files (path, order_dir, stat, type, arrival_ms, first_seen_ms, kind, status, problem, writer, sig_key, sig_ok) VALUES (?, NULL, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, NULL)',
          ).run(o.path, this.channelStats.get(o.path) ?? '', 'file', o.arrivalMs, this.clock(), 'ledger', 'ledger', o.signer);
          this.touchedWriters.add(o.signer);
        }
      }
      const gone = (db.prepare('SELECT path FROM files WHERE order_dir IS NULL').all() as { path: string }[]).filter((r) => !this.channelFiles.has(r.path));
      for (const r of gone) db.prepare('DELETE FROM files WHERE path = ?').run(r.path);
    })();
    // A retirement appearing or going away changes the flags of the orders that agent holds.
    if (!changed && retiredChanged.length > 0) {
      const dirs = new Set<string>();
      for (const a of retiredChanged) for (const info of this.orders.values()) if (info.holder === a || info.holder === null) dirs.add(info.dir); // open orders: the workers left changed
      if (this.progress.phase === 'ready') this.passDirs(dirs);
    }
    if (withLedgers) this.readLedgers();
    this.refreshAgents();
    return changed;
  }

  /**
   * Verifies the ledger files (LEDGER.md §3.2), remembered per file while its stat identity and
   * the keys it verifies against stay the same, and stores their reports and problems. On a cold
   * start this runs while the worker threads read the order folders.
   */
  private readLedgers(): void {
    if (!this.channel) return;
    this.storeLedgerReports([...this.ledgerOutcomes()].map((o) => this.ledgerReport(o)));
  }

  /** readLedgers, one file at a time with other work (worker results) in between. */
  private async readLedgersYielding(): Promise<void> {
    if (!this.channel) return;
    const rows: { path: string; report: LedgerFileReport }[] = [];
    for (const o of [...this.ledgerOutcomes()]) {
      rows.push(this.ledgerReport(o));
      this.forgetLedgerText(o);
      await new Promise((r) => setImmediate(r));
    }
    this.storeLedgerReports(rows);
  }

  /**
   * A ledger file reported is not kept in memory (up to 1 MiB each): its outcome stays without
   * text. Only a fresh readChannelLevel (any channel-level change) reports ledger files again,
   * from fresh outcomes; a text of null would otherwise read as "not valid UTF-8".
   */
  private forgetLedgerText(o: Extract<FileOutcome, { status: 'ledger' }>): void {
    if (o.text !== null) this.channelFiles.set(o.path, { ...o, text: null });
  }

  private *ledgerOutcomes(): Iterable<Extract<FileOutcome, { status: 'ledger' }>> {
    for (const o of this.channelFiles.values()) if (o.status === 'ledger') yield o;
  }

  private ledgerReport(o: Extract<FileOutcome, { status: 'ledger' }>): { path: string; report: LedgerFileReport } {
    const ch = this.channel;
    if (!ch) throw new Error('internal: channel context not read');
    const options = { nowMs: this.clock(), staleAfterMs: this.opts.staleAfterMs, operators: this.opts.operators, fleetAgents: this.opts.fleetAgents, pins: this.pins, verify: this.verify };
    const lm = this.ledgerMemo;
    const stat = this.channelStats.get(o.path) ?? '';
    const report = ledgerReportOf(o, ch.roster, {
      ...options,
      ledgerMemo: {
        get: (p, _text, keys) => {
          const v = lm.get(p);
          return v && v.stat === stat && v.keys === keys ? v.report : undefined;
        },
        set: (p, _text, keys, r) => void lm.set(p, { stat, keys, report: { ...r, lines: [] } }),
      },
    });
    return { path: o.path, report };
  }

  private storeLedgerReports(rows: readonly { path: string; report: LedgerFileReport }[]): void {
    for (const o of [...this.ledgerOutcomes()]) this.forgetLedgerText(o);
    const db = this.opts.db;
    const lm = this.ledgerMemo;
    db.transaction(() => {
      db.prepare("DELETE FROM problems WHERE scope = 'ledger'").run();
      const add = db.prepare("INSERT INTO problems (scope, path, problem, detail, line, order_id) VALUES ('ledger', ?, 'ledger_broken', ?, ?, NULL)");
      db.prepare('DELETE FROM ledger_files').run();
      const addLedger = db.prepare('INSERT INTO ledger_files (path, entries, intact, broken_at, stat, keys, reason) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const { path: p, report } of rows) {
        const m = lm.get(p);
        addLedger.run(p, report.entries, report.intact ? 1 : 0, report.broken_at ?? null, m?.stat ?? null, m?.keys ?? null, report.reason ?? null);
        if (!report.intact) add.run(p, report.reason ?? 'chain broken', report.broken_at ?? null);
      }
    })();
  }

  private remember(card: Card, dir: string, fp: number): void {
    this.rememberInfo({ id: card.order_id, dir, state: card.state, lane: card.lane, holder: card.holder, deps: card.depends_on, fp });
  }

  private rememberInfo(info: OrderInfo): void {
    const prev = this.orders.get(info.id);
    if (prev) for (const d of prev.deps) this.dependents.get(d)?.delete(info.id);
    this.orders.set(info.id, info);
    this.dirToId.set(info.dir, info.id);
    for (const d of info.deps) {
      let set = this.dependents.get(d);
      if (!set) this.dependents.set(d, (set = new Set()));
      set.add(info.id);
    }
    if (this.watcher && (!prev || (prev.lane === 'done') !== (info.lane === 'done') || prev.dir !== info.dir)) this.updateWatch(info.dir);
  }

  private forget(dir: string): string | null {
    const id = this.dirToId.get(dir);
    if (!id) return null;
    this.dirToId.delete(dir);
    const prev = this.orders.get(id);
    if (prev && prev.dir === dir) {
      for (const d of prev.deps) this.dependents.get(d)?.delete(id);
      this.orders.delete(id);
    }
    return id;
  }

  private passContext(remembered: PassContext['remembered']): PassContext {
    const ch = this.channel;
    if (!ch) throw new Error('internal: channel context not read');
    return {
      root: this.opts.root,
      roster: ch.roster,
      derive: {
        nowMs: this.clock(),
        staleAfterMs: this.opts.staleAfterMs,
        retired: new Set(ch.retirements.map((r) => r.record.agent)),
        ferryRetired: new Set(this.ferryRetired),
        workers: workersOf(ch.roster, this.retiredNow()),
        lastArrivalByAgent: new Map(),
      },
      verify: this.verify,
      remembered,
    };
  }

  /** Remembered signature checks of the files of some folders. */
  private rememberedFor(dirs: readonly string[]): Map<string, { stat: string; key: string; ok: boolean }> {
    const m = new Map<string, { stat: string; key: string; ok: boolean }>();
    const q = this.opts.db.prepare('SELECT path, stat, sig_key, sig_ok FROM files WHERE order_dir = ? AND sig_key IS NOT NULL');
    for (const d of dirs) for (const r of q.iterate(d) as Iterable<{ path: string; stat: string; sig_key: string; sig_ok: number }>) m.set(r.path, { stat: r.stat, key: r.sig_key, ok: r.sig_ok === 1 });
    return m;
  }

  /**
   * Re-reads and re-derives the given folders in this thread and stores them, then applies
   * channel-wide facts to every card they may affect (dependents, stale orders of agents whose
   * latest arrival moved). Synchronous.
   */
  private passDirs(dirs: Set<string>, cold = false): void {
    if (dirs.size === 0) return;
    // Case siblings are decided together, in one chunk (foldCaseVariants).
    const list = byCanonicalDir([...this.withCaseSiblings(dirs)]);
    const chunk = 500;
    for (let i = 0; i < list.length; ) {
      let end = Math.min(i + chunk, list.length);
      while (end < list.length && canonicalName(list[end] as string) === canonicalName(list[end - 1] as string)) end++;
      const part = list.slice(i, end);
      i = end;
      const ctx = this.passContext(this.rememberedFor(part));
      const results: OrderPassResult[] = [];
      for (const d of part) {
        const { view: _view, ...r } = passOrder(d, ctx);
        results.push(r);
      }
      this.storeResults(foldCaseVariants(results), cold);
      if (cold) this.setProgress({ files_read: this.progress.files_read + results.reduce((n, r) => n + r.files.length, 0), files_verified: this.verified });
    }
    this.settle(cold);
  }

  /** `dirs` with every known folder whose name folds to the same id as one of them. */
  private withCaseSiblings(dirs: Set<string>): Set<string> {
    const out = new Set(dirs);
    const keys = new Set<string>();
    for (const d of dirs) {
      const k = canonicalName(d);
      keys.add(k);
      if (k !== d && (this.listing.has(k) || this.dirToId.has(k))) out.add(k);
    }
    for (const v of this.variantDirs) {
      const k = canonicalName(v);
      if (!keys.has(k)) continue;
      out.add(v);
      if (this.listing.has(k) || this.dirToId.has(k)) out.add(k);
    }
    return out;
  }

  /** The first index: on every core (worker threads) when many folders must be read. */
  private async passDirsCold(dirs: Set<string>, cold: boolean): Promise<void> {
    const list = [...dirs].sort();
    const workers = cold ? (this.opts.workers ?? (list.length > 2000 ? Math.max(1, os.availableParallelism() - 1) : 0)) : 0;
    if (workers === 0 || !this.channel || list.length === 0) {
      this.readLedgers();
      // A warm start settles only what changed (its facts are remembered); a cold one, everything.
      this.passDirs(dirs, cold);
      if (!cold && dirs.size === 0) this.settle(false);
      return;
    }
    const results: OrderPassResult[] = [];
    // Results of case siblings wait for each other (foldCaseVariants).
    // (Only names shared by several folders are kept: a map of every folder would be held for the whole index.)
    const groupSize = new Map<string, number>();
    {
      const seen = new Set<string>();
      for (const d of list) {
        const k = canonicalName(d);
        if (seen.has(k)) groupSize.set(k, (groupSize.get(k) ?? 1) + 1);
        else seen.add(k);
      }
    }
    const waiting = new Map<string, OrderPassResult[]>();
    const take = (r: OrderPassResult) => {
      const k = canonicalName(r.dir);
      const n = groupSize.get(k) ?? 1;
      if (n <= 1) return void results.push(r);
      const w = waiting.get(k) ?? [];
      w.push(r);
      waiting.set(k, w);
      if (w.length === n) {
        waiting.delete(k);
        results.push(...foldCaseVariants(w));
      }
    };
    const verifiedBefore = this.verified;
    const local = this.passContext(new Map());
    const running = runPassesInWorkers(
      list,
      workers,
      {
        root: this.opts.root,
        agents: [...this.channelFiles.values()].filter((o) => isTrustPath(o.path)),
        fleetAgents: [...(this.opts.fleetAgents ?? [])],
        pins: [...this.pins],
        operators: [...(this.opts.operators ?? [])],
        retired: this.channel.retirements.map((r) => r.record.agent),
        ferryRetired: [...this.ferryRetired],
        nowMs: this.clock(),
        staleAfterMs: this.opts.staleAfterMs,
      },
      (r) => {
        take(r);
        if (results.length >= 1000) this.storeResults(results.splice(0), true);
      },
      (read, verified) => this.setProgress({ files_read: read, files_verified: verifiedBefore + verified }),
      // This thread passes folders too, between storing results (one worker per other core).
      (d) => {
        const { view: _view, ...r } = passOrder(d, local);
        return r;
      },
    );
    // The ledger files on this thread meanwhile, a file at a time between the workers' results.
    await this.readLedgersYielding();
    const counts = await running;
    this.verified += counts.verified;
    for (const w of waiting.values()) results.push(...foldCaseVariants(w)); // a sibling that vanished meanwhile
    this.storeResults(results, true);
    const t = performance.now();
    this.settle(true);
    this.settleMs = performance.now() - t;
  }

  /** Writers whose latest arrival may have moved, and orders whose facts must be re-applied. */
  private touchedWriters = new Set<string>();
  private touchedOrders = new Set<string>();
  private changedIds = new Set<string>();

  /** Time spent storing results and settling channel-wide facts, ms (the cold index's "ready" line says them). */
  private storeMs = 0;
  private settleMs = 0;
  /** Index lag and attention ages for GET /metrics (metrics-record.ts). */
  private readonly metrics = new MetricsRecorder();
  private storeResults(results: readonly OrderPassResult[], cold: boolean): void {
    if (results.length === 0) return;
    const t0 = performance.now();
    try {
      this.storeResultsNow(results, cold);
    } finally {
      this.storeMs += performance.now() - t0;
    }
  }

  /** The statements storing a pass's results, prepared once per indexer (every pass uses them). */
  private storeStatementsCache: ReturnType<Indexer['prepareStoreStatements']> | null = null;
  private prepareStoreStatements() {
    const db = this.opts.db;
    const firstSeen = db.prepare('SELECT path, first_seen_ms, arrival_ms, writer FROM files WHERE order_dir = ?');
    const delFiles = db.prepare('DELETE FROM files WHERE order_dir = ?');
    const setDir = db.prepare('INSERT OR REPLACE INTO dirs (dir, self, listing) VALUES (?, ?, ?)');
    const delDir = db.prepare('DELETE FROM dirs WHERE dir = ?');
    const addFile = db.prepare('INSERT OR REPLACE INTO files (path, order_dir, stat, type, arrival_ms, first_seen_ms, kind, status, problem, writer, sig_key, sig_ok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const delProblems = db.prepare('DELETE FROM problems WHERE scope = ?');
    const addProblem = db.prepare('INSERT INTO problems (scope, path, problem, detail, line, order_id) VALUES (?, ?, ?, ?, ?, ?)');
    const delHolds = db.prepare('DELETE FROM holds WHERE order_id = ?');
    const addHold = db.prepare('INSERT INTO holds (order_id, agent, history, run_ms) VALUES (?, ?, ?, ?)');
    const delCard = db.prepare('DELETE FROM cards WHERE order_id = ?');
    const delDeps = db.prepare('DELETE FROM deps WHERE order_id = ?');
    const addDep = db.prepare('INSERT INTO deps (order_id, dep) VALUES (?, ?)');
    const upsertRun = db.prepare(`
      INSERT INTO runs (order_id, agent, run, pid, first_arrival_ms, last_arrival_ms, last_writer_at, writer_offset_ms, beats)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
      ON CONFLICT (order_id, agent, run) DO UPDATE SET
        pid = excluded.pid, last_arrival_ms = excluded.last_arrival_ms, last_writer_at = excluded.last_writer_at,
        writer_offset_ms = excluded.writer_offset_ms,
        beats = runs.beats + (excluded.last_arrival_ms <> runs.last_arrival_ms)`);
    return { firstSeen, delFiles, setDir, delDir, addFile, delProblems, addProblem, delHolds, addHold, delCard, delDeps, addDep, upsertRun };
  }

  private storeResultsNow(results: readonly OrderPassResult[], cold: boolean): void {
    const db = this.opts.db;
    const now = this.clock();
    const { firstSeen, delFiles, setDir, delDir, addFile, delProblems, addProblem, delHolds, addHold, delCard, delDeps, addDep, upsertRun } = (this.storeStatementsCache ??= this.prepareStoreStatements());
    const storeOne = (r: OrderPassResult): void => {
        const old = cold && !this.dirToId.has(r.dir) ? [] : (firstSeen.all(r.dir) as { path: string; first_seen_ms: number; arrival_ms: number; writer: string | null }[]);
        const firstSeenOf = new Map(old.map((o) => [o.path, o.first_seen_ms]));
        if (this.progress.phase === 'ready') this.metrics.noteFolder(old, r.files, now);
        for (const o of old) if (o.writer) this.touchedWriters.add(o.writer);
        // A cold index starts from empty tables: a folder not stored yet has no rows to replace.
        const fresh = cold && !this.listing.has(r.dir) && !this.dirToId.has(r.dir);
        if (!fresh) delFiles.run(r.dir);
        const self = r.files[0];
        if (self) {
          const sf = cyrb53(self.stat);
          const lf = listingFingerprint(r.files.map((f) => [f.path, f.stat] as const));
          this.selfOf.set(r.dir, sf);
          this.listing.set(r.dir, lf);
          setDir.run(r.dir, sf, lf);
        } else {
          this.selfOf.delete(r.dir);
          this.listing.delete(r.dir);
          delDir.run(r.dir);
          this.watcher?.unwatch(`tasks/${r.dir}`);
        }
        if (r.dir !== canonicalName(r.dir)) {
          if (r.files.length > 0) this.variantDirs.add(r.dir);
          else this.variantDirs.delete(r.dir);
        }
        for (const f of r.files) {
          addFile.run(f.path, f.order_dir, f.stat, f.type, f.arrival_ms, firstSeenOf.get(f.path) ?? now, f.kind, f.status, f.problem, f.writer, f.sig_key, f.sig_ok);
          if (f.writer) this.touchedWriters.add(f.writer);
        }
        if (!fresh) delProblems.run(r.dir);
        for (const p of r.problems) addProblem.run(r.dir, p.path, p.problem, p.detail, p.line ?? null, p.order_id ?? null);
        const prevId = this.dirToId.get(r.dir);
        if (prevId && (!r.card || r.card.order_id !== prevId)) {
          // The folder no longer holds that order.
          const prev = this.orders.get(prevId);
          if (prev && prev.dir === r.dir) {
            delCard.run(prevId);
            delHolds.run(prevId);
            delDeps.run(prevId);
            this.forget(r.dir);
            this.changedIds.add(prevId);
            for (const d of this.dependents.get(prevId) ?? []) this.touchedOrders.add(d);
          }
        }
        if (!r.card) {
          // A folder shadowed by a case sibling holding its order keeps no claim on the id.
          if (prevId && this.orders.get(prevId)?.dir !== r.dir) this.dirToId.delete(r.dir);
          return;
        }
        const c = r.card;
        // Holds and dependencies are stored only with a card: an order not known has none.
        const known = this.orders.has(c.order_id);
        if (known) delHolds.run(c.order_id);
        for (const h of r.holds) addHold.run(c.order_id, h.agent, JSON.stringify(h), h.run_ms);
        if (known) delDeps.run(c.order_id);
        for (const d of c.depends_on) addDep.run(c.order_id, d);
        for (const b of r.beats) {
          // A folder this process never stored has no arrival it saw: no gap to look for.
          if (!fresh) this.beatGaps?.note(b);
          upsertRun.run(b.order_id, b.agent, b.run, b.pid, b.arrival_ms, b.arrival_ms, b.at, b.at_ms - b.arrival_ms);
        }
        // Stored provisionally; settle() applies the channel-wide facts and writes the final card.
        const existed = this.orders.has(c.order_id);
        this.writeCard(c, r.dir, r.next_ms);
        this.touchedOrders.add(c.order_id);
        if (!existed) for (const d of this.dependents.get(c.order_id) ?? []) this.touchedOrders.add(d);
    };
    db.transaction(() => {
      // Cards stored here are provisional until settle() applies the channel-wide facts, in a
      // later transaction: a process killed in between leaves this mark, and the next start
      // settles every card (its folders look unchanged, so nothing else would).
      this.setMeta('unsettled', '1');
      for (const r of results) {
        storeOne(r);
        // Watched unless finished (a new watch looks at the folder once more).
        if (this.watcher) this.updateWatch(r.dir);
      }
    })();
  }

  /** Writes a card row with the local time (ms) it may change with no file changing; records the change. */
  private writeCard(card: Card, dir: string, next: number | null): void {
    const json = JSON.stringify(card);
    const fp = fingerprint(json);
    const prev = this.orders.get(card.order_id);
    const stateChanged = !prev || prev.state !== card.state;
    const agents = new Set<string>([...(card.holder ? [card.holder] : []), ...card.other_runs, ...card.late_results]);
    // age_ref_ms: the arrival the card's age counts from, as board-where.ts's REF reads it (the
    // staleness reference, else the holder's heartbeat, else the folder's newest file).
    const ageRef = card.since_ms !== undefined ? card.since_ms - this.opts.staleAfterMs : (card.heartbeat?.arrival_ms ?? null);
    this.opts.db
      .prepare(
        "INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, next_ms, card, fp, age_ref_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT MAX(arrival_ms) FROM files WHERE order_dir = ? AND type = 'file')))",
      )
      .run(
        card.order_id,
        dir,
        card.lane,
        card.state,
        card.holder,
        ` ${[...agents].join(' ')} `,
        ` ${card.flags.join(' ')} `,
        [card.order_id, card.holder ?? '', card.project_id, card.reason ?? '', card.state, ...card.flags].join(' ').toLowerCase(),
        card.since_ms ?? 0,
        next,
        json,
        fp,
        ageRef,
        dir,
      );
    if (!prev || prev.fp !== fp) this.changedIds.add(card.order_id);
    this.remember(card, dir, fp);
    if (stateChanged) for (const d of this.dependents.get(card.order_id) ?? []) this.touchedOrders.add(d);
  }

  /**
   * Applies channel-wide facts: recomputes the latest arrival of touched writers, then re-applies
   * stale reasons and dependencies to every touched card (and to the stale cards of writers whose
   * latest arrival moved), until nothing changes; then records the change feed.
   */
  private settle(cold: boolean): void {
    const db = this.opts.db;
    db.transaction(() => {
      const maxOf = db.prepare('SELECT MAX(arrival_ms) AS t FROM files WHERE writer = ?');
      const allMax = cold ? (db.prepare('SELECT writer, MAX(arrival_ms) AS t FROM files WHERE writer IS NOT NULL GROUP BY writer').all() as { writer: string; t: number }[]) : null;
      if (allMax) {
        this.lastArrival.clear();
        for (const r of allMax) this.lastArrival.set(r.writer, r.t);
      } else {
        for (const w of this.touchedWriters) {
          const t = (maxOf.get(w) as { t: number | null }).t;
          const prev = this.lastArrival.get(w);
          if (t === null) this.lastArrival.delete(w);
          else this.lastArrival.set(w, t);
          if (prev !== (t ?? undefined)) {
            for (const info of this.orders.values()) if (info.holder === w && info.state === 'stale') this.touchedOrders.add(info.id);
          }
        }
      }
      this.touchedWriters.clear();
      const cardOf = db.prepare('SELECT card, order_dir, next_ms FROM cards WHERE order_id = ?');
      const facts = {
        nowMs: this.clock(),
        staleAfterMs: this.opts.staleAfterMs,
        lastArrivalOf: (a: string) => this.lastArrival.get(a),
        isOrder: (id: string) => this.orders.has(id),
        stateOf: (id: string) => this.orders.get(id)?.state,
      };
      let rounds = 0;
      const ids = cold ? new Set(this.orders.keys()) : this.touchedOrders;
      this.touchedOrders = new Set();
      let work = [...ids];
      while (work.length > 0 && rounds++ < 50) {
        for (const id of work) {
          const row = cardOf.get(id) as { card: string; order_dir: string; next_ms: number | null } | undefined;
          if (!row) continue;
          const c = JSON.parse(row.card) as Card;
          const fixed = withChannelFacts(c, facts);
          let next = row.next_ms;
          if (fixed.state === 'stale' && fixed.reason === 'heartbeat_lapsed' && fixed.holder) {
            const t = (this.lastArrival.get(fixed.holder) ?? 0) + this.opts.staleAfterMs;
            if (t > facts.nowMs && (next === null || t < next)) next = t;
          }
          if (fixed !== c || next !== row.next_ms) this.writeCard(fixed, row.order_dir, next);
        }
        work = [...this.touchedOrders];
        this.touchedOrders = new Set();
      }
      const add = db.prepare('INSERT INTO changes (order_id, at_ms) VALUES (?, ?)');
      if (!cold) for (const id of this.changedIds) add.run(id, this.clock());
      this.changedIds.clear();
      db.prepare('DELETE FROM changes WHERE seq < (SELECT MAX(seq) FROM changes) - 10000').run();
      this.setMeta('unsettled', '0');
      this.metrics.record(db, this.clock(), this.verified, this.progress.phase === 'ready');
    })();
    this.refreshAgents();
    this.followFerryRetires();
    this.opts.onSettled?.();
  }

  /** Names retired by a `ferry channel retire` release in some folder (cards' `retires`), as last settled. */
  private ferryRetired = new Set<string>();

  /** Every retired name: retirements, and ferry retire releases anywhere (DeriveContext.retired). */
  private retiredNow(): Set<string> {
    const out = new Set(this.channel?.retirements.map((r) => r.record.agent) ?? []);
    for (const a of this.ferryRetired) out.add(a);
    return out;
  }

  /**
   * After a settle: when the names retired by ferry retire releases changed, the orders those
   * names hold are derived again (their retired_holder flag, and every open order's workers).
   */
  private followFerryRetires(): void {
    const rows = this.opts.db.prepare("SELECT DISTINCT j.value AS a FROM cards, json_each(cards.card, '$.retires') j").all() as { a: string }[];
    const now = new Set(rows.map((r) => r.a));
    const diff = [...now].filter((a) => !this.ferryRetired.has(a)).concat([...this.ferryRetired].filter((a) => !now.has(a)));
    if (diff.length === 0) return;
    this.ferryRetired = now;
    const gone = new Set(diff);
    const dirs = new Set<string>();
    for (const info of this.orders.values()) if ((info.holder !== null && gone.has(info.holder)) || info.holder === null) dirs.add(info.dir);
    this.passDirs(dirs);
  }

  /** Re-derives the folders whose cards may have changed with the clock (next_ms passed). */
  private passDue(): void {
    const due = this.opts.db.prepare('SELECT order_dir FROM cards WHERE next_ms IS NOT NULL AND next_ms <= ?').all(this.clock()) as { order_dir: string }[];
    if (due.length > 0) this.passDirs(new Set(due.map((r) => r.order_dir)));
  }

  private scheduleStaleTimer(): void {
    if (this.staleTimer) clearTimeout(this.staleTimer);
    this.staleTimer = null;
    if (this.stopped) return;
    const row = this.opts.db.prepare('SELECT MIN(next_ms) AS t FROM cards WHERE next_ms IS NOT NULL').get() as { t: number | null };
    if (row.t === null) return;
    const wait = Math.max(20, Math.min(row.t - this.clock() + 5, 60_000));
    this.staleTimer = setTimeout(() => {
      this.staleTimer = null;
      try {
        this.passDue();
      } catch (e) {
        this.log(`index: re-derive failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      this.scheduleStaleTimer();
    }, wait);
    this.staleTimer.unref?.();
  }

  /** The agents table: roster entries with what they hold, last arrival, clock offset. */
  private refreshAgents(): void {
    const ch = this.channel;
    if (!ch) return;
    const db = this.opts.db;
    const holding = new Map<string, number>();
    for (const info of this.orders.values()) if (info.holder) holding.set(info.holder, (holding.get(info.holder) ?? 0) + 1);
    // Median clock-plus-sync offset per agent, read off the (agent, offset) index.
    const count = db.prepare('SELECT COUNT(*) AS n FROM runs WHERE agent = ? AND writer_offset_ms IS NOT NULL');
    const nth = db.prepare('SELECT writer_offset_ms AS o FROM runs WHERE agent = ? AND writer_offset_ms IS NOT NULL ORDER BY writer_offset_ms LIMIT 1 OFFSET ?');
    const medianOffset = (agent: string): number | null => {
      const n = (count.get(agent) as { n: number }).n;
      return n === 0 ? null : ((nth.get(agent, Math.floor(n / 2)) as { o: number } | undefined)?.o ?? null);
    };
    const retired = new Set(ch.retirements.map((r) => r.record.agent));
    const changedKeys = new Set(ch.keyChanges.map((k) => k.name));
    const retirementOf = new Map(ch.retirements.map((r) => [r.record.agent, r]));
    const rows: StoredAgent[] = [...ch.roster.entries.values()].map((e) => {
      const ret = retirementOf.get(e.name);
      return {
        capabilities: e.capabilities,
        folder_key: e.folder_key,
        retirement: ret ? { operator: ret.record.operator, reason: ret.record.reason, at: ret.record.at.text, arrival_ms: ret.arrivalMs } : null,
        name: e.name,
        role: e.role,
        is_operator: ch.roster.operators.has(e.name),
        is_authority: ch.roster.authorities.has(e.name),
        retired: retired.has(e.name),
        public_key: e.public_key,
        key_changed: changedKeys.has(e.name),
        holding: holding.get(e.name) ?? 0,
        last_arrival_ms: this.lastArrival.get(e.name) ?? null,
        clock_offset_ms: medianOffset(e.name),
      };
    });
    db.transaction(() => {
      db.prepare('DELETE FROM agents').run();
      const add = db.prepare('INSERT INTO agents (name, summary) VALUES (?, ?)');
      for (const a of rows) add.run(a.name, JSON.stringify(a));
    })();
  }
}
