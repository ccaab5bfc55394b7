import 'server-only';
/**
 * Heartbeat gaps as the indexer observes them (the stale-threshold report, docs/tuning.md):
 * when a run's heartbeat arrives again, the time since its previous arrival. Both arrivals are
 * file ctimes on this machine, the clock staleness is measured on (LEDGER.md §6).
 *
 * A gap counts only when the previous arrival was itself seen by this process while it ran
 * (arrival ≥ the moment this indexer started): a gap spanning a time claimboard was not looking
 * may hide heartbeats overwritten in between, and would show as a false outlier. Per agent the
 * gaps are kept as counts per log bucket (`beat_gaps`, lib/ledger/tuning.ts `bucketOf`); per
 * run, how many and the longest (`runs.gaps`, `runs.max_gap_ms`).
 */
import type { Statement } from 'better-sqlite3';
import type { DB } from './db';
import type { BeatSeen } from './order-pass';
import { bucketOf } from '../ledger/tuning';

/** The meta key holding when this index began observing gaps (ms, this machine's clock). */
export const GAPS_SINCE_KEY = 'gaps_since_ms';

export class BeatGapRecorder {
  private readonly previous: Statement;
  private readonly onRun: Statement;
  private readonly onAgent: Statement;

  /**
   * `startedMs`: when this indexer started (ms, this machine's clock). Records it as the start
   * of gap observation when the index has none yet (the first start with this schema).
   */
  constructor(db: DB, private readonly startedMs: number) {
    db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(GAPS_SINCE_KEY, String(startedMs));
    this.previous = db.prepare('SELECT last_arrival_ms AS t FROM runs WHERE order_id = ? AND agent = ? AND run = ?');
    this.onRun = db.prepare('UPDATE runs SET gaps = gaps + 1, max_gap_ms = max(COALESCE(max_gap_ms, 0), ?) WHERE order_id = ? AND agent = ? AND run = ?');
    this.onAgent = db.prepare('INSERT INTO beat_gaps (agent, bucket, n) VALUES (?, ?, 1) ON CONFLICT (agent, bucket) DO UPDATE SET n = n + 1');
  }

  /**
   * Call before the heartbeat's arrival is stored in `runs` (inside the same transaction):
   * records the gap from the stored arrival when it moved forward and was seen by this process.
   * Returns the gap recorded (ms), or null.
   */
  note(b: BeatSeen): number | null {
    const prev = (this.previous.get(b.order_id, b.agent, b.run) as { t: number } | undefined)?.t;
    if (prev === undefined || prev < this.startedMs) return null;
    const gap = b.arrival_ms - prev;
    if (!(gap > 0)) return null;
    this.onRun.run(gap, b.order_id, b.agent, b.run);
    this.onAgent.run(b.agent, bucketOf(gap));
    return gap;
  }
}
