import 'server-only';
/**
 * The pace of the periodic looks (the quick look and the sweep, looks.ts) of every indexer in one
 * process together: a hub's ten channels share one budget, so ten channels of 10,000 orders look
 * as often, in all, as one of 100,000 does, and their sweep slices and quick looks take turns,
 * each waiting while a write is about to be stored (writes first).
 */

/** What an indexer's looks last took, ms (read when a look is scheduled: a rebuild's new parts are read). */
export interface LookTimes {
  /** The last quick look's own duration. */
  readonly quickMs: number;
  /** The last (or running) sweep's busy time. */
  readonly sweepBusyMs: number;
  /** Whether a write is waiting for its update (a folder event's paths, pumped after a short debounce). */
  readonly writePending?: boolean;
}

/** The multiple of the looks' own time a period is: 20x keeps each kind of look at about 5% of a core. */
const PERIOD_MULTIPLE = 20;

/** How long a look's turn waits, at most, for the writes pending in any member (LookBudget.lookMayRun). */
export const WRITES_FIRST_MAX_MS = 100;

export class LookBudget {
  private readonly members = new Set<LookTimes>();
  /** Sweep slices and quick looks waiting for their turn, in order. */
  private readonly turns: (() => void)[] = [];
  private ticking: NodeJS.Timeout | null = null;
  /** Holds taken (hold()): while any is, no turn runs. */
  private holds = 0;
  /** When the turn due now first waited for a pending write (performance.now), or null. */
  private waitingSince: number | null = null;

  /** `now`: the event loop's clock, ms (performance.now; tests give their own). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Counts `m`'s looks in the budget until the returned function is called. */
  join(m: LookTimes): () => void {
    this.members.add(m);
    return () => {
      this.members.delete(m);
    };
  }

  /**
   * Rule (the quick look's period): the next quick look of any member waits 20x the sum of every
   * member's last quick look, at least 1 s: together about 5% of a core however many channels
   * share it. Clock: durations measured on the event loop's clock (performance.now); it decides
   * only when to look again, never what a card says.
   */
  quickDelayMs(): number {
    let sum = 0;
    for (const m of this.members) sum += m.quickMs;
    return Math.max(1000, PERIOD_MULTIPLE * sum);
  }

  /**
   * Rule (the sweep's period): the next sweep of any member starts 20x the sum of every member's
   * sweep busy time after its last one ended, at least `floorMs` (rescanMs, default 10 s):
   * together about 5% of a core. Clock: the event loop's, as quickDelayMs.
   */
  sweepDelayMs(floorMs: number): number {
    let sum = 0;
    for (const m of this.members) sum += m.sweepBusyMs;
    return Math.max(floorMs, PERIOD_MULTIPLE * sum);
  }

  /**
   * Runs `fn` (a member's next sweep slice, or its quick look) in its turn: one per turn of the
   * event loop, 1 ms apart, whoever's it is. Timers due together run back to back, so ten channels
   * each arming their next slice would make a folder event wait ten slices; in turns it waits at
   * most one.
   * Returns a function that takes `fn` out of the line (a member that stops).
   */
  turn(fn: () => void): () => void {
    const item = () => fn();
    this.turns.push(item);
    this.tick();
    return () => {
      const i = this.turns.indexOf(item);
      if (i !== -1) this.turns.splice(i, 1);
    };
  }

  /**
   * Holds every turn until the returned function is called (once), or `maxMs` has passed when
   * given: a hub's first indexes run ahead of the looks of the channels already started, which
   * would otherwise sweep every folder they have while the next channels wait to start.
   * Rule: a hold given `maxMs` ends by itself that long after it was taken. Clock: the event
   * loop's timers (monotonic); it decides only when the looks may run again.
   */
  hold(maxMs?: number): () => void {
    this.holds++;
    let released = false;
    const timer = maxMs === undefined ? null : setTimeout(() => release(), maxMs);
    timer?.unref();
    const release = () => {
      if (released) return;
      released = true;
      if (timer) clearTimeout(timer);
      this.holds--;
      this.tick();
    };
    return release;
  }

  /**
   * Rule (writes first): a look's turn waits while a write is pending in any member (a folder
   * event's paths waiting out the pump's debounce), for WRITES_FIRST_MAX_MS at most; then it runs
   * whatever is pending. A look started in that moment would make the write wait for all of it
   * (a quick look of 10,000 orders takes 40-90 ms, and a hub's ten channels take turns at it
   * ten times as often as one channel of their size); a fleet writing without pause still gets
   * its looks. Returns whether the look due now may run. Clock: the event loop's
   * (performance.now, timers); it decides only when a look runs, never what a card says.
   */
  lookMayRun(nowMs: number): boolean {
    let pending = false;
    for (const m of this.members) if (m.writePending) pending = true;
    if (!pending) {
      this.waitingSince = null;
      return true;
    }
    this.waitingSince ??= nowMs;
    if (nowMs - this.waitingSince < WRITES_FIRST_MAX_MS) return false;
    this.waitingSince = null;
    return true;
  }

  /** Whether a turn is armed (a timer waiting to run the next in line): never once the line is empty. */
  get armed(): boolean {
    return this.ticking !== null;
  }

  private tick(delayMs = 1): void {
    if (this.ticking || this.turns.length === 0 || this.holds > 0) return;
    this.ticking = setTimeout(() => {
      this.ticking = null;
      // A hold taken since this turn was armed (the next channel's start, right after the last one's) waits for it too.
      if (this.holds > 0) return;
      if (!this.lookMayRun(this.now())) {
        this.tick(5);
        return;
      }
      try {
        this.turns.shift()?.();
      } finally {
        this.tick();
      }
    }, delayMs);
    this.ticking.unref();
  }
}
