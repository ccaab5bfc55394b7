/**
 * An agent's page reads the same hold rows as the fleet history (its "Held before" is its ended
 * holds): the older per-claim reading (`history`) goes, and `retire` keeps the one thing the page
 * still needs from it, whether a retirement of the agent releases the order now
 * (lib/ledger/actions.ts retireReleases). The older reading already says it for every row: no
 * release of the agent and no result of its own is exactly how it ended in none of "released"
 * and "finished", so no folder is read again.
 */
import type { Migration } from './migration';

export const holdsOneReading: Migration = {
  id: 18,
  name: 'holds_one_reading',
  sql: `
      ALTER TABLE holds ADD COLUMN retire INTEGER;
      UPDATE holds SET retire = CASE WHEN json_extract(history, '$.ended') IN ('released', 'finished') THEN 0 ELSE 1 END;
      ALTER TABLE holds DROP COLUMN history;
    `,
};
