/**
 * The fleet history (GET /api/holds, /history, lib/index/read/holds-queries.ts): each hold's
 * arrivals, ending and what its numbers read as columns (lib/ledger/holds.ts), the whole row as
 * JSON, read by window
 * (claimed_ms, then ended_ms) overall or per agent. hold_gaps: the silences this index saw
 * inside a hold while it ran (a heartbeat arriving more than stale_after after the one before
 * it, this machine's clock); not in the folder: a rebuilt index starts over. Every folder is
 * passed once more (dirs emptied; signatures stay remembered) so existing holds get the columns.
 */
import type { Migration } from './migration';

export const fleetHistory: Migration = {
  id: 17,
  name: 'fleet_history',
  sql: `
      ALTER TABLE holds ADD COLUMN claimed_ms REAL;
      ALTER TABLE holds ADD COLUMN ended_ms REAL;
      ALTER TABLE holds ADD COLUMN ending TEXT;
      ALTER TABLE holds ADD COLUMN project TEXT;
      ALTER TABLE holds ADD COLUMN search TEXT;
      ALTER TABLE holds ADD COLUMN beat_ms REAL;
      ALTER TABLE holds ADD COLUMN delivered INTEGER;
      ALTER TABLE holds ADD COLUMN hold TEXT;
      CREATE INDEX holds_window ON holds (claimed_ms, order_id, agent, ended_ms);
      CREATE INDEX holds_agent_window ON holds (agent, claimed_ms, order_id, ended_ms);
      CREATE TABLE hold_gaps (order_id TEXT NOT NULL, agent TEXT NOT NULL, from_ms REAL NOT NULL, to_ms REAL NOT NULL, PRIMARY KEY (order_id, agent, from_ms)) WITHOUT ROWID;
      CREATE INDEX hold_gaps_to ON hold_gaps (to_ms);
      DELETE FROM dirs;
    `,
};
