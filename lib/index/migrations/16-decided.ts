/**
 * Card.decided replaced two fields an index built between migration 15 and it may hold: the
 * folders with an ack or a reopen are passed again once more (none on a new index).
 */
import type { Migration } from './migration';

export const decided: Migration = {
  id: 16,
  name: 'decided',
  sql: `
      INSERT OR IGNORE INTO unverified (order_id, order_dir)
        SELECT c.order_id, c.order_dir FROM cards c WHERE c.order_dir IN (SELECT order_dir FROM files WHERE kind IN ('ack', 'reopen'));
    `,
};
