import 'server-only';
/** The Indexer's options (indexer.ts): what it indexes, its clock, its periods, and what it tells. */
import type { LocalDeath } from './writer/local-deaths';
import type { DB } from './db';
import type { Ed25519Verify } from '../ledger/verify';
import type { FleetAgent } from './ferryman-state';
import type { LookBudget } from './writer/look-budget';

/** How long a file that vanished is still believed by default, ms (IndexerOptions.vanishGraceMs). */
export const DEFAULT_VANISH_GRACE_MS = 1000;

export interface IndexerOptions {
  /** The channel root. */
  readonly root: string;
  readonly db: DB;
  /** stale_after, ms. */
  readonly staleAfterMs: number;
  /** Configured operators (CLAIMBOARD_OPERATORS); empty: roster roles. */
  readonly operators?: readonly string[];
  /** This machine's ferry fleet roster (`--ferryman-state`, ferryman-state.ts). */
  readonly fleetAgents?: readonly FleetAgent[];
  /**
   * This machine's wall clock, ms (default Date.now). The index's own clock is this less the
   * steps the guard saw (steady-clock.ts); cards, ages and stale decisions are on that one.
   */
  readonly clock?: () => number;
  /**
   * The boot clock the wall clock is held against to see its steps: default steady-clock.ts
   * bootClockMs, or `clock` itself when one is given (a test's clock owns time, so no step is
   * seen however long the test takes, unless it gives the boot clock to hold it against).
   */
  readonly bootClock?: () => number;
  /**
   * Tests only: ms the faked wall clock is ahead of the real one when a file is read, added to
   * its ctime as the kernel would have written it under that clock (the main thread's passes).
   */
  readonly ctimeSkew?: () => number;
  /**
   * Quick look period, ms (default: 20x the last quick look's own duration, at least 1 000: about
   * 1 s up to ~10,000 orders, 8 s at 100,000, about 5% of a core; in a hub, 20x the sum of its
   * channels' last quick looks, look-budget.ts); the sweep of every entry starts at most this
   * often too (default at least 10 000).
   */
  readonly rescanMs?: number;
  /** The pace of the periodic looks, shared by every indexer of one process (a hub's channels, look-budget.ts); default one of its own. */
  readonly lookBudget?: LookBudget;
  /** Subscribe to folder events (default true). */
  readonly watch?: boolean;
  /** Order folders watched at most (default DEFAULT_WATCH_BUDGET, watches.ts): the most recently changed; the looks find the others' changes. */
  readonly maxWatches?: number;
  /** Progress and notices, one line each. */
  readonly log?: (line: string) => void;
  /** The Ed25519 primitive (default: verifier.ts's choice, sodium-native when it loads, else node:crypto; worker threads make the same choice themselves). */
  readonly verify?: Ed25519Verify;
  /** Worker threads for a cold index, besides this thread (default: one per other core when more than 2,000 folders are dirty; 0 = none: this thread alone). */
  readonly workers?: number;
  /**
   * How long a file that vanished is still believed, ms (default DEFAULT_VANISH_GRACE_MS):
   * Syncthing replaces a received file by unlinking it and then renaming its temp file into
   * place, and a look or a pass in between must not see the heartbeat (or roster entry) gone.
   */
  readonly vanishGraceMs?: number;
  /**
   * Told after each pass has stored and settled its cards, and after the channel level (roster,
   * ledgers, channel problems) was read again. Called synchronously inside the pass: it must
   * return at once (the serve process's alerts, lib/alerts/engine.ts, only schedule their look).
   */
  readonly onSettled?: () => void;
  /**
   * Told once a rebuild (the database deleted or replaced while serving) has indexed the folder
   * into its new connection, while the old one is still open (the serve process's alerts copy
   * their tables across and follow it, lib/alerts/engine.ts useDb). Synchronous.
   */
  readonly onRebuilt?: (db: DB) => void;
  /**
   * Told when a cold index on worker threads shows the board unverified (progress phase
   * `verifying`); awaited (tests hold the phase open). The checks already begun wait for it.
   */
  readonly onBoardVisible?: () => void | Promise<void>;
  /** Told each time a cold index holds a segment's checks until the board shows (tests). */
  readonly onCheckHeld?: () => void;
  /** The reaper's state folder on this machine (serve's): its holds raise `dead_run_held` (local-holds.ts). None: no holds. */
  readonly reaperState?: string;
  /** This machine's verdict on local agents' runs: a run whose process is gone leaves Running at once (local-deaths.ts). */
  readonly localDeath?: LocalDeath;
}
