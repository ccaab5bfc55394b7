import 'server-only';
/**
 * What the indexer (the `claimboard serve` process) records for GET /metrics, which the web
 * process serves from the index read-only (docs/prometheus.md), inside the indexer's settle
 * transaction:
 *
 * - `pass_stats` (a `meta` row): when the last pass settled, how many signatures the indexer
 *   verified since it started, and the index lag of the last live pass that stored a new or
 *   re-arrived file: the largest (when its card was stored − when the file arrived), both on this
 *   machine's clock.
 * - `attention_since` (a table, migration 13): per order in the Needs attention lane, when this
 *   index first stored it there (this machine's clock), so the age of the oldest attention item
 *   can be told. Kept from the orders each settle changed: O(changes) per write, not O(lane).
 *
 * Only this machine's clock is read: arrivals are file ctimes here, the other instants the
 * indexer's own clock.
 */
import type { DB } from '../db';
import type { IndexStore } from '../store/store';
import { readMeta } from '../store/meta';

/** The `pass_stats` meta row (all instants ms on this machine's clock). */
export interface PassStatsRow {
  /** When the indexer last settled a pass. */
  readonly last_pass_ms: number;
  /** Signatures verified by the indexer process since it started (resets when it restarts). */
  readonly verified_total: number;
  /** Live passes settled since the indexer started (the first index not counted). */
  readonly passes_total: number;
  /** The last live pass that stored a file new or re-arrived since the folder's previous pass, or null before one. */
  readonly lag: { readonly max_ms: number; readonly files: number; readonly at_ms: number } | null;
}

/** An entry as the index stores it: its path, its arrival here (ctime, ms, this machine's clock) and, in a pass's results, its status ('dir': the order folder itself). */
interface Arrival {
  readonly path: string;
  readonly arrival_ms: number;
  readonly status?: string;
}

/**
 * Collects one pass's index lag and writes the meta rows at the end of the pass. One per
 * indexer; not thread-safe (the indexer is single-threaded where it stores).
 */
export class MetricsRecorder {
  private maxLagMs: number | null = null;
  private files = 0;
  private passes = 0;
  private lastLag: PassStatsRow['lag'] = null;

  /**
   * Notes a folder stored by a live pass at `storedMs`: each file (not the folder itself, status
   * 'dir', whose ctime moves with every entry made in it) whose path is new, or whose arrival
   * differs from the one stored before (`before`, the folder's previous rows), counts with lag
   * `storedMs − arrival_ms` (never below 0: a ctime a little ahead of the clock read after it is
   * no lag).
   */
  noteFolder(before: readonly Arrival[], files: readonly Arrival[], storedMs: number): void {
    const known = new Map(before.map((f) => [f.path, f.arrival_ms]));
    for (const f of files) {
      if (f.status === 'dir' || known.get(f.path) === f.arrival_ms) continue;
      const lag = Math.max(0, storedMs - f.arrival_ms);
      this.maxLagMs = this.maxLagMs === null ? lag : Math.max(this.maxLagMs, lag);
      this.files++;
    }
  }

  /**
   * Writes `pass_stats` and keeps `attention_since` (call inside the settle transaction, after the
   * cards are final). `live` false for the first index (a cold or warm start), whose files arrived
   * while nothing indexed them: its lag is not counted. `nowMs`: this machine's clock. `changed`:
   * the orders whose card changed or went away in this settle, or null when every card was settled.
   */
  record(store: IndexStore, nowMs: number, verifiedTotal: number, live: boolean, changed: Iterable<string> | null): void {
    if (live) {
      this.passes++;
      if (this.maxLagMs !== null) this.lastLag = { max_ms: this.maxLagMs, files: this.files, at_ms: nowMs };
    }
    this.maxLagMs = null;
    this.files = 0;
    const row: PassStatsRow = { last_pass_ms: nowMs, verified_total: verifiedTotal, passes_total: this.passes, lag: this.lastLag };
    store.writeMeta('pass_stats', row);
    store.noteAttention(changed, nowMs);
  }
}

/**
 * When the oldest order now in Needs attention was first stored there by this index (ms, this
 * machine's clock), or null when the lane is empty (the `attention_since` table).
 */
export function oldestAttentionSince(db: DB): number | null {
  return (db.prepare('SELECT MIN(since_ms) AS t FROM attention_since').get() as { t: number | null }).t;
}

/** The `pass_stats` meta row, or null before the indexer's first pass settled (or when unreadable). */
export function passStats(db: DB): PassStatsRow | null {
  return readMeta(db, 'pass_stats');
}
