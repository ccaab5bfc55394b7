/**
 * The agents table takes each agent's median clock offset straight from this index.
 */
import type { Migration } from './migration';

export const runsOffsetIndex: Migration = {
  id: 4,
  name: 'runs_offset_index',
  sql: `CREATE INDEX runs_agent_offset ON runs (agent, writer_offset_ms);`,
};
