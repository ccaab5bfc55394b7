/**
 * Alerts (lib/alerts, `serve --alert-webhook`): the sent set, one row per item and reason
 * (an order in Needs attention per flag, in Stale per stale reason, a channel problem), so a
 * restart sends nothing already sent; the deliveries each target still owes or made; each
 * target's last success and error. Times are this machine's clock, ms. Not the folder's:
 * deleting the index forgets what was sent (the next start alerts on what is there).
 */
import type { Migration } from './migration';

export const alerts: Migration = {
  id: 7,
  name: 'alerts',
  sql: `
      CREATE TABLE alerts_sent (
        key TEXT PRIMARY KEY,
        grp TEXT NOT NULL,
        event TEXT NOT NULL,
        order_id TEXT,
        path TEXT,
        reason TEXT NOT NULL,
        first_seen_ms REAL NOT NULL,
        sent_ms REAL,
        gone_ms REAL,
        resolved_ms REAL
      );
      CREATE INDEX alerts_sent_open ON alerts_sent (resolved_ms, grp);
      CREATE TABLE alert_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        target TEXT NOT NULL,
        event TEXT NOT NULL,
        grp TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_ms REAL NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_ms REAL,
        done_ms REAL,
        last_error TEXT
      );
      CREATE INDEX alert_outbox_target ON alert_outbox (target, status, id);
      CREATE TABLE alert_state (
        target TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        label TEXT NOT NULL,
        last_success_ms REAL,
        last_error TEXT,
        last_error_ms REAL,
        sent INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0
      );
    `,
};
