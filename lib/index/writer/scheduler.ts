import 'server-only';
/**
 * The indexer's timers and the work they wait to do, as one explicit state (one indexer, one
 * event loop: nothing here is shared between threads).
 *
 * Timers, each at most once armed:
 * - `pump`: processes the pending work (paths named by events or requests, a quick or a full
 *   look) soon; it alone keeps the process alive (an update under way is finished).
 * - `rescan`: the next quick look.
 * - `sweep`: the next sweep (its later slices take turns with other channels' in the look
 *   budget's line, look-budget.ts).
 * - `poll`: the next slice of the poll of the unfinished orders' folders not watched (past the
 *   watch budget, watches.ts, or refused a watch), every POLL_EVERY_MS; nothing to do while
 *   every one is watched.
 * - `grace`: the end of the earliest vanish grace (looks.ts).
 * - `stale`: the earliest moment a card may change with no file changing (cards' `next_ms`).
 * Delays are ms on the event loop's clock, except the stale timer's target, a card's `next_ms`
 * on this machine's clock (the same clock the arrivals are on).
 */

import { LookBudget } from './look-budget';
import type { Pipeline } from './pipeline';

/** The indexer's timers. */
export type TimerName = 'pump' | 'rescan' | 'sweep' | 'poll' | 'grace' | 'stale';

const TIMERS: readonly TimerName[] = ['pump', 'rescan', 'sweep', 'poll', 'grace', 'stale'];

/** How often a slice of the poll of unwatched folders runs, ms (a slice takes at most POLL_SLICE_MS, looks.ts: about 5 % of a core). */
export const POLL_EVERY_MS = 200;

/** What the next pump is to do. */
export interface PendingWork {
  /** Channel-relative paths events or requests named. */
  readonly paths: Set<string>;
  /** A full look at everything (request(null), or a failed update). */
  readonly all: boolean;
  /** A quick look (the rescan timer, or a new subscription). */
  readonly quick: boolean;
  /** A channel-level directory changed (agents/, retirements/, grants/, tasks/): watch them again. */
  readonly channelDirs: boolean;
  /** tasks/ itself changed (replaced, perhaps): every order folder's watch is made again. */
  readonly tasksDir: boolean;
}

const nothing = (): PendingWork => ({ paths: new Set(), all: false, quick: false, channelDirs: false, tasksDir: false });

export class Scheduler {
  private readonly timers: Record<TimerName, NodeJS.Timeout | null> = { pump: null, rescan: null, sweep: null, poll: null, grace: null, stale: null };
  private work: { -readonly [K in keyof PendingWork]: PendingWork[K] } = nothing();
  private halted = false;
  /** The pace of the periodic looks, shared with the other indexers of this process when given (a hub's channels). */
  private readonly budget: LookBudget;
  /** Leaves the budget (set while the looks run). */
  private leave: (() => void) | null = null;
  /** Takes the next sweep slice out of the budget's line (set while it waits its turn). */
  private leaveTurn: (() => void) | null = null;
  /** Takes the next quick look out of the budget's line (set while it waits its turn). */
  private leaveQuickTurn: (() => void) | null = null;

  /** The pipeline whose work the timers run, and whose looks and cards their delays are computed from. */
  constructor(private readonly p: Pipeline) {
    this.budget = p.opts.lookBudget ?? new LookBudget();
  }

  /** Whether stop() was called: no timer is armed any more. */
  get stopped(): boolean {
    return this.halted;
  }

  /** Whether the timer is armed. */
  armed(name: TimerName): boolean {
    return this.timers[name] !== null;
  }

  /**
   * Arms `name` to run `fn` in `ms`, unless it is armed already or the scheduler stopped.
   * The slot is free again when `fn` runs (so `fn` may arm it anew). Returns whether it armed.
   */
  arm(name: TimerName, ms: number, fn: () => void): boolean {
    if (this.halted || this.timers[name]) return false;
    const t = setTimeout(() => {
      this.timers[name] = null;
      fn();
    }, ms);
    if (name !== 'pump') t.unref?.();
    this.timers[name] = t;
    return true;
  }

  /** Disarms `name`, then arms it anew (unless stopped). */
  rearm(name: TimerName, ms: number, fn: () => void): void {
    this.clear(name);
    this.arm(name, ms, fn);
  }

  /** Disarms `name`. */
  clear(name: TimerName): void {
    const t = this.timers[name];
    if (t) clearTimeout(t);
    this.timers[name] = null;
  }

  /** Disarms every timer for good. */
  stop(): void {
    this.halted = true;
    for (const n of TIMERS) this.clear(n);
    this.leaveTurn?.();
    this.leaveTurn = null;
    this.leaveQuickTurn?.();
    this.leaveQuickTurn = null;
    this.leave?.();
    this.leave = null;
  }

  /** Adds a path to the pending work. */
  addPath(rel: string): void {
    this.work.paths.add(rel);
  }

  /** Whether paths are pending. */
  get hasPaths(): boolean {
    return this.work.paths.size > 0;
  }

  /** Asks the next pump for a full look. */
  wantAll(): void {
    this.work.all = true;
  }

  /** Asks the next pump for a quick look. */
  wantQuick(): void {
    this.work.quick = true;
  }

