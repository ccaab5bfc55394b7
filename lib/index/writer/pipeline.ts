import { ordersChanged } from '../../ledger/ledger-facts';
import 'server-only';
/**
 * The indexer's pipeline: the one object its parts work through. It owns what lives as long as
 * the indexer (the clock, the verifier, the timers, the guard, the watches, this machine's holds
 * and deaths) and the parts made from one index database (index-parts.ts), which a rebuild or a
 * resync replaces as one. The parts (first-index.ts, cold-pass.ts, guard.ts, scheduler.ts,
 * pass-writer.ts, channel-level.ts) are given this object and call its steps; none is handed
 * closures into its owner. Its steps: the pump (what changed on disk, then the passes), the
 * passes over folders and the settle that follows each (facts.ts), the channel level read again.
 */
import fs from 'node:fs';
import { assertChannelRoot, NOT_LISTABLE } from '../disk/read-channel';
import { bytesThrough, serverVerifier, type Ed25519VerifyBytes } from '../disk/verifier';
import { MetricsRecorder } from './metrics-record';
import type { Ed25519Verify } from '../../ledger/verify';
import type { Card } from '../../ledger/derive';
import type { IndexProgress } from '../types';
import { firstIndex } from './first-index';
import type { BeatGapRecorder } from './beat-gaps';
import { MAX_SETTLE_ROUNDS } from './facts';
import { Scheduler } from './scheduler';
import { OrderWatches } from './watches';
import { foldCaseVariants, passFolder, siblingChunks } from './passes';
import type { OrderPassResult } from './order-pass';
import { canonicalName } from '../../ledger/names';
import { UpdateGuard } from './guard';
import { bootClockMs } from '../steady-clock';
import { arrivalsFor, type ArrivalOf } from '../../ledger/clock-steps';
import { openWriter } from '../db';
import { LocalHolds } from './local-holds';
import { LocalDeaths } from './local-deaths';
import { openParts, reloadParts, type IndexParts } from './index-parts';
import { DEFAULT_VANISH_GRACE_MS, type IndexerOptions } from '../indexer-options';

/** The progress of an index not yet started. */
const STARTING: IndexProgress = { phase: 'starting', files_seen: 0, files_read: 0, files_verified: 0, ready_at_ms: null };

export class Pipeline {
  /** The parts made from the index database in use; replaced as one by rebuild() and resync(). */
  parts: IndexParts;
  /** The first index's progress, as the meta row says it. */
  progress: IndexProgress = STARTING;
  /** Signatures verified (by this process) since start. */
  verified = 0;
  /** Records heartbeat gaps seen live (beat-gaps.ts); made by the first index, whose moment it needs. */
  beatGaps: BeatGapRecorder | null = null;
  /** The index's clock, ms: this machine's wall clock less the steps the guard saw (steady-clock.ts). */
  readonly clock: () => number;
  readonly log: (line: string) => void;
  /** The signature check, counted. */
  readonly verify: Ed25519Verify;
  /** The same verifier on bytes (a cold index's checking pass), counted alike. */
  readonly verifyBytes: Ed25519VerifyBytes;
  /** Which verifier checks signatures (verifier.ts), for the "ready" line. */
  readonly verifierName: string;
  /** Index lag and attention ages for GET /metrics (metrics-record.ts). */
  readonly metrics = new MetricsRecorder();
  /** This machine's reaper holds, folded into the cards when they settle (local-holds.ts). */
  readonly holds: LocalHolds | null;
  /** This machine's dead local runs, folded into the cards when they settle (local-deaths.ts). */
  readonly deaths: LocalDeaths | null;
  readonly watches: OrderWatches;
  readonly timers: Scheduler;
  /** The faults an update can meet (guard.ts): failed writes, the database swapped, the folder gone, clock steps. */
  readonly guard: UpdateGuard;

  constructor(readonly opts: IndexerOptions) {
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
    this.holds = opts.reaperState ? new LocalHolds(opts.reaperState, opts.root) : null;
    this.deaths = opts.localDeath ? new LocalDeaths(opts.localDeath, this.clock) : null;
    this.watches = new OrderWatches(
      { wants: (d) => this.parts.facts.orderIn(d)?.lane !== 'done', knows: (d) => this.parts.looks.knows(d), dirs: () => this.parts.looks.liveDirs() },
      opts.maxWatches,
    );
    this.timers = new Scheduler(this);
    this.guard = new UpdateGuard(
      // An injected clock owns time: its steps are seen only against the boot clock given with it.
      { root: opts.root, dbFile: opts.db.memory ? null : opts.db.name, clock: wall, bootClock: opts.bootClock ?? opts.clock ?? bootClockMs },
      this,
    );
    this.parts = openParts(this, opts.db);
  }

