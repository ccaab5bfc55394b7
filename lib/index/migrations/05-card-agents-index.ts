/**
 * The board's agent filter as an index: one row per (agent, card) for every agent in
 * cards.agents (' a b ', names are safe components: no space, quote or backslash), in the
 * card's lane and sort order, so a filtered lane page and its count read only that agent's
 * cards. Kept in step with `cards` by triggers, whatever writes the cards. The insert trigger
 * first deletes the order's rows: INSERT OR REPLACE fires no delete trigger (recursive
 * triggers are off). Names are lowercased as the filter is (LIKE compared ASCII case-blind).
 */
import type { Migration } from './migration';
import { agentsAsJson, FILL_CARD_AGENTS } from './kept-tables';

export const cardAgentsIndex: Migration = {
  id: 5,
  name: 'card_agents_index',
  sql: `
      CREATE TABLE card_agents (
        agent TEXT NOT NULL,
        lane TEXT NOT NULL,
        sort_ms REAL NOT NULL,
        order_id TEXT NOT NULL,
        PRIMARY KEY (agent, lane, sort_ms, order_id)
      ) WITHOUT ROWID;
      CREATE INDEX card_agents_order ON card_agents (order_id);
      CREATE TRIGGER card_agents_on_insert AFTER INSERT ON cards BEGIN
        DELETE FROM card_agents WHERE order_id = NEW.order_id;
        INSERT OR IGNORE INTO card_agents (agent, lane, sort_ms, order_id)
          SELECT lower(value), NEW.lane, NEW.sort_ms, NEW.order_id FROM json_each(${agentsAsJson('NEW.agents')}) WHERE value <> '';
      END;
      CREATE TRIGGER card_agents_on_update AFTER UPDATE OF order_id, lane, sort_ms, agents ON cards BEGIN
        DELETE FROM card_agents WHERE order_id = OLD.order_id;
        INSERT OR IGNORE INTO card_agents (agent, lane, sort_ms, order_id)
          SELECT lower(value), NEW.lane, NEW.sort_ms, NEW.order_id FROM json_each(${agentsAsJson('NEW.agents')}) WHERE value <> '';
      END;
      CREATE TRIGGER card_agents_on_delete AFTER DELETE ON cards BEGIN
        DELETE FROM card_agents WHERE order_id = OLD.order_id;
      END;
      ${FILL_CARD_AGENTS}
    `,
};
