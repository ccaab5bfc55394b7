import { ordersChanged } from '../ledger/ledger-facts';
import 'server-only';
/**
 * The indexer: keeps the SQLite index equal to what the pure core derives from the folder
 *, one order folder at a time. This module decides
 * what happens when; the parts it orchestrates:
 *
 * - looks.ts (FolderLooks): what changed on disk. Folder events (watches.ts: the channel
 *   level, `tasks/`, and the folders of orders not finished) are hints; the quick look every
 *   `rescanMs` (each folder's own stat identity) and the sweep (every entry, a slice at a time)
 *   are the truth; a file that just vanished is believed a moment longer (the vanish grace).
 * - passes.ts, order-pass.ts, worker-pool.ts: a folder is read again only when its listing
 *   changed; its files are read fresh, signatures checked against remembered outcomes first,
 *   so re-deriving costs no cryptography for files that did not change. A cold index of a
 *   large folder reads on every core and shows the board before it verifies (cold-pass.ts).
 * - channel-level.ts (ChannelLevel): the roster, retirements, pins and ledger files.
 * - facts.ts (ChannelFacts): the channel-wide facts of a card (the stale reason from the
 *   holder's latest arrival anywhere, dependencies) from small in-memory maps, so a change
 *   re-derives only its folder, the orders that depend on it, and the stale orders of an agent
 *   whose latest arrival moved (settle).
 * - store.ts (IndexStore): every SQL statement the indexer runs; meta.ts: the meta keys.
 * - scheduler.ts (Scheduler): the timers and the pending work, one state. Staleness moves with
 *   the clock: each card knows when it may change with no file changing (`next_ms`); the
 *   `stale` timer re-derives those when the time comes.
 * One process writes the index; request handlers open it read-only.
 *
 * - first-index.ts: the first index at start and after a rebuild (what memory keeps loaded,
 *   the folders that changed read, on every core when cold).
 * Its options are indexer-options.ts. About 480 lines, every one the orchestration itself (start,
 * rebuild, pump, the passes and settle, each a few calls into the parts above).
 */
import { assertChannelRoot, NOT_LISTABLE } from './read-channel';
import { bytesThrough, serverVerifier, type Ed25519VerifyBytes } from './verifier';
import { MetricsRecorder } from './metrics-record';
import type { Problem } from '../ledger/channel';
import type { Ed25519Verify } from '../ledger/verify';
import type { Card } from '../ledger/derive';
import type { IndexProgress } from './types';
import { firstIndex, loadMemory, type FirstIndexHost } from './first-index';
import { BeatGapRecorder } from './beat-gaps';
import { IndexStore } from './store';
import { ChannelFacts, MAX_SETTLE_ROUNDS } from './facts';
import { PassWriter } from './pass-writer';
import { FolderLooks } from './looks';
import { Scheduler } from './scheduler';
import { ChannelLevel } from './channel-level';
import { OrderWatches } from './watches';
import { foldCaseVariants, passFolder, siblingChunks } from './passes';
import fs from 'node:fs';
import type { IndexHealth } from './health';
import { UpdateGuard } from './guard';
import { bootClockMs } from './steady-clock';
import { arrivalsFor, type ArrivalOf } from '../ledger/clock-steps';
import { openWriter } from './db';
import { LocalHolds } from './local-holds';
import { LocalDeaths } from './local-deaths';
import { StoredIndex } from './stored';
import type { IndexerOptions } from './indexer-options';

export type { IndexerOptions } from './indexer-options';

