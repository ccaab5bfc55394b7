import 'server-only';
/**
 * The folder looks, the indexer's truth about what changed on disk (folder events are only
 * hints). What each order folder was at its last pass is remembered as two fingerprints
 * (order-pass.ts): its own stat identity (an entry added, removed or renamed in it changes it:
 * how Syncthing and atomic writers deliver) and its whole listing.
 *
 * - The quick look: lstat of each order folder and the channel level; a folder whose own
 *   identity changed is looked at fully (about 4 µs per folder). It runs in slices of
 *   QUICK_SLICE_MS, each in its turn (look-budget.ts), so a write waits for one slice at most.
 * - The full look (`request(null)`): every entry of every folder.
 * - The sweep: every entry of every folder, a slice at a time, for an in-place rewrite whose
 *   event was lost (no folder's own identity changes then).
 * - The vanish grace (vanish-grace.ts): a file that just vanished is believed a moment longer
 *   (Syncthing replaces a file by unlinking it, then renaming its temp file into place).
 * A look never changes what is remembered of a folder; storing a pass does (`remember`).
 *
 * Memory keeps the fingerprints of the folders whose order is not finished (or that hold none);
 * a finished order's folder is the store's (StoredFolders, the index's `dirs` table, written
 * with every pass): the quick look reads those fingerprints in one go, the sweep a slice at a
 * time, so memory does not grow with history.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { assertChannelRoot, isRealDir, listOrderFolder, walkChannelLevel } from '../disk/read-channel';
import { cyrb53, listingFingerprint, statKey } from './order-pass';
import { VanishGrace } from './vanish-grace';

/** What a look found: the folders whose listing changed or that are gone, and whether the channel level changed. */
export interface LookResult {
  readonly dirty: Set<string>;
  readonly channelDirty: boolean;
  /** Order folders under tasks/ now. */
  readonly folders: number;
  /** tasks/ became unlistable, or listable again, at this look. */
  readonly tasksListing?: boolean;
}

/** Folders looked at per slice of the sweep at most (other work runs between slices) ... */
export const SWEEP_SLICE = 500;
/** ... and the time a slice may take, ms (performance.now()): a write waits for at most one slice, whatever the disk does (1M orders: 500 folders took seconds when their inodes were not cached). */
export const SWEEP_SLICE_MS = 25;

/** The time a slice of the quick look may take, ms (quickSlice): a write waits for at most one slice. */
export const QUICK_SLICE_MS = 10;

/** Stored folders read at once by a slice of the quick look. */
const QUICK_STORED_CHUNK = 1000;

/** The time a slice of the poll of unwatched folders may take, ms (pollSlice). */
export const POLL_SLICE_MS = 10;

/** The folder under tasks/ a channel-relative path is in, or null. */
export const dirOf = (rel: string): string | null => {
  const parts = rel.split('/');
  return parts[0] === 'tasks' && parts.length >= 2 ? (parts[1] ?? null) : null;
};

/** The fingerprints of every folder as stored at its last pass (the index's `dirs` table). */
export interface StoredFolders {
  /** One folder's, or undefined when it is not stored. */
  get(dir: string): { readonly self: number; readonly listing: number } | undefined;
  /** Calls `fn` with every stored folder's; `fn` must not touch the store (it is being read). */
  forEach(fn: (dir: string, self: number, listing: number) => void): void;
  /** Up to `n` stored folders after `after` in the store's order ('' : from the first): a slice of the sweep. */
  after(after: string, n: number): readonly { readonly dir: string; readonly self: number; readonly listing: number }[];
  /** Every stored folder's name. */
  names(): readonly string[];
  /** How many folders are stored. */
  count(): number;
}

/** A quick look under way (FolderLooks.quickSlice): what is left of it. */
interface QuickRun {
  /** Memory's folders left to compare by their own identity: an iterator over memory itself (it follows what passes change meanwhile; nothing is copied), null when done with them. */
  live: Iterator<[string, number]> | null;
  /** Folders on disk at the look's start that memory did not keep, not yet found in the store: new ones at the end. */
  readonly notLive: Set<string>;
  /** Where the look is in the store's folders ('' : at the start), or null: done with them. */
  storedAfter: string | null;
  readonly finished: boolean;
  /** Order folders under tasks/ at the look's start. */
  readonly folders: number;
  /** Its slices' time so far, ms. */
  busyMs: number;
}

