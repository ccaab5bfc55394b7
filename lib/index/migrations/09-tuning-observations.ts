/**
 * The stale-threshold report (lib/index/read/tuning-queries.ts, docs/tuning.md). Heartbeat gaps
 * (successive arrivals of one run's heartbeat, this machine's clock) are observed live by the
 * indexer (beat-gaps.ts): per agent a count per log bucket (lib/ledger/tuning.ts), per run
 * how many and the longest; meta 'gaps_since_ms' says since when. They are not in the folder:
 * a rebuilt index starts over. holds.run_ms: claim to result on the holder's clock.
 * cards.age_ref_ms: the arrival a card's age counts from (board-where.ts REF) as a number, so
 * time in lane reads one column. Every folder is passed once more (dirs emptied; signatures
 * stay remembered) so the existing holds and cards get their new columns.
 */
import type { Migration } from './migration';

export const tuningObservations: Migration = {
  id: 9,
  name: 'tuning_observations',
  sql: `
      ALTER TABLE runs ADD COLUMN max_gap_ms REAL;
      ALTER TABLE runs ADD COLUMN gaps INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX runs_gapped ON runs (agent, max_gap_ms) WHERE gaps > 0;
      CREATE TABLE beat_gaps (agent TEXT NOT NULL, bucket INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (agent, bucket)) WITHOUT ROWID;
      ALTER TABLE holds ADD COLUMN run_ms REAL;
      CREATE INDEX holds_run ON holds (agent, run_ms) WHERE run_ms IS NOT NULL;
      ALTER TABLE cards ADD COLUMN age_ref_ms REAL;
      CREATE INDEX cards_lane_age ON cards (lane, age_ref_ms);
      DELETE FROM dirs;
    `,
};
