import 'server-only';
import type { Statement } from 'better-sqlite3';
import type { DB } from '../db';

const statements = new WeakMap<DB, Map<string, Statement>>();

/**
 * The prepared statement for `sql` on `db`, prepared once per connection (preparing costs more
 * than running most of the read queries). Only for SQL built from a bounded set of shapes: the
 * cache keeps every distinct string for the connection's life.
 */
export function stmt(db: DB, sql: string): Statement {
  let byDb = statements.get(db);
  if (!byDb) statements.set(db, (byDb = new Map<string, Statement>()));
  let s = byDb.get(sql);
  if (!s) byDb.set(sql, (s = db.prepare(sql)));
  return s;
}
