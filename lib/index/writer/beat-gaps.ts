import 'server-only';
/**
 * Heartbeat gaps as the indexer observes them (the stale-threshold report, docs/tuning.md):
 * when a run's heartbeat arrives again, the time since its previous arrival. Both arrivals are
 * file ctimes on this machine, the clock staleness is measured on.
 *
 * A gap counts only when the previous arrival was itself seen by this process while it ran
 * (arrival ≥ the moment this indexer started): a gap spanning a time claimboard was not looking
 * may hide heartbeats overwritten in between, and would show as a false outlier. Per agent the
 * gaps are kept as counts per log bucket (`beat_gaps`, lib/ledger/tuning.ts `bucketOf`); per
 * run, how many and the longest (`runs.gaps`, `runs.max_gap_ms`).
 *
 * A silence inside a hold (the fleet history): nothing of an agent's runs on an order arrived
 * here for longer than stale_after before one did (across runs: a restart after a silence counts).
 * Kept as its span (`hold_gaps`), under the same rule of what this process saw.
 */
import type { BeatSeen } from './order-pass';
import type { IndexStore } from '../store/store';
import type { MetaKey } from '../store/meta';
import { bucketOf } from '../../ledger/tuning';

/** The meta key holding when this index began observing gaps (ms, this machine's clock). */
export const GAPS_SINCE_KEY = 'gaps_since_ms' satisfies MetaKey;

export class BeatGapRecorder {
  /**
   * `startedMs`: when this indexer started (ms, this machine's clock). Records it as the start
   * of gap observation when the index has none yet (the first start with this schema).
   */
  constructor(
    private readonly store: IndexStore,
    private readonly startedMs: number,
    private readonly staleAfterMs: number,
  ) {
    store.writeMetaIfAbsent(GAPS_SINCE_KEY, startedMs);
  }

  /**
   * Call before the heartbeat's arrival is stored in `runs` (inside the same transaction):
   * records the gap from the stored arrival when it moved forward and was seen by this process.
   * Returns the gap recorded (ms), or null.
   */
  note(b: BeatSeen): number | null {
    this.noteSilence(b);
    const prev = this.store.lastBeatArrival(b);
    if (prev === undefined || prev < this.startedMs) return null;
    const gap = b.arrival_ms - prev;
    if (!(gap > 0)) return null;
    this.store.addBeatGap(b, gap, bucketOf(gap));
    return gap;
  }

  /** Records a silence inside the agent's hold when this heartbeat ends one: more than stale_after since any of its runs' heartbeats on the order arrived. */
  private noteSilence(b: BeatSeen): void {
    const prev = this.store.lastAgentBeat(b.order_id, b.agent);
    if (prev === undefined || prev < this.startedMs) return;
    if (b.arrival_ms - prev > this.staleAfterMs) this.store.addHoldGap(b.order_id, b.agent, prev, b.arrival_ms);
  }
}
