/**
 * The SQL of the two tables kept from `cards` by triggers, card_agents and lane_counts: their
 * migrations (5 and 12) make them, and the end of a bulk load (db.ts) fills them again.
 */

/**
 * SQL turning a space-delimited agents column (' a b ') into a JSON array of its words
 * ('["a","b"]'; empty strings where spaces repeat or the list is empty). SQLite has no split and
 * allows no WITH inside a trigger, so this goes through json_each; quotes and backslashes are
 * escaped, so any name without control characters stays one JSON string.
 */
export function agentsAsJson(column: string): string {
  return `'["' || replace(replace(replace(trim(${column}), '\\', '\\\\'), '"', '\\"'), ' ', '","') || '"]'`;
}

/** card_agents made again from every card (migration 5, and the end of a bulk load). */
export const FILL_CARD_AGENTS = `INSERT OR IGNORE INTO card_agents (agent, lane, sort_ms, order_id)
        SELECT lower(j.value), c.lane, c.sort_ms, c.order_id FROM cards c, json_each(${agentsAsJson('c.agents')}) j WHERE j.value <> '';`;

/** The lane_counts triggers (migration 12; dropped and made again by a bulk load). */
export const LANE_COUNT_TRIGGERS = `
      CREATE TRIGGER lane_counts_before_insert BEFORE INSERT ON cards BEGIN
        UPDATE lane_counts SET n = n - 1 WHERE lane = (SELECT lane FROM cards WHERE order_id = NEW.order_id);
      END;
      CREATE TRIGGER lane_counts_on_insert AFTER INSERT ON cards BEGIN
        INSERT INTO lane_counts (lane, n) VALUES (NEW.lane, 1) ON CONFLICT (lane) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER lane_counts_on_update AFTER UPDATE OF lane ON cards WHEN OLD.lane <> NEW.lane BEGIN
        UPDATE lane_counts SET n = n - 1 WHERE lane = OLD.lane;
        INSERT INTO lane_counts (lane, n) VALUES (NEW.lane, 1) ON CONFLICT (lane) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER lane_counts_on_delete AFTER DELETE ON cards BEGIN
        UPDATE lane_counts SET n = n - 1 WHERE lane = OLD.lane;
      END;`;

/** lane_counts made again from every card (migration 12, and the end of a bulk load). */
export const FILL_LANE_COUNTS = 'DELETE FROM lane_counts; INSERT INTO lane_counts (lane, n) SELECT lane, COUNT(*) FROM cards GROUP BY lane;';
