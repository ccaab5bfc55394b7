/**
 * The queries a filter bar wrote to the URL whose echo has not come back yet (components/board/
 * Filters.tsx). The router delivers a written URL some time later; meanwhile the operator may
 * have typed or picked something else, and the late echo must not overwrite it (two dropdowns
 * changed in quick succession have the first one's URL arrive after the second was written).
 * A URL query that is not an echo came from elsewhere (back, a saved view) and is followed.
 *
 * Times are this tab's clock, ms (Date.now()): only how long a write has waited is measured.
 */

/** How long a written query waits for its echo before it is forgotten, ms (a navigation takes well under a second; a held-up one on a slow phone a few). */
export const ECHO_WAIT_MS = 10_000;

/** At most this many writes are remembered (a burst of picks faster than the router). */
const MAX_PENDING = 16;

export interface PendingWrite {
  readonly q: string;
  /** When it was written, ms (this tab's clock). */
  readonly at: number;
}

/**
 * The pending list after writing `q` at `now`, the URL's query being `urlQ`. A write of the
 * query the URL already has leaves nothing pending: its echo never comes (the URL's query does
 * not change), and the router may merge it with the writes before it, whose echoes then never
 * come either (clear, then pick the same agent again: the URL never moves; were they kept, a
 * saved view equal to one of them would be taken for its echo and not followed). Should one of
 * them land after all, it is followed like any URL from elsewhere, and the newest write lands
 * last. Writes older than ECHO_WAIT_MS are dropped (a navigation the router dropped).
 */
export function afterWrite(pending: readonly PendingWrite[], q: string, urlQ: string, now: number): PendingWrite[] {
  if (q === urlQ) return [];
  const live = pending.filter((w) => now - w.at < ECHO_WAIT_MS);
  return [...live.slice(-(MAX_PENDING - 1)), { q, at: now }];
}

/**
 * What a new URL query `urlQ` at `now` is: `ours` (the echo of a pending write: it and every
 * write before it have landed; `pending` is what still waits) or `elsewhere` (follow it; nothing
 * waits any more).
 */
export function onUrlQuery(pending: readonly PendingWrite[], urlQ: string, now: number): { readonly from: 'ours' | 'elsewhere'; readonly pending: PendingWrite[] } {
  const live = pending.filter((w) => now - w.at < ECHO_WAIT_MS);
  const i = live.findIndex((w) => w.q === urlQ);
  return i === -1 ? { from: 'elsewhere', pending: [] } : { from: 'ours', pending: live.slice(i + 1) };
}
