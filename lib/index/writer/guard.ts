import 'server-only';
/**
 * The faults an update can meet, kept out of the indexer's orchestration: a write
 * into the index that fails (its disk full), the index database deleted or replaced while
 * serving, the channel folder gone, this machine's wall clock stepped. `UpdateGuard.run` wraps
 * every update; what it must do in each case it asks of the pipeline (pipeline.ts: resync,
 * rebuild, a full look again), which keeps the parts those touch. The health it says is read
 * by the web server's process (health.ts).
 */
import { assertChannelRoot, ChannelUnreadableError } from '../disk/read-channel';
import { dbIdentity, HEALTH_OK, isSqliteError, writeHealth, type IndexHealth } from '../health';
import { steppedMs, withStep, type ClockStep } from '../../ledger/clock-steps';
import { bootId } from '../steady-clock';
import type { Pipeline } from './pipeline';

/** A wall-clock step: the wall clock minus the boot clock moved by more than this (ms) between two updates. */
export const CLOCK_STEP_MS = 5_000;

/** Where the guard looks: the folder, the database file, the clocks. */
export interface GuardSetup {
  readonly root: string;
  /** The index database's file, or null for an in-memory one (no identity, no health file). */
  readonly dbFile: string | null;
  /** This machine's wall clock as it reads, ms since the epoch (steps and all: the guard sees them on it). */
  readonly clock: () => number;
  /** The boot clock `clock` is held against (steady-clock.ts bootClockMs). */
  readonly bootClock: () => number;
}

/** Wraps the indexer's updates (see the module header); one per indexer. */
export class UpdateGuard {
  private healthNow: IndexHealth = HEALTH_OK;
  /** The database file's device:inode when opened (dbIdentity), or null (in memory). */
  private dbId: string | null = null;
  /** The wall clock minus the boot clock at the last update, ms, or null before start. */
  private wallOffset: number | null = null;
  /** The wall clock's steps seen (oldest first), kept in the index's `clock` meta row. */
  private clockSteps: ClockStep[] = [];
  /** The rebuild under way after the database file was deleted or replaced, or null. */
  private rebuilding: Promise<void> | null = null;
  /**
   * Since the database file was found deleted or replaced, until a rebuild succeeds: why (as the
   * health's reason says it) and, once a try failed, the moment the next may begin (ms, the boot
   * clock: every update asks, and the look retryIn(1000) arms is only the latest of them), or
   * null. After a failed try the file at the path, if any, is the one it opened.
   */
  private swapped: { readonly why: string; retryAtMs: number | null } | null = null;

  constructor(
    private readonly setup: GuardSetup,
    private readonly p: Pipeline,
  ) {}

  /** Whether the board is current: `degraded` while writes fail, the folder is missing, or the index is being rebuilt. */
  get health(): IndexHealth {
    return this.healthNow;
  }

  /** Sets the health and tells the web server's process (the health file). */
  setHealth(h: IndexHealth): void {
    this.healthNow = h;
    if (this.setup.dbFile) writeHealth(this.setup.dbFile, h);
  }

  /**
   * At start: health ok, the database file as opened now, and the clock's steps as the index
   * remembers them; a step made while no indexer ran (the wall clock minus the boot clock moved,
   * same boot) is added, so the first index already puts arrivals on the steady timeline.
   */
  begin(): void {
    this.setHealth(HEALTH_OK);
    this.noteDb();
    const stored = this.p.parts.store.readMeta('clock');
    const wall = this.setup.clock();
    const offset = wall - this.setup.bootClock();
    const boot = bootId();
    this.clockSteps = [...(stored?.steps ?? [])];
    this.wallOffset = offset;
    if (stored && boot !== null && stored.boot_id === boot && stored.wall_minus_boot_ms !== null && Math.abs(offset - stored.wall_minus_boot_ms) > CLOCK_STEP_MS) {
      // The cards stored are on the steady timeline already: the first index goes on from them.
      this.noteStep(wall, offset - stored.wall_minus_boot_ms, 'while no indexer ran', false);
    } else this.saveClock();
  }

  /** The wall clock's steps seen, oldest first. */
  get steps(): readonly ClockStep[] {
    return this.clockSteps;
  }

  /** The sum of the steps, ms: the index's clock is the wall clock less this (steady-clock.ts). */
  get steppedMs(): number {
    return steppedMs(this.clockSteps);
  }