export class FolderLooks {
  /** Per live order folder (see setLive), as of its last pass: a fingerprint of its own stat identity (quick look) ... */
  private readonly selfOf = new Map<string, number>();
  /** ... and of its whole listing, itself included (full look); see listingFingerprint. */
  private readonly listing = new Map<string, number>();
  /** Stat identity of the channel-level entries. */
  private channelStats = new Map<string, string>();
  /** Folders in which a file vanished in this look. */
  private lostNow = new Set<string>();
  /** Channel-level listing from before, when a channel-level file vanished in this look. */
  private channelLostNow: Map<string, string> | null = null;
  /** The vanish grace (vanish-grace.ts): what just vanished, believed a moment longer, over looks and passes. */
  readonly grace = new VanishGrace();
  /** Where the running sweep is in the store's order of folders ('' : at the start), or null between sweeps. */
  private sweepAfter: string | null = null;
  /** The running sweep's busy time so far, ms. */
  private sweepBusy = 0;
  /** The running sweep looks only at finished orders' folders' own identities (after a warm start's quick look). */
  private sweepQuick = false;
  /** The channel's tasks/ folder. */
  private readonly tasksAbs: string;
  /** Where the poll of unwatched folders stopped (a live iterator over selfOf), or null: the next slice starts a round. */
  private pollIter: Iterator<[string, number]> | null = null;
  /** How long the last quick look took, ms (its slices' time summed). */
  private quickLookMs = 0;
  /** The quick look under way (quickSlice), or null between quick looks. */
  private quickRun: QuickRun | null = null;

  /**
   * @param root the channel root
   * @param storedPaths the paths stored for a folder at its last pass (to tell that a file vanished)
   * @param stored every folder's fingerprints as stored (memory keeps the live ones)
   * @param log notices, one line each
   */
  constructor(
    private readonly root: string,
    private readonly storedPaths: (dir: string) => Iterable<string>,
    private readonly stored: StoredFolders,
    private readonly log: (line: string) => void,
  ) {
    this.tasksAbs = path.join(root, 'tasks');
  }

  /** Remembers a live folder's fingerprints as of its last pass (a pass stores them too; a start loads the live ones). */
  remember(dir: string, self: number, listing: number): void {
    this.selfOf.set(dir, self);
    this.listing.set(dir, listing);
  }

  /** Forgets a folder that is gone. */
  forget(dir: string): void {
    this.selfOf.delete(dir);
    this.listing.delete(dir);
  }

  /** Keeps a folder's fingerprints in memory (`live`: its order is not finished) or leaves them to the store. */
  setLive(dir: string, live: boolean): void {
    if (!live) {
      this.forget(dir);
      return;
    }
    if (this.listing.has(dir)) return;
    const s = this.stored.get(dir);
    if (s) this.remember(dir, s.self, s.listing);
  }

  /** Whether a folder was there at its last pass. */
  knows(dir: string): boolean {
    return this.listing.has(dir) || this.stored.get(dir) !== undefined;
  }

  /** The fingerprint of a folder's whole listing at its last pass, or undefined (not there). */
  private listingOf(dir: string): number | undefined {
    return this.listing.get(dir) ?? this.stored.get(dir)?.listing;
  }

  /** The live folders (memory's): the orders not finished and the folders holding none. */
  liveDirs(): IterableIterator<string> {
    return this.listing.keys();
  }

  /** Every folder there at its last pass (the store's list). */
  dirs(): readonly string[] {
    return this.stored.names();
  }

  /** How many folders were there at their last pass. */
  get size(): number {
    return this.stored.count();
  }

  /** How many folders memory keeps. */
  get liveSize(): number {
    return this.listing.size;
  }

  /** How long the last quick look took, ms (the quick look's period is a multiple of it). */
  get quickMs(): number {
    return this.quickLookMs;
  }

  /** The running sweep's busy time, ms (the next sweep waits a multiple of it). */
  get sweepBusyMs(): number {
    return this.sweepBusy;
  }

  /** The stat identity of a channel-level entry as last looked at ('' when unknown). */
  channelStatOf(rel: string): string {
    return this.channelStats.get(rel) ?? '';
  }

  /** Starts a look: forgets which folders lost a file in the previous one. */
  begin(): void {
    this.lostNow = new Set();
    this.channelLostNow = null;
    this.grace.begin();
  }

  /** Records the channel-level entries' identities (at start); returns how many there are. */
  readChannelLevel(): number {
    walkChannelLevel(this.root, (rel, st) => this.channelStats.set(rel, statKey(st)));
    return this.channelStats.size;
  }

  /** The names under tasks/ (not starting with '.'), or null when it is not a folder (a symlink is not followed) or cannot be listed. */
  tasksNames(): string[] | null {
    const abs = path.join(this.root, 'tasks');
    if (!isRealDir(abs)) return null;
    try {
      return fs.readdirSync(abs).filter((n) => !n.startsWith('.'));
    } catch {
      return null;
    }
  }

