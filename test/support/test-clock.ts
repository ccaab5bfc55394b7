/**
 * Time passing without waiting for it, in-process (the end-to-end tests' servers do the same
 * through CLAIMBOARD_TEST_CLOCK_FILE, lib/index/steady-clock.ts): give an Indexer `bootClock`,
 * and `pass(ms)` runs that boot clock ahead by `ms`. The indexer takes it as this machine's wall
 * clock stepped back (lib/ledger/clock-steps.ts), so the files that arrived before age by `ms` at
 * once and files written after arrive now; it sees the step at its next update (a look, or a
 * folder it is asked to read). Thresholds can then be hours, far beyond any test's own run.
 */
import { bootClockMs } from '../../lib/index/steady-clock';

export const HOUR_MS = 3_600_000;

export interface TestClock {
  /** The boot clock to give the Indexer (its option `bootClock`). */
  readonly bootClock: () => number;
  /** Lets `ms` pass on the index's clock. */
  pass(ms: number): void;
}

export function testClock(): TestClock {
  let advance = 0;
  return {
    bootClock: () => bootClockMs() + advance,
    pass(ms) {
      advance += ms;
    },
  };
}
