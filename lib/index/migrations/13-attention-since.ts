/**
 * Per order in Needs attention, when this index first stored it there (this machine's clock):
 * a row per order, kept from the orders each settle changed, instead of a meta JSON object of
 * every attention id read and rewritten at every settle (44,000 ids at 1M orders). The old
 * row's entries move in.
 */
import type { Migration } from './migration';

export const attentionSince: Migration = {
  id: 13,
  name: 'attention_since',
  sql: `
      CREATE TABLE attention_since (order_id TEXT PRIMARY KEY, since_ms REAL NOT NULL) WITHOUT ROWID;
      INSERT OR IGNORE INTO attention_since (order_id, since_ms)
        SELECT j.key, j.value FROM meta m, json_each(m.value) j
        WHERE m.key = 'attention_since' AND json_valid(m.value) AND json_type(m.value) = 'object' AND j.type IN ('integer', 'real');
      DELETE FROM meta WHERE key = 'attention_since';
    `,
};
