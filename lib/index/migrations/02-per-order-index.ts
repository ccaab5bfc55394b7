/**
 * The index derives one order folder at a time and keeps no record content: files keep
 * their stat identity, outcome code, writer and remembered signature check; problems are
 * scoped to the folder (or '' for the channel) they came from; cards know when they may
 * change with no file changing (next_ms). A cache: dropping the old tables only costs a
 * cold index.
 */
import type { Migration } from './migration';

export const perOrderIndex: Migration = {
  id: 2,
  name: 'per_order_index',
  sql: `
      DROP TABLE files;
      CREATE TABLE files (
        path TEXT PRIMARY KEY,
        order_dir TEXT,
        stat TEXT NOT NULL,
        type TEXT NOT NULL,
        arrival_ms REAL NOT NULL,
        first_seen_ms REAL NOT NULL,
        kind TEXT,
        status TEXT NOT NULL,
        problem TEXT,
        writer TEXT,
        sig_key TEXT,
        sig_ok INTEGER
      );
      CREATE INDEX files_order_dir ON files (order_dir);
      CREATE INDEX files_writer ON files (writer, arrival_ms);
      DROP TABLE cards;
      CREATE TABLE cards (
        order_id TEXT PRIMARY KEY,
        order_dir TEXT NOT NULL,
        lane TEXT NOT NULL,
        state TEXT NOT NULL,
        holder TEXT,
        agents TEXT NOT NULL,
        flags TEXT NOT NULL,
        search TEXT NOT NULL,
        sort_ms REAL NOT NULL,
        next_ms REAL,
        card TEXT NOT NULL
      );
      CREATE INDEX cards_lane_sort ON cards (lane, sort_ms, order_id);
      CREATE INDEX cards_holder ON cards (holder, state);
      CREATE INDEX cards_next ON cards (next_ms);
      CREATE INDEX cards_dir ON cards (order_dir);
      DROP TABLE problems;
      CREATE TABLE problems (scope TEXT NOT NULL, path TEXT NOT NULL, problem TEXT NOT NULL, detail TEXT NOT NULL, line INTEGER, order_id TEXT);
      CREATE INDEX problems_scope ON problems (scope);
      CREATE TABLE deps (order_id TEXT NOT NULL, dep TEXT NOT NULL);
      CREATE INDEX deps_dep ON deps (dep);
      CREATE INDEX deps_order ON deps (order_id);
      DELETE FROM holds;
      DELETE FROM runs;
      DELETE FROM agents;
      DELETE FROM ledger_files;
      DELETE FROM meta WHERE key = 'progress';
    `,
};
