import 'server-only';
/**
 * The index's health, as the writing process (claimboard serve's indexer) knows it, told to the
 * web server's process (which only reads the index) through a small file. The file is NOT kept
 * beside the database: the fault it reports most is that the database's disk is full, so it
 * lives in the OS temp directory, named by a hash of the database's absolute path (both
 * processes know that path: CLAIMBOARD_DB).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { HealthCode, IndexHealth } from './types';
import { BoundedMemo } from '../util/bounded-memo';

export type { HealthCode, IndexHealth };

export const HEALTH_CODES: readonly HealthCode[] = ['index_write_failed', 'index_rebuilding', 'folder_missing', 'folder_unreadable'];

const HealthSchema = z.union([
  z.object({ state: z.literal('ok') }),
  z.object({
    state: z.literal('degraded'),
    code: z.enum(HEALTH_CODES as [HealthCode, ...HealthCode[]]),
    reason: z.string().max(2000),
    since_ms: z.number(),
    retries: z.number().int().nonnegative(),
  }),
]);

export const HEALTH_OK: IndexHealth = { state: 'ok' };

/**
 * healthFileOf's answers by database file (a relative one with the directory it was relative
 * to): a hub's board asks for every channel's on every request, and os.tmpdir() reads the
 * environment on each call (under load, 12 % of a hub's web process's time). The temp directory
 * is the one when first asked.
 */
const healthFiles = new BoundedMemo<string, string>(1024);

/** The health file of the index at `dbFile`: `<tmpdir>/claimboard-health-<16 hex of sha256(absolute path)>.json`. */
export function healthFileOf(dbFile: string): string {
  const key = path.isAbsolute(dbFile) ? dbFile : `${process.cwd()}\u0000${dbFile}`;
  return healthFiles.get(key, () => {
    const h = createHash('sha256').update(path.resolve(dbFile)).digest('hex').slice(0, 16);
    return path.join(os.tmpdir(), `claimboard-health-${h}.json`);
  });
}

/**
 * Writes the health of the index at `dbFile` (a temp file renamed over the old one, so a reader
 * never sees half). `ok` removes the file instead: no file reads as ok, and every healthy start
 * and test run would otherwise leave one behind in the temp directory. Returns false when even
 * that failed (the temp directory's disk full too): the caller's log line is then the only report.
 */
export function writeHealth(dbFile: string, h: IndexHealth): boolean {
  const file = healthFileOf(dbFile);
  if (h.state === 'ok') {
    try {
      fs.rmSync(file, { force: true });
      return true;
    } catch {
      return false;
    }
  }
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(h));
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

/**
 * The health of the index at `dbFile` as last written; `ok` when no file is there (no writer has
 * reported a fault) or it does not parse (a file of another version: not a fault of the index).
 */
export function readHealth(dbFile: string): IndexHealth {
  let text: string;
  try {
    text = fs.readFileSync(healthFileOf(dbFile), 'utf8');
  } catch {
    return HEALTH_OK;
  }
  try {
    const r = HealthSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : HEALTH_OK;
  } catch {
    return HEALTH_OK;
  }
}

/** The last health read per database file, and the stat of the health file it was read at. */
const lastRead = new Map<string, { key: string; health: IndexHealth; calls: number }>();

/** The health file's stat identity (inode, size, mtime), or 'none' when there is none. */
function healthStatKey(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'none';
}

/**
 * readHealth for a reader asking on every request (GET /api/board): one stat per call, the file
 * read again only when its inode, size or mtime moved (every write renames a new file over it),
 * and every 8th call anyway (a freed inode number reused by a file of the same size within the
 * mtime's granularity). Reading and parsing it on every request was 4 % of the web process's CPU
 * at 100,000 orders under load. The same object is returned while nothing changed.
 */
export function currentHealth(dbFile: string): IndexHealth {
  const key = healthStatKey(healthFileOf(dbFile));
  const last = lastRead.get(dbFile);
  if (last && last.key === key && ++last.calls % 8 !== 0) return last.health;
  const health = key === 'none' ? HEALTH_OK : readHealth(dbFile);
  // Unchanged health keeps its object (a caller may cache what it made of it).
  const same = last !== undefined && JSON.stringify(last.health) === JSON.stringify(health);
  lastRead.set(dbFile, { key, health: same ? last.health : health, calls: 0 });
  return same ? last.health : health;
}

/**
 * A watch on the health of the index at `dbFile` for the event stream (app/api/events): each call
 * says whether what a page shows of it (state, code, reason) changed since the previous call
 * (the first answers false). A health change writes no change row (the disk may be full), so
 * without this an open page kept the banner it had. One stat per call; the file is read when its
 * inode, size or mtime moved (every write renames a new file over it), and every 8th call anyway
 * (a freed inode number reused by a file of the same size within the mtime's granularity).
 */
export function healthChanges(dbFile: string): () => boolean {
  const file = healthFileOf(dbFile);
  const statKey = () => healthStatKey(file);
  const shown = () => {
    const h = readHealth(dbFile);
    return h.state === 'ok' ? 'ok' : `${h.code}\n${h.reason}`;
  };
  let key = statKey();
  let last = shown();
  let calls = 0;
  return () => {
    const k = statKey();
    if (k === key && ++calls % 8 !== 0) return false;
    key = k;
    const now = shown();
    if (now === last) return false;
    last = now;
    return true;
  };
}

/** Whether `e` is better-sqlite3's SqliteError (SQLITE_FULL, SQLITE_IOERR...): a fault of the disk, not of the code. */
export function isSqliteError(e: Error): boolean {
  const code = (e as { code?: unknown }).code;
  return e.name === 'SqliteError' || (typeof code === 'string' && code.startsWith('SQLITE_'));
}

/** The file's `<dev>:<ino>` (its identity: a file moved or copied over the path has another), or null when there is none. */
export function dbIdentity(file: string): string | null {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}
