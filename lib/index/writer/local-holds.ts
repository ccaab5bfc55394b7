import 'server-only';
/**
 * The reaper's holds in the index: a dead run held for review (`--policy hold`,
 * lib/local/reaper-state.ts) is this machine's fact, not the channel's, but it counts as every
 * other attention flag does: the indexer folds `dead_run_held` into the card when it settles it
 * (derive.ts withChannelFacts `holdOf`), so the lane, its count, keyset pages, `flag:` filters,
 * /api/orders and /metrics all see it. The holds are read from the reaper's state folder (the
 * reaper in `serve`, or a `claimboard reap` with the same `--state`); the orders whose holds
 * changed are settled again. Nothing is written into the channel; another machine's index,
 * which has no such state, never carries the flag.
 */
import type { DB } from '../db';
import type { Card } from '../../ledger/derive';
import { holdApplies } from '../../ledger/liveness';
import { readHolds, type ReaperHold } from '../../local/reaper-state';

/**
 * The hold flag's reason on the card: when it was held (to the minute, UTC: this machine's clock)
 * and the verdict's sentence without its leading "dead: " (the flag already says dead), e.g.
 * "dead run held for review since 2026-12-01 17:00 UTC: pid 4242 is gone on this machine".
 */
export function holdText(hold: ReaperHold): string {
  const since = new Date(hold.held_at_ms).toISOString().slice(0, 16).replace('T', ' ');
  return `dead run held for review since ${since} UTC: ${hold.text.replace(/^dead: /, '')}`;
}

/** How often the state folder is read again, ms (monotonic clock): the indexer's quick look runs about once a second. */
export const HOLDS_REREAD_MS = 1000;

/** The holds the indexer folds in; see the header. */
export class LocalHolds {
  private byOrder = new Map<string, readonly ReaperHold[]>();
  private readAt = -Infinity;
  /** Set at start and after the indexer's memory was made again: every flagged or held order is settled again. */
  private fresh = true;

  /**
   * @param stateDir the reaper's state folder
   * @param channel the channel root (names the state files)
   * @param mono a monotonic clock, ms (default performance.now): only paces the re-reads
   */
  constructor(
    private readonly stateDir: string,
    private readonly channel: string,
    private readonly mono: () => number = () => performance.now(),
  ) {}

  /** Forgets what was folded in (the indexer's memory was rebuilt): the next take settles every held or flagged order again. */
  forget(): void {
    this.fresh = true;
  }

  /**
   * Reads the holds again (at most every HOLDS_REREAD_MS, at once after start or forget) and
   * returns the orders to settle again: those whose holds changed, and after start or forget
   * every order with a hold or with `dead_run_held` stored in `db` (a hold that ended while the
   * indexer was not running). Never throws (an unreadable state file holds nothing).
   */
  take(db: DB): Set<string> {
    const now = this.mono();
    if (!this.fresh && now - this.readAt < HOLDS_REREAD_MS) return new Set();
    this.readAt = now;
    const next = new Map<string, ReaperHold[]>();
    for (const h of readHolds(this.stateDir, this.channel)) {
      const l = next.get(h.order_id);
      if (l) l.push(h);
      else next.set(h.order_id, [h]);
    }
    const out = new Set<string>();
    for (const id of new Set([...this.byOrder.keys(), ...next.keys()])) {
      if (this.fresh || JSON.stringify(this.byOrder.get(id) ?? []) !== JSON.stringify(next.get(id) ?? [])) out.add(id);
    }
    if (this.fresh) {
      const rows = db.prepare(`SELECT order_id FROM cards WHERE flags LIKE '% dead_run_held %'`).all() as { order_id: string }[];
      for (const r of rows) out.add(r.order_id);
    }
    this.fresh = false;
    this.byOrder = next;
    return out;
  }

  /** The hold flag's reason for `card` when a hold stands against it (holdApplies), else undefined. */
  textFor(card: Card): string | undefined {
    const h = this.byOrder.get(card.order_id)?.find((x) => holdApplies(x, card));
    return h ? holdText(h) : undefined;
  }
}
