/**
 * The first schema: every file read with its stat identity and outcome, pinned keys, cards, problems,
 * ledger files, agents, holds, runs, and the change feed /api/events polls.
 */
import type { Migration } from './migration';

export const initialIndex: Migration = {
  id: 1,
  name: 'initial_index',
  sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- Every file claimboard reads, with the stat identity that decides whether to read it again,
      -- its outcome (record or problem, JSON), and the remembered signature check.
      CREATE TABLE files (
        path TEXT PRIMARY KEY,
        stat TEXT NOT NULL,
        type TEXT NOT NULL,
        arrival_ms REAL NOT NULL,
        first_seen_ms REAL NOT NULL,
        outcome TEXT NOT NULL,
        sig_key TEXT,
        sig_ok INTEGER
      );
      CREATE TABLE pins (name TEXT PRIMARY KEY, public_key TEXT NOT NULL, pinned_at_ms REAL NOT NULL);
      CREATE TABLE cards (
        order_id TEXT PRIMARY KEY,
        lane TEXT NOT NULL,
        state TEXT NOT NULL,
        holder TEXT,
        agents TEXT NOT NULL,   -- ' a b ' : holder and every agent its flags involve
        flags TEXT NOT NULL,    -- ' f1 f2 '
        search TEXT NOT NULL,   -- lowercase: id, holder, project, reason
        sort_ms REAL NOT NULL,
        card TEXT NOT NULL,
        view TEXT NOT NULL
      );
      CREATE INDEX cards_lane_sort ON cards (lane, sort_ms, order_id);
      CREATE INDEX cards_holder ON cards (holder);
      CREATE TABLE problems (path TEXT NOT NULL, problem TEXT NOT NULL, detail TEXT NOT NULL, line INTEGER, order_id TEXT);
      CREATE INDEX problems_order ON problems (order_id);
      CREATE TABLE ledger_files (path TEXT PRIMARY KEY, entries INTEGER NOT NULL, intact INTEGER NOT NULL, broken_at INTEGER);
      CREATE TABLE agents (name TEXT PRIMARY KEY, summary TEXT NOT NULL);
      CREATE TABLE holds (order_id TEXT NOT NULL, agent TEXT NOT NULL, history TEXT NOT NULL);
      CREATE INDEX holds_agent ON holds (agent);
      CREATE INDEX holds_order ON holds (order_id);
      CREATE TABLE runs (
        order_id TEXT NOT NULL, agent TEXT NOT NULL, run TEXT NOT NULL, pid INTEGER NOT NULL,
        first_arrival_ms REAL NOT NULL, last_arrival_ms REAL NOT NULL, last_writer_at TEXT NOT NULL,
        writer_offset_ms REAL, beats INTEGER NOT NULL,
        PRIMARY KEY (order_id, agent, run)
      );
      CREATE INDEX runs_agent ON runs (agent);
      -- Change feed for /api/events: one row per changed order ('*' = everything).
      CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL, at_ms REAL NOT NULL);
    `,
};