  /** Whether tasks/ could not be listed at the last look: the channel level says so (a problem row). */
  private tasksUnlisted = false;

  /**
   * The whole quick look at once (a warm start's first index). `finished` false: the folders of
   * finished orders found on disk are not looked at now but by the next slices of the sweep,
   * which begins with their own stat identities (a quick sweep) before it looks at every entry;
   * new and gone folders are still found at once.
   */
  quick(finished = true): LookResult {
    this.quickRun = null;
    const dirty = new Set<string>();
    for (;;) {
      const r = this.quickSlice(finished, Infinity);
      for (const d of r.dirty) dirty.add(d);
      if (!r.more) return { ...r, dirty };
    }
  }

  /**
   * The next slice of the quick look (a new one starts when none is under way), for about
   * `sliceMs` (QUICK_SLICE_MS): the first slice lists tasks/ and the channel level and says
   * whether the channel level changed; the next ones compare memory's folders by their own stat
   * identity, then the store's (in its order, a chunk at a time), then look at the new ones.
   * Each slice returns the folders it found changed or gone; `more` says whether the look has
   * folders left (the quick look's time, quickMs, is its slices' time summed, set at its end).
   */
  quickSlice(finished = true, sliceMs = QUICK_SLICE_MS): LookResult & { readonly more: boolean } {
    const started = performance.now();
    const dirty = new Set<string>();
    let channelDirty = false;
    let tasksListing: boolean | undefined;
    let run = this.quickRun;
    if (run === null) {
      const first = this.lookStart(false, finished);
      if (first === null) return { dirty, channelDirty: false, folders: 0, more: false };
      run = this.quickRun = first.run;
      channelDirty = first.channelDirty;
      tasksListing = first.tasksListing;
    }
    const over = (n: number) => (n & 63) === 0 && performance.now() - started >= sliceMs;
    let n = 0;
    // Memory's folders by their own identity: one that is gone fails its lstat, and its full look says so.
    while (run.live !== null && !over(++n)) {
      const next = run.live.next();
      if (next.done) {
        run.live = null;
        break;
      }
      const [d, self] = next.value;
      if (!this.sameSelf(d, self) && this.lookFolder(d, this.listing.get(d))) dirty.add(d);
    }
    // The store's folders that memory does not keep: gone, or compared with their stored identity.
    // At least one chunk per slice when nothing else was looked at in it (a slice always moves on).
    while (run.live === null && run.storedAfter !== null && (n === 0 || performance.now() - started < sliceMs)) {
      n++;
      const rows = this.stored.after(run.storedAfter, QUICK_STORED_CHUNK);
      for (const r of rows) {
        if (this.listing.has(r.dir)) continue;
        if (!run.notLive.delete(r.dir)) dirty.add(r.dir);
        else if (run.finished && !this.sameSelf(r.dir, r.self) && this.lookFolder(r.dir, r.listing)) dirty.add(r.dir);
      }
      run.storedAfter = rows.length < QUICK_STORED_CHUNK ? null : (rows[rows.length - 1]?.dir ?? null);
    }
    // New folders: stored nowhere (one a pass stored since the look began is known now).
    if (run.live === null && run.storedAfter === null) {
      for (const d of run.notLive) {
        if (over(++n)) break;
        run.notLive.delete(d);
        if (this.lookFolder(d, this.listingOf(d))) dirty.add(d);
      }
    }
    run.busyMs += performance.now() - started;
    const more = run.live !== null || run.storedAfter !== null || run.notLive.size > 0;
    if (!more) {
      this.quickLookMs = run.busyMs;
      this.quickRun = null;
    }
    return { dirty, channelDirty, folders: run.folders, ...(tasksListing !== undefined ? { tasksListing } : {}), more };
  }

  /** Whether a quick look is under way (its next slice is due). */
  get quickUnderWay(): boolean {
    return this.quickRun !== null;
  }

  /** The full look at everything: every entry of every folder and of the channel level (a quick look under way is dropped: this one covers it). */
  full(): LookResult {
    this.quickRun = null;
    const dirty = new Set<string>();
    const start = this.lookStart(true, true);
    if (start === null) return { dirty, channelDirty: false, folders: 0 };
    const { run, channelDirty, tasksListing } = start;
    // Every folder with its listing's fingerprint as known (undefined: new), gathered before any is looked at (a look changes memory).
    const toLook: [string, number | undefined][] = [];
    for (const d of this.selfOf.keys()) toLook.push([d, this.listing.get(d)]);
    // The store's folders that memory does not keep: gone, or looked at.
    this.stored.forEach((d, _self, listing) => {
      if (this.listing.has(d)) return;
      if (!run.notLive.delete(d)) dirty.add(d);
      else toLook.push([d, listing]);
    });
    for (const d of run.notLive) toLook.push([d, undefined]); // new: stored nowhere
    for (const [d, known] of toLook) if (this.lookFolder(d, known)) dirty.add(d);
    return { dirty, channelDirty, folders: run.folders, tasksListing };
  }