  /** Whether the first index is done (only then is a pass's lag counted, or a retirement followed at once). */
  get live(): boolean {
    return this.progress.phase === 'ready';
  }

  setProgress(p: Partial<IndexProgress>): void {
    this.progress = { ...this.progress, ...p };
    this.parts.store.writeMeta('progress', this.progress);
  }

  /** Adds signatures a worker thread verified. */
  addVerified(n: number): void {
    this.verified += n;
  }

  // --- what the guard asks for ---

  /** Asks for a full look `ms` from now. */
  retryIn(ms: number): void {
    this.timers.wantAll();
    this.timers.schedule(ms);
  }

  /** Makes what this process remembers of the index again from the database, as a warm start does (after a failed write). */
  resync(): void {
    this.parts = reloadParts(this, this.parts);
    // The channel-level entries are not remembered: the next look reads the channel level again.
    this.parts.level.load();
    this.holds?.forget();
  }

  /**
   * Builds a new index at `file` from the folder (a cold index); a file that replaced ours is
   * moved aside first (`<file>.replaced-<ms>`), never trusted. The new connection is this
   * indexer's (closed by Indexer.stop()); readers reopen by the path (db.ts readDb).
   */
  async rebuild(file: string, replaced: boolean): Promise<void> {
    if (replaced) {
      const aside = `${file}.replaced-${Date.now()}`;
      fs.renameSync(file, aside);
      this.log(`index: the file found at ${file} was moved to ${aside}`);
    }
    const old = this.parts.store.db;
    const db = openWriter(file, (w) => this.log(`index: ${w}`));
    this.parts = openParts(this, db);
    this.progress = STARTING;
    try {
      await firstIndex(this);
      this.opts.onRebuilt?.(db);
    } finally {
      // Closed only now: until the new index is complete, its readers (the alerts) keep the old one.
      if (old !== this.opts.db) old.close();
    }
    this.timers.wantQuick();
    this.timers.schedule(0);
  }

  /** The folder is back: its watches are made again (when watching). */
  resubscribe(): void {
    if (!this.watches.active) return;
    this.watches.close();
    this.subscribe();
  }

  /** A failed update may have stored cards of some chunks and not settled them: settles them if so. */
  settleIfUnsettled(): void {
    if (this.parts.store.readMeta('unsettled') === true) this.settle(true);
  }

  /** Derives every order again (after a clock step: files read again keep their arrivals). */
  deriveAll(): void {
    this.passDirs(new Set(this.parts.facts.orderDirs()));
  }

  /** The channel's folders that could not be listed at the last update (their problem rows' paths). */
  unlisted(): string[] {
    return this.parts.store.db.prepare('SELECT path FROM problems WHERE detail LIKE ? ORDER BY path').pluck().all(`${NOT_LISTABLE}%`) as string[];
  }

  // --- what the timers ask for ---

  /** The next slice of the poll of unfinished orders' folders: only while watching (without folder events the quick look is the way), and only when some are not watched. */
  pollSlice(): readonly string[] {
    const looks = this.parts.looks;
    return this.watches.active && this.watches.orderFolders < looks.liveSize ? looks.pollSlice((d) => this.watches.watching(d)) : [];
  }

  /** Asks for an update of `rel` (null: a full look at everything) soon. */
  request(rel: string | null): void {
    this.timers.request(rel);
  }

