/**
 * The names a card's ferry retire releases retire (Card.retires, JSON), in a column of their
 * own with a partial index over the few cards that have any: every settle asks for them, and
 * reading them out of every card's JSON cost a scan of the whole table.
 */
import type { Migration } from './migration';

export const cardRetiresColumn: Migration = {
  id: 11,
  name: 'card_retires_column',
  sql: `
      ALTER TABLE cards ADD COLUMN retires TEXT;
      UPDATE cards SET retires = json_extract(card, '$.retires') WHERE json_type(card, '$.retires') = 'array';
      CREATE INDEX cards_retires ON cards (order_id) WHERE retires IS NOT NULL;
    `,
};