export class Indexer {
  private store: IndexStore;
  /** What memory does not keep (finished orders, their folders), read from the index. */
  private stored: StoredIndex;
  // Not readonly: after a failed write they are made again from the database (resync()).
  private facts: ChannelFacts;
  private looks: FolderLooks;
  private level: ChannelLevel;
  private readonly timers: Scheduler;
  private writer: PassWriter;
  private readonly watches: OrderWatches;
  /** Index lag and attention ages for GET /metrics (metrics-record.ts). */
  private readonly metrics = new MetricsRecorder();
  /** Records heartbeat gaps seen live (beat-gaps.ts); made at start(), whose moment it needs. */
  private beatGaps: BeatGapRecorder | null = null;
  private readonly clock: () => number;
  private readonly verify: Ed25519Verify;
  /** The same verifier on bytes (a cold index's checking pass), counted alike. */
  private readonly verifyBytes: Ed25519VerifyBytes;
  /** Which verifier checks signatures (verifier.ts), for the "ready" line. */
  private readonly verifierName: string;
  private readonly log: (line: string) => void;
  private verified = 0;
  private progress: IndexProgress = { phase: 'starting', files_seen: 0, files_read: 0, files_verified: 0, ready_at_ms: null };
  /** The faults an update can meet (guard.ts): failed writes, the database swapped, the folder gone, clock steps. */
  private readonly guard: UpdateGuard;
  /** This machine's reaper holds, folded into the cards when they settle (local-holds.ts). */
  private readonly holds: LocalHolds | null;
  /** This machine's dead local runs, folded into the cards when they settle (local-deaths.ts). */
  private readonly deaths: LocalDeaths | null;

  constructor(private readonly opts: IndexerOptions) {
    const wall = opts.clock ?? Date.now;
    // The guard is made below (the clock is not read before): the wall clock less its steps.
    this.clock = () => wall() - this.guard.steppedMs;
    this.log = opts.log ?? (() => {});
    const base = opts.verify ?? serverVerifier(this.log).verify;
    this.verifierName = opts.verify ? 'the verifier given' : serverVerifier().name;
    this.verify = (k, m, s) => {
      this.verified++;
      return base(k, m, s);
    };
    const bytes = opts.verify ? bytesThrough(opts.verify) : serverVerifier().verifyBytes;
    this.verifyBytes = (k, m, s) => {
      this.verified++;
      return bytes(k, m, s);
    };
    this.store = new IndexStore(opts.db);
    this.stored = new StoredIndex(opts.db);
    this.facts = new ChannelFacts(this.stored.orders);
    this.holds = opts.reaperState ? new LocalHolds(opts.reaperState, opts.root) : null;
    this.deaths = opts.localDeath ? new LocalDeaths(opts.localDeath, () => this.clock()) : null;
    this.looks = this.makeLooks();
    this.level = this.makeLevel();
    this.watches = new OrderWatches(
      { wants: (d) => this.facts.orderIn(d)?.lane !== 'done', knows: (d) => this.looks.knows(d), dirs: () => this.looks.liveDirs() },
      opts.maxWatches,
    );
    this.timers = new Scheduler({
      pump: () => this.guard.run(() => this.pump()),
      log: this.log,
      rescanMs: opts.rescanMs,
      quickLookMs: () => this.looks.quickMs,
      sweepSlice: () => this.looks.sweepSlice(),
      sweepBusyMs: () => this.looks.sweepBusyMs,
      // Only while watching (without folder events the quick look is the way), and only when some are not watched.
      pollSlice: () => (this.watches.active && this.watches.orderFolders < this.looks.liveSize ? this.looks.pollSlice((d) => this.watches.watching(d)) : []),
      nextGraceEnd: () => this.looks.nextGraceEnd(),
      graceEnded: () => this.looks.graceEnded(),
      passDue: () => this.guard.run(() => this.passDue()),
      nextDueMs: () => this.store.nextDueMs(),
      clock: this.clock,
    });
    this.writer = this.makeWriter();
    this.guard = new UpdateGuard({
      root: opts.root,
      dbFile: opts.db.memory ? null : opts.db.name,
      clock: wall,
      // An injected clock owns time: its steps are seen only against the boot clock given with it.
      bootClock: opts.bootClock ?? opts.clock ?? bootClockMs,
      readClock: () => this.store.readMeta('clock'),
      writeClock: (c) => this.store.writeMeta('clock', c),
      log: this.log,
      retryIn: (ms) => {
        this.timers.wantAll();
        this.timers.schedule(ms);
      },
      resubscribe: () => {
        if (!this.watches.active) return;
        this.watches.close();
        this.subscribe();
      },
      settleIfUnsettled: () => {
        if (this.store.readMeta('unsettled') === true) this.settle(true);
      },
      resync: () => this.resync(),
      orderCount: () => this.stored.orderCount(),
      deriveAll: () => this.passDirs(new Set(this.facts.orderDirs())),
      rebuild: (file, replaced) => this.rebuild(file, replaced),
      unlisted: () => (this.store.db.prepare('SELECT path FROM problems WHERE detail LIKE ? ORDER BY path').pluck().all(`${NOT_LISTABLE}%`) as string[]),
    });
  }