  /** Processes the pending work (paths, a full look, or a quick look): re-reads the folders where something changed. Synchronous. */
  pump(): void {
    const { looks, level, store } = this.parts;
    const work = this.timers.take();
    looks.begin();
    if (work.channelDirs) this.watches.watchChannelDirs();
    if (work.tasksDir) this.watches.watchOrderFoldersAgain();
    const scanned = work.all ? looks.full() : looks.refresh(work.paths);
    const dirty = scanned.dirty;
    let channelDirty = scanned.channelDirty;
    if (work.quick && !work.all) {
      // A slice of the quick look; the next waits for its turn, after any write due (look-budget.ts).
      // While the sweep looks at the finished orders' folders after a warm start, this look leaves them to it.
      const look = looks.quickSlice(!looks.finishedPending);
      for (const d of look.dirty) dirty.add(d);
      channelDirty = channelDirty || look.channelDirty;
      if (look.more) this.timers.quickTurn();
    }
    channelDirty = looks.applyGrace(dirty, channelDirty, this.opts.vanishGraceMs ?? DEFAULT_VANISH_GRACE_MS);
    this.timers.graceChanged();
    // An operator re-pinned a key (claimboard repin): the roster must be rebuilt.
    channelDirty = channelDirty || level.pinsChanged();
    if (channelDirty) {
      if (this.readChannelLevel()) {
        for (const d of this.parts.facts.orderDirs()) dirty.add(d);
        for (const d of this.parts.looks.dirs()) dirty.add(d);
      }
      // The roster, ledger files or channel problems changed: every open page refetches.
      store.addChange('*', this.clock());
    }
    // A hold that began or ended settles its order again, with no file changed.
    const held = this.touchHolds() || this.touchDeaths();
    this.passDirs(dirty);
    if (held && dirty.size === 0) this.settle(false);
    this.timers.staleChanged();
    if (channelDirty) this.opts.onSettled?.();
  }

  /** Re-derives the folders whose cards may have changed with the clock (next_ms passed). */
  passDue(): void {
    const due = this.parts.store.dueDirs(this.clock());
    if (due.length > 0) this.passDirs(new Set(due));
  }

  /** Marks the running orders of local agents whose process died (local-deaths.ts); true when there are any. */
  private touchDeaths(): boolean {
    const ids = this.deaths?.take(this.parts.store.db) ?? [];
    for (const id of ids) this.parts.facts.touchOrder(id);
    return ids.length > 0;
  }

  /** Marks the orders whose reaper holds changed (local-holds.ts); true when there are any. */
  touchHolds(): boolean {
    const ids = this.holds?.take(this.parts.store.db);
    if (!ids || ids.size === 0) return false;
    for (const id of ids) this.parts.facts.touchOrder(id);
    return true;
  }

  // --- watching ---