  /**
   * The start of a look: the channel level, and tasks/ listed. A root that is no channel (any
   * more) is said once per look, and null is returned: nothing is dirty, the last board stays.
   */
  private lookStart(full: boolean, finished: boolean): { run: QuickRun; channelDirty: boolean; tasksListing: boolean } | null {
    try {
      assertChannelRoot(this.root);
    } catch (e) {
      this.log(`index: ${e instanceof Error ? e.message : String(e)}; keeping the last board`);
      return null;
    }
    const listed = this.tasksNames();
    const unlisted = listed === null && isRealDir(path.join(this.root, 'tasks'));
    // tasks/ becoming unlistable (or listable again) changes no channel-level stat: its problem row is read anew.
    const tasksListing = unlisted !== this.tasksUnlisted;
    const channelDirty = this.lookChannelLevel() || tasksListing;
    this.tasksUnlisted = unlisted;
    const names = listed ?? [];
    // Folders on disk that memory does not keep: finished orders' (the store's) and new ones.
    const notLive = new Set<string>();
    for (const d of names) if (!this.listing.has(d)) notLive.add(d);
    // Left to the sweep, which starts with their own identities (sweepSlice), unless it is at it already.
    if (!full && !finished && !this.sweepQuick) {
      this.sweepAfter = '';
      this.sweepBusy = 0;
      this.sweepQuick = true;
    }
    return { run: { live: full ? null : this.selfOf.entries(), notLive, storedAfter: '', finished, folders: names.length, busyMs: 0 }, channelDirty, tasksListing };
  }

  /** Folders and channel level named by events (a path under tasks/<dir> marks the folder; `tasks` itself: a full look). */
  refresh(paths: ReadonlySet<string>): { dirty: Set<string>; channelDirty: boolean } {
    const dirty = new Set<string>();
    let channelDirty = false;
    for (const rel of paths) {
      const parts = rel.split('/');
      if (parts.some((p) => p.startsWith('.'))) continue;
      const d = dirOf(rel);
      if (d !== null) dirty.add(d);
      else if (rel === 'tasks') {
        const all = this.full();
        for (const r of all.dirty) dirty.add(r);
        // What the full look found at the channel level (tasks/ itself replaced, its listability changed) is read anew.
        channelDirty ||= all.channelDirty;
      }
      else if (parts.length <= 2) channelDirty = true;
    }
    // Which of them lost a file since their last pass (the vanish grace, applyGrace).
    for (const d of dirty) {
      if (!this.knows(d)) continue;
      const l = listOrderFolder(this.root, d);
      if (l) this.noteVanished(d, new Set([`tasks/${d}`, ...l.entries.map((e) => e.rel)]));
    }
    if (channelDirty) this.lookChannelLevel();
    return { dirty, channelDirty };
  }

  /**
   * The next slice of the sweep (a new sweep starts with every folder when the last one ended):
   * up to SWEEP_SLICE folders in the store's order, fewer when SWEEP_SLICE_MS has passed; the
   * folders whose listing changed. `more` says whether the sweep has folders left. After a warm
   * start's quick look (quick(false)) the sweep is first a quick one over the finished orders'
   * folders (their own stat identity, as the quick look compares), then at once a full one.
   */
  sweepSlice(): { dirty: string[]; more: boolean } {
    if (this.sweepAfter === null) {
      this.sweepAfter = '';
      this.sweepBusy = 0;
    }
    const quick = this.sweepQuick;
    const started = performance.now();
    const slice = this.stored.after(this.sweepAfter, quick ? SWEEP_SLICE * 8 : SWEEP_SLICE);
    const dirty: string[] = [];
    let looked = 0;
    for (const r of slice) {
      const known = this.listing.get(r.dir);
      if (!quick) {
        if (this.lookFolder(r.dir, known ?? r.listing)) dirty.push(r.dir);
      } else if (known === undefined && !this.sameSelf(r.dir, r.self) && this.lookFolder(r.dir, r.listing)) dirty.push(r.dir);
      looked++;
      if (performance.now() - started >= SWEEP_SLICE_MS) break;
    }
    const last = slice[looked - 1];
    // The sweep ends when the store has no folder after the last one looked at.
    const ended = looked === slice.length && slice.length < (quick ? SWEEP_SLICE * 8 : SWEEP_SLICE);
    this.sweepAfter = ended ? null : (last?.dir ?? null);
    this.sweepBusy += performance.now() - started;
    if (ended && quick) {
      // The full sweep follows at once.
      this.log(`index: the finished orders' folders looked at after the warm start (${(this.sweepBusy / 1000).toFixed(1)} s of slices)`);
      this.sweepQuick = false;
      this.sweepAfter = '';
      this.sweepBusy = 0;
    }
    return { dirty, more: this.sweepAfter !== null };
  }

