/**
 * A cold index shows the board before it checks signatures: the orders whose card
 * was derived from records not yet verified. The checking pass deletes each row it confirms;
 * a start that finds rows left (a process killed while checking) passes those folders again,
 * verifying everything.
 */
import type { Migration } from './migration';

export const unverifiedCards: Migration = {
  id: 10,
  name: 'unverified_cards',
  sql: `CREATE TABLE unverified (order_id TEXT PRIMARY KEY, order_dir TEXT NOT NULL) WITHOUT ROWID;`,
};