  private makeLooks(): FolderLooks {
    return new FolderLooks(this.opts.root, (d) => this.store.pathsIn(d), this.stored.folders, this.log);
  }

  private makeLevel(): ChannelLevel {
    return new ChannelLevel({ ...this.opts, store: this.store, verify: this.verify, clock: this.clock, statOf: (rel) => this.looks.channelStatOf(rel), clockSteps: () => this.guard.steps });
  }

  private makeWriter(): PassWriter {
    return new PassWriter({
      store: this.store,
      facts: this.facts,
      looks: this.looks,
      watches: this.watches,
      metrics: this.metrics,
      staleAfterMs: this.opts.staleAfterMs,
      clock: this.clock,
      live: () => this.progress.phase === 'ready',
      beatGaps: () => this.beatGaps,
      updateWatch: (dir) => this.updateWatch(dir),
    });
  }

  /** Whether the board is current: `degraded` while writes into the index fail (retried every second), the folder is missing or the index is rebuilt. */
  get health(): IndexHealth {
    return this.guard.health;
  }

  /** Makes what this process remembers of the index again from the database, as a warm start does. */
  private resync(): void {
    const s = this.store;
    this.looks = this.makeLooks();
    this.facts = new ChannelFacts(this.stored.orders);
    loadMemory({ stored: this.stored, facts: this.facts, looks: this.looks });
    this.facts.setLastArrivals(s.latestArrivals());
    this.facts.ferryRetired = s.ferryRetiredNames();
    // The channel-level entries are not remembered: the next look reads the channel level again.
    this.level.load();
    this.writer = this.makeWriter();
    this.holds?.forget();
  }

  /** The cards and problems as stored now (tests, the serve command). */
  get state(): { readonly orders: Card[]; readonly problems: Problem[] } {
    return this.store.cardsAndProblems();
  }

  /** The directories watched now, sorted ('' is the channel root); empty without folder events. */
  get watched(): string[] {
    return this.watches.list();
  }

  /** What memory keeps: the orders not finished and the live folders (a finished order's are read from the index). */
  get memory(): { readonly orders: number; readonly folders: number } {
    return { orders: this.facts.liveCount, folders: this.looks.liveSize };
  }

  /**
   * Whether a warm start's look at the finished orders' folders is still under way (the sweep's
   * first slices, looks.ts), or what it found is not stored yet (pending, or a folder that lost a
   * file waiting out the vanish grace).
   */
  get finishedPending(): boolean {
    return this.looks.finishedPending || this.timers.hasPaths || this.looks.nextGraceEnd() !== null;
  }

  /** Signatures verified (by this process) since start. */
  get verifiedCount(): number {
    return this.verified;
  }

  private setProgress(p: Partial<IndexProgress>): void {
    this.progress = { ...this.progress, ...p };
    this.store.writeMeta('progress', this.progress);
  }