  /**
   * The next slice of the poll: memory's folders (the unfinished orders') that `watched` says
   * are not watched, each by its own stat identity, for at most POLL_SLICE_MS; returns those
   * whose listing changed. Each slice resumes where the last one stopped, so every unwatched
   * folder is looked at once per round (a million orders, 236,000 unwatched: a round in about
   * 12 s at 5 % of a core), not only by the quick look of every folder (a minute apart there).
   */
  pollSlice(watched: (d: string) => boolean): string[] {
    const dirty: string[] = [];
    const started = performance.now();
    const it = this.pollIter ?? this.selfOf.entries();
    this.pollIter = null;
    let looked = 0;
    for (let r = it.next(); !r.done; r = it.next()) {
      const [d, self] = r.value;
      if (watched(d)) continue;
      if (!this.sameSelf(d, self) && this.lookFolder(d, this.listing.get(d))) dirty.push(d);
      if (++looked % 64 === 0 && performance.now() - started >= POLL_SLICE_MS) {
        this.pollIter = it;
        break;
      }
    }
    return dirty;
  }

  /** Whether the sweep is still looking at finished orders' folders left by a warm start's quick look. */
  get finishedPending(): boolean {
    return this.sweepQuick;
  }

  /** Whether an order folder's own stat identity is still `self` (false: changed, vanished, or a name that is not valid UTF-8: a full look decides). */
  private sameSelf(d: string, self: number | undefined): boolean {
    let st: Stats | undefined;
    try {
      st = fs.lstatSync(`${this.tasksAbs}/${d}`, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    return st !== undefined && cyrb53(statKey(st)) === self;
  }

  /**
   * Looks at every entry of one order folder: true when its listing differs from the one of
   * its last pass (or it is new, or gone). Notes a folder in which a file that was there at
   * its last pass is missing.
   */
  private lookFolder(d: string, known: number | undefined = this.listingOf(d)): boolean {
    const l = listOrderFolder(this.root, d);
    if (!l) return known !== undefined;
    const pairs: [string, string][] = [[`tasks/${d}`, statKey(l.self)]];
    for (const e of l.entries) pairs.push([e.rel, statKey(e.st)]);
    if (listingFingerprint(pairs) === known) return false;
    if (known !== undefined) this.noteVanished(d, new Set(pairs.map((p) => p[0])));
    return true;
  }

  /** Notes `d` as having lost a file when a path stored at its last pass is not in `now`. */
  private noteVanished(d: string, now: ReadonlySet<string>): void {
    for (const p of this.storedPaths(d)) {
      if (!now.has(p)) {
        this.lostNow.add(d);
        return;
      }
    }
  }

  /** Compares the channel-level entries with the remembered ones (and remembers the new ones). */
  private lookChannelLevel(): boolean {
    const channelNow = new Map<string, string>();
    walkChannelLevel(this.root, (rel, st) => channelNow.set(rel, statKey(st)));
    const changed = channelNow.size !== this.channelStats.size || [...channelNow].some(([p, k]) => this.channelStats.get(p) !== k);
    if ([...this.channelStats.keys()].some((p) => !channelNow.has(p))) this.channelLostNow = this.channelStats;
    this.channelStats = channelNow;
    return changed;
  }

  /**
   * The vanish grace over this look's result (vanish-grace.ts overLook; `graceMs` 0: none): the
   * folders that lost a file leave `dirty` while their grace runs; a held channel level keeps its
   * previous listing. Returns whether the channel level is still to be read.
   */
  applyGrace(dirty: Set<string>, channelDirty: boolean, graceMs: number): boolean {
    const r = this.grace.overLook(this.lostNow, dirty, this.channelLostNow !== null, channelDirty, graceMs);
    if (r.channelHeld && this.channelLostNow) this.channelStats = this.channelLostNow;
    return r.channelDirty;
  }
}