  /** Writes the steps into the index (again: a rebuilt index starts without the row). */
  saveClock(): void {
    this.p.parts.store.writeMeta('clock', { steps: this.clockSteps, boot_id: bootId(), wall_minus_boot_ms: this.wallOffset });
  }

  private noteStep(wall: number, delta: number, when: string, deriving: boolean): void {
    this.clockSteps = withStep(this.clockSteps, wall, delta);
    this.saveClock();
    this.p.log(
      `index: this machine's clock stepped ${delta > 0 ? 'forward' : 'back'} by ${(Math.abs(delta) / 1000).toFixed(0)} s ${when}; ages stay on the clock as it read before (${(this.steppedMs / 1000).toFixed(0)} s stepped in all)` +
        (deriving ? `, deriving all ${this.p.parts.stored.orderCount()} orders again` : ''),
    );
  }

  /** Remembers the identity of the database file as it is now (after opening it). */
  noteDb(): void {
    this.dbId = this.setup.dbFile ? dbIdentity(this.setup.dbFile) : null;
  }

  /** Resolves when no rebuild is under way. */
  async settled(): Promise<void> {
    await this.rebuilding;
  }

  /**
   * Runs an update; when it throws (SQLITE_FULL when the database's disk is full, an I/O error),
   * its transaction was rolled back but what this process remembers (looks, facts, the roster's
   * signature) may already say the folders were stored: that memory is made again from the
   * database (resync), so the retry, a full look a second later, reads those folders again.
   * Degraded is said once (log and health file) and ends with the first update that succeeds.
   */
  run(work: () => void): void {
    // Nothing is written into a database file that is no longer at the path (or while rebuilding it).
    if (this.dbSwapped()) return;
    if (this.folderMissing()) return;
    try {
      if (this.healthNow.state === 'degraded') this.p.settleIfUnsettled();
      this.followClockStep();
      work();
    } catch (e) {
      if (e instanceof ChannelUnreadableError) {
        // The folder went during the update, after the check above (the update found it so
        // before storing anything of what it read: pipeline.ts passDirs, channel-level.ts read).
        this.p.resync();
        if (!this.folderMissing()) this.p.retryIn(0);
        return;
      }
      const why = e instanceof Error ? e.message : String(e);
      const h = this.healthNow;
      if (h.state === 'ok') {
        this.p.log(`index: degraded: an update failed (${why}); serving the last good board, retrying every second${e instanceof Error && !isSqliteError(e) ? `\n${e.stack ?? ''}` : ''}`);
        this.setHealth({ state: 'degraded', code: 'index_write_failed', reason: why, since_ms: this.setup.clock(), retries: 0 });
      } else if (h.code === 'index_write_failed') {
        this.setHealth({ ...h, reason: why, retries: h.retries + 1 });
      }
      this.p.resync();
      this.p.retryIn(1000);
      return;
    }
    const h = this.healthNow;
    if (h.state === 'degraded' && h.code === 'index_write_failed') {
      this.p.log(`index: writing again after ${((this.setup.clock() - h.since_ms) / 1000).toFixed(1)} s and ${h.retries} retries; caught up`);
      this.setHealth(HEALTH_OK);
    } else if (h.state === 'degraded' && h.code === 'folder_missing') {
      this.p.log(`index: the channel folder is back after ${((this.setup.clock() - h.since_ms) / 1000).toFixed(1)} s; the board is what is there now`);
      this.setHealth(HEALTH_OK);
    }
    this.noteUnlisted();
  }

  /** Says (health folder_unreadable) while a folder of the channel cannot be listed, and stops saying it once none is. */
  private noteUnlisted(): void {
    const unlisted = this.p.unlisted();
    const h = this.healthNow;
    const saying = h.state === 'degraded' && h.code === 'folder_unreadable';
    if (unlisted.length > 0 && (h.state === 'ok' || saying)) {
      const reason = `${unlisted.slice(0, 5).join(', ')}${unlisted.length > 5 ? ` and ${unlisted.length - 5} more` : ''} cannot be listed: the board lacks what is in them`;
      if (saying && h.reason === reason) return;
      if (!saying) this.p.log(`index: ${reason}`);
      this.setHealth({ state: 'degraded', code: 'folder_unreadable', reason, since_ms: saying ? h.since_ms : this.setup.clock(), retries: 0 });
    } else if (unlisted.length === 0 && saying) {
      this.p.log('index: every folder of the channel can be listed again');
      this.setHealth(HEALTH_OK);
    }
  }

