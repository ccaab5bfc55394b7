/**
 * The default `stale_after`, the one every reader falls back to. Its own module so
 * that the browser (components/board/Board.tsx) can import it without the channel reader;
 * lib/ledger/channel.ts re-exports it.
 */

/** The default `stale_after`: ferryman's 30 s heartbeat x 10, in ms. */
export const DEFAULT_STALE_AFTER_MS = 300_000;

/** The embedded demo's `stale_after` (serve and state on the demo channel), ms: its Stale lane fills within a minute. */
export const DEMO_STALE_AFTER_MS = 30_000;
