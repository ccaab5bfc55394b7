/**
 * This machine's wall clock, made steady across its steps ("nothing turns stale or
 * fresh by the step alone"). Arrivals are file ctimes, which the kernel writes on the wall clock,
 * and staleness is `now − arrival > stale_after`: a step of the wall clock (NTP, an
 * operator, a resumed VM) moves `now` and every later ctime by the step, but not the ctimes
 * written before it. The indexer notices each step (the wall clock against the boot clock) and
 * keeps the list; here, both terms are put on one steady timeline, the wall clock as it read
 * before the first step the index saw:
 *
 * - steady now = wall now − the sum of the steps;
 * - steady arrival = ctime − the sum of the steps made before the file was written.
 *
 * Which steps came before a file is told by its ctime: after a step forward by Δ, every ctime is
 * past the old clock's last reading (`before_ms`); after a step back by Δ, every ctime is at least
 * `before_ms − Δ`. A ctime in that last hour-like window after a step back could be either: it is
 * taken as written after the step (the index sees files within a second, and the index keeps the
 * arrival of a file it already knew: `knownArrival`). Pure: numbers in, numbers out.
 */

/** One step of this machine's wall clock, as the index saw it. */
export interface ClockStep {
  /** The wall clock's reading just before the step (the old clock at the moment the step was seen), ms since the epoch. */
  readonly before_ms: number;
  /** How far it moved, ms: positive forward, negative back. */
  readonly delta_ms: number;
}

/** At most this many steps are kept: older ones are folded into the base (their files are long settled). */
export const MAX_CLOCK_STEPS = 64;

/** The sum of the steps, ms: steady now = wall now − steppedMs(steps). */
export function steppedMs(steps: readonly ClockStep[]): number {
  let s = 0;
  for (const st of steps) s += st.delta_ms;
  return s;
}

/** Whether a ctime (ms, the wall clock when written) was written after `step`, read on the clock of that step's era. */
function afterStep(ctimeMs: number, step: ClockStep): boolean {
  return step.delta_ms > 0 ? ctimeMs > step.before_ms : ctimeMs >= step.before_ms + step.delta_ms;
}

/**
 * A file's arrival on the steady timeline (ms): its ctime less the steps made before it was
 * written (see the module header). `steps` oldest first. With no step it is the ctime itself.
 */
export function steadyArrival(ctimeMs: number, steps: readonly ClockStep[]): number {
  if (steps.length === 0) return ctimeMs;
  // The newest step the file came after decides its era; every step up to it came before it.
  let sum = steppedMs(steps);
  for (let i = steps.length - 1; i >= 0; i--) {
    const st = steps[i];
    if (st === undefined) continue;
    if (afterStep(ctimeMs, st)) return ctimeMs - sum;
    sum -= st.delta_ms;
  }
  return ctimeMs;
}

/**
 * The list with one more step (seen at wall reading `wallNowMs`, after which the wall clock
 * minus the boot clock moved by `deltaMs`). Keeps at most MAX_CLOCK_STEPS: the oldest steps are
 * merged into one (their before_ms the oldest's), so the sum is kept exactly.
 */
export function withStep(steps: readonly ClockStep[], wallNowMs: number, deltaMs: number): ClockStep[] {
  const out = [...steps, { before_ms: wallNowMs - deltaMs, delta_ms: deltaMs }];
  while (out.length > MAX_CLOCK_STEPS) {
    const [a, b, ...rest] = out;
    if (!a || !b) break;
    out.splice(0, out.length, { before_ms: a.before_ms, delta_ms: a.delta_ms + b.delta_ms }, ...rest);
  }
  return out;
}

/** A file's arrival (ms, the index's clock) given its path, stat identity and ctime. */
export type ArrivalOf = (rel: string, stat: string, ctimeMs: number) => number;

/**
 * The arrival function for `steps`: a file the index already knew with the same stat identity
 * keeps its stored arrival (`known`); any other its ctime on the steady timeline (steadyArrival). Undefined with
 * no step (an arrival is then its ctime, and nothing needs looking up).
 */
export function arrivalsFor(steps: readonly ClockStep[], known?: (rel: string) => { readonly stat: string; readonly arrival_ms: number } | undefined): ArrivalOf | undefined {
  if (steps.length === 0) return undefined;
  return (rel, stat, ctimeMs) => {
    const k = known?.(rel);
    return k && k.stat === stat ? k.arrival_ms : steadyArrival(ctimeMs, steps);
  };
}
