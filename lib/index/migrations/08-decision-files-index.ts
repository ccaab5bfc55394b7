/**
 * The operator activity (lib/index/read/activity.ts) reads the decision records' rows: a partial
 * index holds only those (a few in a hundred files), so the query reads them, not every file.
 */
import type { Migration } from './migration';

export const decisionFilesIndex: Migration = {
  id: 8,
  name: 'decision_files_index',
  sql: `CREATE INDEX files_decisions ON files (kind, status, writer) WHERE kind IN ('release', 'interrupt', 'reopen', 'ack', 'supersede');`,
};