  /** The parts and steps the first index uses (first-index.ts), as they are now. */
  private host(): FirstIndexHost {
    return {
      opts: this.opts,
      store: this.store,
      stored: this.stored,
      facts: this.facts,
      looks: this.looks,
      level: this.level,
      writer: this.writer,
      holds: this.holds,
      verifierName: this.verifierName,
      verifyBytes: this.verifyBytes,
      clock: this.clock,
      log: this.log,
      verified: () => this.verified,
      addVerified: (n) => void (this.verified += n),
      progress: () => this.progress,
      setProgress: (p) => this.setProgress(p),
      saveClock: () => this.guard.saveClock(),
      setBeatGaps: (b) => void (this.beatGaps = b),
      touchHolds: () => this.touchHolds(),
      readChannelLevel: (withLedgers) => this.readChannelLevel(withLedgers),
      passDirs: (dirs, cold) => this.passDirs(dirs, cold),
      arrivals: (dirs) => this.arrivals(dirs),
      settle: (cold) => this.settle(cold),
      passDue: () => this.passDue(),
    };
  }

  /**
   * First index: loads what the database remembers, stats the whole folder, re-reads only the
   * folders in which something changed (all of them on a cold start), derives and stores; then
   * watches. Throws ChannelUnreadableError when the root is not a channel.
   */
  async start(): Promise<void> {
    assertChannelRoot(this.opts.root);
    this.guard.begin();
    const warm = await firstIndex(this.host());
    this.timers.staleChanged();
    if (this.timers.stopped) return;
    if (this.opts.watch !== false) this.subscribe();
    // A warm start trusted the folders' own stat identities: the first sweep starts now.
    this.timers.startLooks(warm ? 0 : undefined);
  }

  /** Stops watching and timers. The database given stays open (its owner closes it); one this indexer opened in a rebuild is closed. */
  async stop(): Promise<void> {
    this.timers.stop();
    this.watches.close();
    await this.guard.settled();
    if (this.store.db !== this.opts.db) this.store.db.close();
  }

  /**
   * Builds a new index at `file` from the folder (a cold index); a file that replaced ours is
   * moved aside first (`<file>.replaced-<ms>`), never trusted. The new connection is this
   * indexer's (closed by stop()); readers reopen by the path (db.ts readDb). The guard says it.
   */
  private async rebuild(file: string, replaced: boolean): Promise<void> {
    if (replaced) {
      const aside = `${file}.replaced-${Date.now()}`;
      fs.renameSync(file, aside);
      this.log(`index: the file found at ${file} was moved to ${aside}`);
    }
    const old = this.store.db;
    const db = openWriter(file, (w) => this.log(`index: ${w}`));
    this.store = new IndexStore(db);
    this.stored = new StoredIndex(db);
    this.level = this.makeLevel();
    this.looks = this.makeLooks();
    this.facts = new ChannelFacts(this.stored.orders);
    this.writer = this.makeWriter();
    this.progress = { phase: 'starting', files_seen: 0, files_read: 0, files_verified: 0, ready_at_ms: null };
    try {
      await firstIndex(this.host());
      this.opts.onRebuilt?.(db);
    } finally {
      // Closed only now: until the new index is complete, its readers (the alerts) keep the old one.
      if (old !== this.opts.db) old.close();
    }
    this.timers.wantQuick();
    this.timers.schedule(0);
  }

  /** Asks for an update of `rel` (null: a full look at everything) soon. */
  request(rel: string | null): void {
    this.timers.request(rel);
  }

  /** Processes the pending work (paths, a full look, or a quick look): re-reads the folders where something changed. Synchronous. */
  pump(): void {
    const work = this.timers.take();
    this.looks.begin();
    if (work.channelDirs) this.watches.watchChannelDirs();
    if (work.tasksDir) this.watches.watchOrderFoldersAgain();
    const scanned = work.all ? this.looks.full() : this.looks.refresh(work.paths);
    const dirty = scanned.dirty;
    let channelDirty = scanned.channelDirty;
    if (work.quick && !work.all) {
      // While the sweep looks at the finished orders' folders after a warm start, this look leaves them to it.
      const look = this.looks.quick(!this.looks.finishedPending);
      for (const d of look.dirty) dirty.add(d);
      channelDirty = channelDirty || look.channelDirty;
    }
    channelDirty = this.looks.applyGrace(dirty, channelDirty, this.opts.vanishGraceMs ?? 1000);
    this.timers.graceChanged();
    // An operator re-pinned a key (claimboard repin): the roster must be rebuilt.
    channelDirty = channelDirty || this.level.pinsChanged();
    if (channelDirty) {
      if (this.readChannelLevel()) {
        for (const d of this.facts.orderDirs()) dirty.add(d);
        for (const d of this.looks.dirs()) dirty.add(d);
      }
      // The roster, ledger files or channel problems changed: every open page refetches.
      this.store.addChange('*', this.clock());
    }
    // A hold that began or ended settles its order again, with no file changed.
    const held = this.touchHolds() || this.touchDeaths();
    this.passDirs(dirty);
    if (held && dirty.size === 0) this.settle(false);
    this.timers.staleChanged();
    if (channelDirty) this.opts.onSettled?.();
  }

