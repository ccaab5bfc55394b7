/**
 * A ledger file's report depends only on its content (stat identity) and the keys it
 * verifies against: remembered, a warm start verifies none of its lines again.
 */
import type { Migration } from './migration';

export const ledgerReportMemo: Migration = {
  id: 3,
  name: 'ledger_report_memo',
  sql: `
      ALTER TABLE ledger_files ADD COLUMN stat TEXT;
      ALTER TABLE ledger_files ADD COLUMN keys TEXT;
      ALTER TABLE ledger_files ADD COLUMN reason TEXT;
    `,
};
