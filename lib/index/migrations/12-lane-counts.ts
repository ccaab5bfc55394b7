/**
 * How many cards each lane has, kept by triggers whatever writes the cards: the unfiltered
 * board reads six rows instead of counting every card at every request.
 * A card is written by INSERT OR REPLACE, which fires no delete trigger (recursive triggers
 * are off): the BEFORE INSERT trigger takes out the row about to be replaced.
 */
import type { Migration } from './migration';
import { LANE_COUNT_TRIGGERS, FILL_LANE_COUNTS } from './kept-tables';

export const laneCounts: Migration = {
  id: 12,
  name: 'lane_counts',
  sql: `
      CREATE TABLE lane_counts (lane TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
      ${LANE_COUNT_TRIGGERS}
      ${FILL_LANE_COUNTS}
    `,
};