  /** Re-derives the folders whose cards may have changed with the clock (next_ms passed). */
  private passDue(): void {
    const due = this.store.dueDirs(this.clock());
    if (due.length > 0) this.passDirs(new Set(due));
  }

  /** Marks the running orders of local agents whose process died (local-deaths.ts); true when there are any. */
  private touchDeaths(): boolean {
    const ids = this.deaths?.take(this.store.db) ?? [];
    for (const id of ids) this.facts.touchOrder(id);
    return ids.length > 0;
  }

  /** Marks the orders whose reaper holds changed (local-holds.ts); true when there are any. */
  private touchHolds(): boolean {
    const ids = this.holds?.take(this.store.db);
    if (!ids || ids.size === 0) return false;
    for (const id of ids) this.facts.touchOrder(id);
    return true;
  }

  // --- watching ---

  private subscribe(): void {
    this.watches.subscribe(
      this.opts.root,
      (rel) => {
        if (this.timers.stopped) return;
        this.timers.addPath(rel);
        if (rel === 'agents' || rel === 'retirements' || rel === 'grants' || rel === 'tasks') this.timers.noteChannelDirs(rel === 'tasks');
        this.timers.schedule(30);
      },
      (why) => this.log(`index: ${why}; relying on the periodic looks`),
    );
    // Changes between the passes above and these watches produced no event: look once more.
    this.timers.wantQuick();
    this.timers.schedule(0);
  }

  /** Watches or stops watching one order folder as its order's lane says; a new watch looks once more. */
  private updateWatch(dir: string): void {
    if (this.watches.update(dir)) this.request(`tasks/${dir}`);
  }

  // --- reading and storing ---

  /**
   * Reads the channel level again (channel-level.ts); a retirement appearing or going away
   * re-derives the orders that agent holds and the open ones. Returns true when the roster's
   * keys or operators changed (then every folder must be re-derived).
   */
  private readChannelLevel(withLedgers = true): boolean {
    const r = this.level.read();
    for (const w of r.ledgerSigners) this.facts.touchWriter(w);
    if (!r.rosterChanged && r.retiredChanged.length > 0 && this.progress.phase === 'ready') this.passDirs(this.facts.dirsHeldByOrOpen(new Set(r.retiredChanged)));
    if (withLedgers) {
      // Orders whose ledger facts changed (a retire, an interrupt written in a ledger) are derived again.
      const before = this.level.ledgerFacts();
      this.level.readLedgers();
      const changed = ordersChanged(before, this.level.ledgerFacts());
      if (changed.size > 0 && this.progress.phase === 'ready') this.passDirs(changed);
    }
    this.refreshAgents();
    return r.rosterChanged;
  }