  /**
   * Whether the channel folder is gone (renamed away, unmounted, no longer a channel): then
   * nothing is looked at (a look would take every order for deleted), the board is kept but said
   * to be not the folder's (index_health folder_missing, which also refuses actions), and it is
   * looked for again every second. When it is back (or another folder is at the path) its watches
   * are made again on it and the next update is a full look at what is there.
   */
  private folderMissing(): boolean {
    let why: string | null = null;
    try {
      assertChannelRoot(this.setup.root);
    } catch (e) {
      why = e instanceof Error ? e.message : String(e);
    }
    const h = this.healthNow;
    const wasMissing = h.state === 'degraded' && h.code === 'folder_missing';
    if (why !== null) {
      if (!wasMissing) {
        this.p.log(`index: the channel folder ${this.setup.root} is missing (${why}); the board is kept and said to be not current, actions are refused; looking for it every second`);
        this.setHealth({ state: 'degraded', code: 'folder_missing', reason: why, since_ms: this.setup.clock(), retries: 0 });
      }
      this.p.retryIn(1000);
      return true;
    }
    if (wasMissing) {
      this.p.retryIn(0);
      this.p.resubscribe();
    }
    return false;
  }

  /**
   * When this machine's wall clock stepped (NTP, an operator, a VM resumed) since the last update
   * — the wall clock minus the boot clock moved by more than CLOCK_STEP_MS — the step is kept
   * (the index's clock is the wall clock less every step, and arrivals written after it are put
   * back on that timeline: clock-steps.ts), and every order is derived again on it, so no card
   * turns stale or fresh by the step alone. Said in one log line per step.
   */
  private followClockStep(): void {
    const wall = this.setup.clock();
    const offset = wall - this.setup.bootClock();
    const prev = this.wallOffset;
    this.wallOffset = offset;
    if (prev === null || Math.abs(offset - prev) <= CLOCK_STEP_MS) return;
    this.noteStep(wall, offset - prev, 'since the last update', true);
    this.p.deriveAll();
  }

  /**
   * Whether the database file at the path is no longer the one this indexer writes (deleted,
   * or another file moved or copied over it: its device and inode differ), or a rebuild failed;
   * then rebuilds (one at a time), saying so while it runs. A rebuild that fails (the database's
   * folder deleted with it, a full disk) is said once and tried again every second; the file it
   * opened, if any, is this indexer's own and the next try goes on from it, as a warm start does.
   */
  private dbSwapped(): boolean {
    const file = this.setup.dbFile;
    if (!file || this.dbId === null) return false;
    if (this.rebuilding) return true;
    const now = dbIdentity(file);
    if (now === this.dbId && this.swapped === null) return false;
    if (this.swapped?.retryAtMs != null && this.setup.bootClock() < this.swapped.retryAtMs) return true;
    const h = this.healthNow;
    const t0 = h.state === 'degraded' && h.code === 'index_rebuilding' ? h.since_ms : this.setup.clock();
    if (this.swapped === null) {
      const why = now === null ? `the index database ${file} was deleted while serving` : `the index database ${file} was replaced by another file while serving`;
      this.swapped = { why, retryAtMs: null };
      this.p.log(`index: ${why}; rebuilding it from the folder`);
      this.setHealth({ state: 'degraded', code: 'index_rebuilding', reason: why, since_ms: t0, retries: 0 });
    }
    const swapped = this.swapped;
    const opened = this.p.parts.store.db;
    this.rebuilding = this.p
      .rebuild(file, now !== null && now !== this.dbId)
      .then(() => {
        this.swapped = null;
        this.noteDb();
        this.setHealth(HEALTH_OK);
        this.p.log(`index: rebuilt from the folder in ${((this.setup.clock() - t0) / 1000).toFixed(1)} s`);
      })
      .catch((e: unknown) => {
        const failed = e instanceof Error ? e.message : String(e);
        if (this.p.parts.store.db !== opened) this.noteDb();
        const cur = this.healthNow;
        const again = swapped.retryAtMs !== null;
        if (!again) this.p.log(`index: rebuilding ${file} failed (${failed}); serving the last good board, trying again every second`);
        const retries = again && cur.state === 'degraded' ? cur.retries + 1 : 0;
        this.setHealth({ state: 'degraded', code: 'index_rebuilding', reason: `${swapped.why}; rebuilding it failed: ${failed}`, since_ms: t0, retries });
        swapped.retryAtMs = this.setup.bootClock() + 1000;
        this.p.retryIn(1000);
      })
      .finally(() => {
        this.rebuilding = null;
      });
    return true;
  }
}
