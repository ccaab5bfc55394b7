import 'server-only';
/**
 * A local agent's run whose process is gone here is certain death (ferry's ADR 0011 part 3):
 * its card leaves Running for Stale at once (`run_lane: 'stale'`), not when its heartbeat ages
 * past stale_after. The verdict is this machine's (/proc, LocalOverlay); the order's state stays
 * what ferry reads (claimed), and nothing is written into the channel. Folded in when the card
 * settles, as the reaper's holds are (local-holds.ts), so the lanes, counts, pages, filters and
 * /metrics all see it; the orders whose run died since the last look are settled again.
 */
import type { DB } from '../db';
import { laneOf, type Card } from '../../ledger/derive';

/** What the indexer asks about a card's run (LocalOverlay: this machine's /proc). */
export interface LocalDeath {
  /** The local agents (canonical names): only their runs are checked. */
  readonly agents: readonly string[];
  /** Whether the process of the card's heartbeat is gone here (dead, or the pid now another process). */
  isDead(db: DB, card: Card, nowMs: number): boolean;
}

/** How often the running cards of local agents are looked at again, ms (monotonic clock). */
export const DEATHS_RELOOK_MS = 1000;

/** A running card of a local agent, as it would show once its run is known dead: in the Stale lane. */
export function withLocalDeath(card: Card, dead: (card: Card) => boolean): Card {
  if (card.state !== 'claimed' || card.run_lane !== undefined || !card.heartbeat || !dead(card)) return card;
  return { ...card, run_lane: 'stale', lane: laneOf(card.state, card.flags, 'stale') };
}

/** Finds the running cards of local agents whose run died since the last look. */
export class LocalDeaths {
  private lookedAt = -Infinity;
  private readonly agents: ReadonlySet<string>;

  constructor(
    private readonly death: LocalDeath,
    private readonly clock: () => number,
    private readonly mono: () => number = () => performance.now(),
  ) {
    this.agents = new Set(death.agents);
  }

  /** Whether `card`'s run is known gone here (only a local agent's is looked at). */
  isDead(db: DB, card: Card, nowMs: number): boolean {
    return card.holder !== null && this.agents.has(card.holder) && this.death.isDead(db, card, nowMs);
  }

  /** The orders to settle again (at most every DEATHS_RELOOK_MS): claimed by a local agent, still Running, its process gone. */
  take(db: DB): string[] {
    const t = this.mono();
    if (t - this.lookedAt < DEATHS_RELOOK_MS || this.death.agents.length === 0) return [];
    this.lookedAt = t;
    const marks = this.death.agents.map(() => '?').join(',');
    const rows = db.prepare(`SELECT card FROM cards WHERE state = 'claimed' AND lane = 'running' AND holder IN (${marks})`).pluck().all(...this.death.agents) as string[];
    const now = this.clock();
    const out: string[] = [];
    for (const r of rows) {
      const c = JSON.parse(r) as Card;
      if (c.run_lane === undefined && c.heartbeat && this.isDead(db, c, now)) out.push(c.order_id);
    }
    return out;
  }
}