  /** Watches the channel folder; each event queues its path for the pump. */
  subscribe(): void {
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
  updateWatch(dir: string): void {
    if (this.watches.update(dir)) this.request(`tasks/${dir}`);
  }

  // --- reading and storing ---

  /**
   * Reads the channel level again (channel-level.ts); a retirement appearing or going away
   * re-derives the orders that agent holds and the open ones. Returns true when the roster's
   * keys or operators changed (then every folder must be re-derived). A live read the vanish
   * grace holds back changes nothing (the grace's timer re-armed).
   */
  readChannelLevel(withLedgers = true): boolean {
    const { level, facts } = this.parts;
    const r = level.read(this.live);
    if (r.held) {
      this.timers.graceChanged();
      return false;
    }
    for (const w of r.ledgerSigners) facts.touchWriter(w);
    if (!r.rosterChanged && r.retiredChanged.length > 0 && this.live) this.passDirs(facts.dirsHeldByOrOpen(new Set(r.retiredChanged)));
    if (withLedgers) {
      // Orders whose ledger facts changed (a retire, an interrupt written in a ledger) are derived again.
      const before = level.ledgerFacts();
      level.readLedgers();
      const changed = ordersChanged(before, level.ledgerFacts());
      if (changed.size > 0 && this.live) this.passDirs(changed);
    }
    this.refreshAgents();
    return r.rosterChanged;
  }

  /**
   * Re-reads and re-derives the given folders (with their case siblings) on this thread, a
   * chunk per transaction, then settles. Synchronous.
   */
  passDirs(dirs: Set<string>, cold = false): void {
    if (dirs.size === 0) return;
    const { facts, looks, level, store, writer } = this.parts;
    for (const part of siblingChunks(facts.withCaseSiblings(dirs, (d) => looks.knows(d)))) {
      const ctx = level.passContext(store.rememberedSigsIn(part), facts.ferryRetired, this.arrivals(part));
      const passed = part.map((d) => passFolder(d, ctx));
      // A folder found gone is stored as deleted only while the channel folder is still there:
      // renamed away or unmounted during the reads, it throws (the guard says folder_missing).
      if (passed.some((r) => r.files.length === 0)) assertChannelRoot(this.opts.root);
      const results = cold ? passed : this.holdVanished(passed);
      writer.storeResults(foldCaseVariants(results), cold);
      if (cold) this.setProgress({ files_read: this.progress.files_read + results.reduce((n, r) => n + r.files.length, 0), files_verified: this.verified });
    }
    this.settle(cold);
  }

  /**
   * A live pass's results without those the vanish grace holds back (vanish-grace.ts overPass: a
   * file stored before and not there now, or one gone mid-read; a folder gone whole is not held),
   * each with its case siblings, which are stored together; the grace's timer re-armed when one
   * is held.
   */
  private holdVanished(results: OrderPassResult[]): OrderPassResult[] {
    const grace = this.opts.vanishGraceMs ?? DEFAULT_VANISH_GRACE_MS;
    if (grace <= 0) return results;
    const { looks, store } = this.parts;
    const held = new Set<string>();
    for (const r of results) {
      // A folder gone whole is no replace: it is stored gone at once.
      const vanished = r.vanished === true || (r.files.length > 0 && lostSinceStored(store.pathsIn(r.dir), r.files));
      if (looks.grace.overPass(r.dir, vanished, grace)) held.add(canonicalName(r.dir));
    }
    if (held.size === 0) return results;
    this.timers.graceChanged();
    return results.filter((r) => !held.has(canonicalName(r.dir)));
  }

  /**
   * Arrivals on the index's clock for a pass over `dirs` (steady-clock.ts): none to compute
   * before the first clock step; after one, a file already stored with the same stat identity
   * keeps its arrival (null: a cold pass, nothing stored).
   */
  arrivals(dirs: readonly string[] | null): ArrivalOf | undefined {
    const skew = this.opts.ctimeSkew?.() ?? 0;
    const steps = this.guard.steps;
    const known = steps.length > 0 && dirs ? this.parts.store.arrivalsIn(dirs) : null;
    const f = arrivalsFor(steps, known ? (rel) => known.get(rel) : undefined);
    if (skew === 0) return f;
    return (rel, stat, c) => (f ? f(rel, stat, c + skew) : c + skew);
  }

  /**
   * Applies channel-wide facts (facts.ts settle): the latest arrival of touched writers (every
   * writer's when `cold`), then the facts on every touched card (every card when `cold`) until
   * nothing changes; then records the change feed and what /metrics reads.
   */
  settle(cold: boolean): void {
    const { store: s, facts: f, writer } = this.parts;
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
      const out = f.settle(cold, ctx, { read: (id) => s.cardRow(id), write: (c, dir, next) => writer.writeCard(c, dir, next) });
      if (out.unsettled.length > 0) {
        this.log(`index: settle stopped after ${MAX_SETTLE_ROUNDS} rounds with ${out.unsettled.length} orders still changing (${out.unsettled.slice(0, 5).join(', ')}); their cards stay as last written`);
      }
      const changed = f.takeChanged();
      if (!cold) for (const id of changed) s.addChange(id, this.clock());
      s.trimChanges();
      s.writeMeta('unsettled', false);
      this.metrics.record(s, this.clock(), this.verified, this.live, cold ? null : changed);
    });
    this.refreshAgents();
    this.followFerryRetires();
    writer.updateWatches();
    this.opts.onSettled?.();
  }

  /**
   * After a settle: when the names retired by ferry retire releases changed, the orders those
   * names hold (and the open ones) are derived again (their retired_holder flag, and every open
   * order's workers).
   */
  private followFerryRetires(): void {
    const f = this.parts.facts;
    const now = this.parts.store.ferryRetiredNames();
    const diff = [...now].filter((a) => !f.ferryRetired.has(a)).concat([...f.ferryRetired].filter((a) => !now.has(a)));
    if (diff.length === 0) return;
    f.ferryRetired = now;
    this.passDirs(f.dirsHeldByOrOpen(new Set(diff)));
  }

  /** The agents table: roster entries with what they hold, last arrival, clock offset. */
  private refreshAgents(): void {
    const { level, facts, store } = this.parts;
    const rows = level.agentRows(facts.holdingCounts(), facts.lastArrival, (a) => store.medianOffset(a));
    if (rows) store.replaceAgents(rows);
  }
}

/** Whether a path stored at a folder's last pass is missing from this pass's files. */
function lostSinceStored(stored: Iterable<string>, files: OrderPassResult['files']): boolean {
  let present: Set<string> | null = null;
  for (const p of stored) {
    present ??= new Set(files.map((f) => f.path));
    if (!present.has(p)) return true;
  }
  return false;
}