  /** Notes a change of a channel-level directory (and of tasks/ itself). */
  noteChannelDirs(tasks: boolean): void {
    this.work.channelDirs = true;
    if (tasks) this.work.tasksDir = true;
  }

  /** The pending work, now taken (the next call starts empty). */
  take(): PendingWork {
    const w = this.work;
    this.work = nothing();
    return w;
  }

  // --- the policies: when each timer fires, and what it does ---

  /** The pump, `ms` from now unless one is armed already; a failed update asks for a full look a second later. */
  schedule(ms: number): void {
    this.arm('pump', ms, () => this.runPump());
  }

  /** The pump, now (an armed pump timer is disarmed: its work is done by this one). */
  private pumpNow(): void {
    this.clear('pump');
    this.runPump();
  }

  private runPump(): void {
    try {
      this.p.guard.run(() => this.p.pump());
    } catch (e) {
      this.p.log(`index: update failed, will rescan: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      this.wantAll();
      this.schedule(1000);
    }
  }

  /** Asks for an update of `rel` (null: a full look at everything) soon: at once for a full look, else in 30 ms (events come in bursts). */
  request(rel: string | null): void {
    if (rel === null) this.wantAll();
    else this.addPath(rel);
    this.schedule(rel === null ? 0 : 30);
  }

  /** Starts the periodic looks: the quick look, the sweep (its first after `firstSweepMs`, default its period), and the poll of unwatched folders. */
  startLooks(firstSweepMs?: number): void {
    if (this.halted) return;
    const looks = () => this.p.parts.looks;
    const work = () => this.work;
    this.leave ??= this.budget.join({
      get quickMs() {
        return looks().quickMs;
      },
      get sweepBusyMs() {
        return looks().sweepBusyMs;
      },
      get writePending() {
        return work().paths.size > 0;
      },
    });
    this.scheduleRescan();
    this.scheduleSweep(firstSweepMs);
    this.schedulePoll();
  }

  /** A slice of the poll of unwatched unfinished orders' folders every POLL_EVERY_MS (a slice with none to look at costs a comparison). */
  private schedulePoll(): void {
    this.arm('poll', POLL_EVERY_MS, () => {
      for (const d of this.p.pollSlice()) this.addPath(`tasks/${d}`);
      if (this.hasPaths) this.schedule(0);
      this.schedulePoll();
    });
  }

  /**
   * The quick look every `rescanMs` (default: the look budget's period, LookBudget.quickDelayMs),
   * run in its turn with the other channels' looks (LookBudget.turn): two channels' quick looks
   * never run back to back, and a write's pump waits for at most one of them.
   */
  private scheduleRescan(): void {
    this.arm('rescan', this.p.opts.rescanMs ?? this.budget.quickDelayMs(), () => {
      this.quickTurn();
      this.scheduleRescan();
    });
  }

  /** A slice of the quick look (a new one, or the next of the one under way: looks.ts quickSlice), in its turn in the look budget's line. */
  quickTurn(): void {
    if (this.halted) return;
    this.wantQuick();
    this.leaveQuickTurn ??= this.budget.turn(() => {
      this.leaveQuickTurn = null;
      if (!this.halted) this.pumpNow();
    });
  }

  /**
   * The sweep, a slice at a time with other work between slices; the next sweep starts
   * `rescanMs` after one ends (default 10 s), or later on a large folder or many channels (the
   * look budget's period, LookBudget.sweepDelayMs).
   */
  private scheduleSweep(delayMs?: number): void {
    const every = delayMs ?? this.budget.sweepDelayMs(this.p.opts.rescanMs ?? 10_000);
    this.arm('sweep', every, () => this.sweepSlice());
  }

  /** A slice of the sweep; the next one in its turn (LookBudget.turn), or the next sweep. */
  private sweepSlice(): void {
    const slice = this.p.parts.looks.sweepSlice();
    for (const d of slice.dirty) this.addPath(`tasks/${d}`);
    if (this.hasPaths) this.schedule(0);
    if (!slice.more) {
      this.scheduleSweep();
      return;
    }
    this.leaveTurn = this.budget.turn(() => {
      this.leaveTurn = null;
      if (!this.halted) this.sweepSlice();
    });
  }

  /** Re-arms the grace timer for the earliest end of a vanish grace (5 ms after it), or disarms it. */
  graceChanged(): void {
    this.clear('grace');
    const next = this.p.parts.looks.grace.nextEnd();
    if (next === null) return;
    this.arm('grace', Math.max(5, next - performance.now() + 5), () => {
      for (const rel of this.p.parts.looks.grace.ended()) this.addPath(rel);
      this.schedule(0);
    });
  }

  /** Re-arms the stale timer for the earliest `next_ms` (5 ms after it; at least 20 ms, at most a minute away), or disarms it. */
  staleChanged(): void {
    this.clear('stale');
    if (this.halted) return;
    const t = this.p.parts.store.nextDueMs();
    if (t === null) return;
    this.arm('stale', Math.max(20, Math.min(t - this.p.clock() + 5, 60_000)), () => {
      try {
        this.p.guard.run(() => this.p.passDue());
      } catch (e) {
        this.p.log(`index: re-derive failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      this.staleChanged();
    });
  }
}
