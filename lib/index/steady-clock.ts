import 'server-only';
/**
 * The index's clock: this machine's wall clock less the steps the indexer saw (the rule and the
 * arrival side: lib/ledger/clock-steps.ts). The indexer sees steps against the boot clock
 * (CLOCK_BOOTTIME through /proc/uptime: it counts a suspend, so a machine that slept is not taken
 * for a stepped one; performance.now() where /proc/uptime cannot be read), keeps them in the
 * `clock` meta row, and every reader of the index takes "now" from here, so ages on the board,
 * the order page, the metrics and the actions' stale rules are on the timeline its arrivals are.
 */
import fs from 'node:fs';
import { steppedMs, type ClockStep } from '../ledger/clock-steps';
import type { DB } from './db';
import { readMeta } from './store/meta';

let uptimeReadable: boolean | null = null;

/**
 * The test clock: CLAIMBOARD_TEST_CLOCK_FILE names a file holding a number of ms by which time
 * has passed on this machine beyond what its wall clock shows. The indexer takes that as its
 * wall clock stepped back (the step rule of lib/ledger/clock-steps.ts), so every file that
 * arrived before the advance ages by it at once and files written after arrive "now": the way
 * the end-to-end tests let a claim go stale without waiting. Unset in production (0).
 */
function testClockAdvanceMs(): number {
  const file = process.env.CLAIMBOARD_TEST_CLOCK_FILE;
  if (!file) return 0;
  try {
    const ms = Number(fs.readFileSync(file, 'latin1').trim());
    return Number.isFinite(ms) && ms > 0 ? ms : 0;
  } catch {
    return 0;
  }
}

/** The boot clock, ms since boot (CLOCK_BOOTTIME, 10 ms steps), or performance.now() where /proc/uptime is unreadable (decided once per process); plus the test clock's advance. */
export function bootClockMs(): number {
  return bootClockRawMs() + testClockAdvanceMs();
}

function bootClockRawMs(): number {
  if (uptimeReadable !== false) {
    try {
      const s = Number(fs.readFileSync('/proc/uptime', 'latin1').split(' ')[0]);
      if (Number.isFinite(s)) {
        uptimeReadable = true;
        return s * 1000;
      }
    } catch {
      // Not Linux, or /proc not mounted.
    }
    if (uptimeReadable === null) uptimeReadable = false;
  }
  return performance.now();
}

/** This boot's id (/proc/sys/kernel/random/boot_id), or null where unknown: steps made while no indexer ran are seen only within one boot. */
export function bootId(): string | null {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim() || null;
  } catch {
    return null;
  }
}

/** The steps the index's indexer saw (oldest first; empty when none or no row). */
export function indexClockSteps(db: DB): readonly ClockStep[] {
  return readMeta(db, 'clock')?.steps ?? [];
}

/** "Now" on the index's clock, ms: `wallMs` (default Date.now(), this machine's wall clock) less the steps the indexer saw. */
export function indexNowMs(db: DB, wallMs: number = Date.now()): number {
  return wallMs - steppedMs(indexClockSteps(db));
}