  /**
   * Re-reads and re-derives the given folders (with their case siblings) on this thread, a
   * chunk per transaction, then settles. Synchronous.
   */
  private passDirs(dirs: Set<string>, cold = false): void {
    if (dirs.size === 0) return;
    for (const part of siblingChunks(this.facts.withCaseSiblings(dirs, (d) => this.looks.knows(d)))) {
      const ctx = this.level.passContext(this.store.rememberedSigsIn(part), this.facts.ferryRetired, this.arrivals(part));
      const results = part.map((d) => passFolder(d, ctx));
      // A folder found gone is stored as deleted only while the channel folder is still there:
      // renamed away or unmounted during the reads, it throws (the guard says folder_missing).
      if (results.some((r) => r.files.length === 0)) assertChannelRoot(this.opts.root);
      this.writer.storeResults(foldCaseVariants(results), cold);
      if (cold) this.setProgress({ files_read: this.progress.files_read + results.reduce((n, r) => n + r.files.length, 0), files_verified: this.verified });
    }
    this.settle(cold);
  }

  /**
   * Arrivals on the index's clock for a pass over `dirs` (steady-clock.ts): none to compute
   * before the first clock step; after one, a file already stored with the same stat identity
   * keeps its arrival (null: a cold pass, nothing stored).
   */
  private arrivals(dirs: readonly string[] | null): ArrivalOf | undefined {
    const skew = this.opts.ctimeSkew?.() ?? 0;
    const steps = this.guard.steps;
    const known = steps.length > 0 && dirs ? this.store.arrivalsIn(dirs) : null;
    const f = arrivalsFor(steps, known ? (rel) => known.get(rel) : undefined);
    if (skew === 0) return f;
    return (rel, stat, c) => (f ? f(rel, stat, c + skew) : c + skew);
  }

  /**
   * Applies channel-wide facts (facts.ts settle): the latest arrival of touched writers (every
   * writer's when `cold`), then the facts on every touched card (every card when `cold`) until
   * nothing changes; then records the change feed and what /metrics reads.
   */
  private settle(cold: boolean): void {
    const s = this.store;
    const f = this.facts;
    s.transaction(() => {
      if (cold) f.setLastArrivals(s.latestArrivals());
      else f.updateTouchedWriters((w) => s.latestArrivalOf(w));
      const holds = this.holds;
      const deaths = this.deaths;
      const nowMs = this.clock();
      const ctx = {
        nowMs,
        staleAfterMs: this.opts.staleAfterMs,
        ...(holds ? { holdOf: (c: Card) => holds.textFor(c) } : {}),
        ...(deaths ? { deadOf: (c: Card) => deaths.isDead(s.db, c, nowMs) } : {}),
      };
      const out = f.settle(cold, ctx, { read: (id) => s.cardRow(id), write: (c, dir, next) => this.writer.writeCard(c, dir, next) });
      if (out.unsettled.length > 0) {
        this.log(`index: settle stopped after ${MAX_SETTLE_ROUNDS} rounds with ${out.unsettled.length} orders still changing (${out.unsettled.slice(0, 5).join(', ')}); their cards stay as last written`);
      }
      const changed = f.takeChanged();
      if (!cold) for (const id of changed) s.addChange(id, this.clock());
      s.trimChanges();
      s.writeMeta('unsettled', false);
      this.metrics.record(s, this.clock(), this.verified, this.progress.phase === 'ready', cold ? null : changed);
    });
    this.refreshAgents();
    this.followFerryRetires();
    this.writer.updateWatches();
    this.opts.onSettled?.();
  }

  /**
   * After a settle: when the names retired by ferry retire releases changed, the orders those
   * names hold (and the open ones) are derived again (their retired_holder flag, and every open
   * order's workers).
   */
  private followFerryRetires(): void {
    const f = this.facts;
    const now = this.store.ferryRetiredNames();
    const diff = [...now].filter((a) => !f.ferryRetired.has(a)).concat([...f.ferryRetired].filter((a) => !now.has(a)));
    if (diff.length === 0) return;
    f.ferryRetired = now;
    this.passDirs(f.dirsHeldByOrOpen(new Set(diff)));
  }

  /** The agents table: roster entries with what they hold, last arrival, clock offset. */
  private refreshAgents(): void {
    const rows = this.level.agentRows(this.facts.holdingCounts(), this.facts.lastArrival, (a) => this.store.medianOffset(a));
    if (rows) this.store.replaceAgents(rows);
  }
}
