/**
 * A late result can now be acknowledged (Card.late_target), and a card lists each operator's
 * ack and reopen (Card.decided): cards stored with the flag, or with an ack or a reopen in their
 * folder, lack them, so their folders are marked to be passed again at the next start (the
 * mark a start already honours: every signature checked, the card replaced).
 */
import type { Migration } from './migration';

export const lateTarget: Migration = {
  id: 15,
  name: 'late_target',
  sql: `
      INSERT OR IGNORE INTO unverified (order_id, order_dir) SELECT order_id, order_dir FROM cards WHERE flags LIKE '% late_result %';
      INSERT OR IGNORE INTO unverified (order_id, order_dir)
        SELECT c.order_id, c.order_dir FROM cards c WHERE c.order_dir IN (SELECT order_dir FROM files WHERE kind IN ('ack', 'reopen'));
    `,
};
