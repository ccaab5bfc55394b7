import 'server-only';
/**
 * The index's `meta` table (key → text), every key it holds listed here with the type of its
 * value and how that value is written as text. Everything that reads or writes a meta row goes
 * through readMeta / writeMeta; a key not listed here does not compile.
 *
 * Readers get null for a row that is absent or does not read as its type (the index is a cache
 * of the folder, but a row is data all the same).
 */
import { z } from 'zod';
import type { DB } from '../db';
import type { Statement } from 'better-sqlite3';
import type { IndexProgress } from '../types';
import type { PassStatsRow } from '../writer/metrics-record';
import { DEFAULT_STALE_AFTER_MS } from '../../ledger/channel';
import type { ClockStep } from '../../ledger/clock-steps';

/** The `clock` meta row: the steps (oldest first) and the wall clock minus the boot clock (ms) on the boot `boot_id`. */
export interface StoredClock {
  readonly steps: readonly ClockStep[];
  readonly boot_id: string | null;
  readonly wall_minus_boot_ms: number | null;
}

/** Every meta key with the type of its value. Instants are ms on this machine's clock. */
export interface MetaValues {
  /** The channel root the index was built from (absolute path); written at each start. */
  readonly channel: string;
  /** stale_after in force (ms); written at each start. */
  readonly stale_after_ms: number;
  /** Progress of the first index (the board's "reading…" line). */
  readonly progress: IndexProgress;
  /** Bumped by `claimboard repin` (its clock, ms, as text): the running indexer rebuilds its roster when it differs. */
  readonly pins_version: string;
  /** The roster's keys, operators and authorities as of the last channel-level read: a change re-derives every folder. */
  readonly roster_sig: string;
  /** True between storing provisional cards and settling them: a start that finds it settles every card. */
  readonly unsettled: boolean;
  /** What the indexer recorded at its last pass for /metrics (metrics-record.ts). */
  readonly pass_stats: PassStatsRow;
  /** Since when this index observes heartbeat gaps (beat-gaps.ts). */
  readonly gaps_since_ms: number;
  /** The alert configuration serve runs with, for the web server (lib/alerts/store.ts); absent: no alerts. */
  readonly alerts: StoredAlertConfig;
  /** The wall clock's steps the indexer saw, and what it read at the last one (steady-clock.ts); absent: none seen. */
  readonly clock: StoredClock;
  /** True when the last writer closed the index (db.ts closeWriter): the next open skips the full integrity check. */
  readonly closed_cleanly: boolean;
  /** The rulebook that derived the stored cards (lib/ledger/rulebook-version.ts); another, or none, derives every order again at the next start. */
  readonly rulebook: string;
}

/** A meta key. */
export type MetaKey = keyof MetaValues;

interface Codec<T> {
  readonly encode: (v: T) => string;
  /** The value, or null when the text does not read as one. */
  readonly decode: (raw: string) => T | null;
}

const text: Codec<string> = { encode: (v) => v, decode: (raw) => raw };
// Number() as the readers always did ('' reads 0; text that is no number reads NaN).
const num: Codec<number> = { encode: (v) => String(v), decode: (raw) => Number(raw) };
const flag: Codec<boolean> = { encode: (v) => (v ? '1' : '0'), decode: (raw) => raw === '1' };

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** JSON checked against `schema` (its output one of T's shapes) when read. */
function json<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }): Codec<T> {
  return {
    encode: (v) => JSON.stringify(v),
    decode: (raw) => {
      const r = schema.safeParse(parseJson(raw));
      return r.success ? r.data : null;
    },
  };
}

/** JSON written only by the indexer itself and read as it wrote it (the board's progress line, on every request). */
function trustedJson<T>(): Codec<T> {
  return { encode: (v) => JSON.stringify(v), decode: (raw) => (parseJson(raw) as T | undefined) ?? null };
}

const PassStatsSchema = z.object({
  last_pass_ms: z.number(),
  verified_total: z.number(),
  passes_total: z.number(),
  lag: z.object({ max_ms: z.number(), files: z.number(), at_ms: z.number() }).nullable(),
});

/** The alert configuration serve stores for the web server (lib/alerts/store.ts writes it): what it needs to know of the configuration (no secret: targets by id and redacted label). */
export interface StoredAlertConfig {
  readonly targets: readonly { readonly id: string; readonly kind: 'webhook' | 'command'; readonly label: string }[];
  /** The quiet period, ms. */
  readonly after_ms: number;
  readonly base_url: string;
}

const AlertConfigSchema = z.object({
  targets: z.array(z.object({ id: z.string(), kind: z.enum(['webhook', 'command']), label: z.string() })),
  after_ms: z.number(),
  base_url: z.string(),
});

const CODECS: { readonly [K in MetaKey]: Codec<MetaValues[K]> } = {
  channel: text,
  stale_after_ms: num,
  progress: trustedJson<IndexProgress>(),
  pins_version: text,
  roster_sig: text,
  unsettled: flag,
  pass_stats: json<PassStatsRow>(PassStatsSchema),
  gaps_since_ms: num,
  alerts: json<StoredAlertConfig>(AlertConfigSchema),
  clock: json<StoredClock>(
    z.object({
      steps: z.array(z.object({ before_ms: z.number().finite(), delta_ms: z.number().finite() })),
      boot_id: z.string().nullable(),
      wall_minus_boot_ms: z.number().finite().nullable(),
    }),
  ),
  closed_cleanly: flag,
  rulebook: text,
};

interface MetaStatements {
  get?: Statement;
  put?: Statement;
  putNew?: Statement;
  del?: Statement;
}
const statements = new WeakMap<DB, MetaStatements>();

/** The statements of `db`, each prepared on first use (a read-only connection never prepares a write). */
function statementsOf(db: DB): MetaStatements {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = {}));
  return s;
}

/** The value of `key`, or null when the row is absent or does not read as its type. */
export function readMeta<K extends MetaKey>(db: DB, key: K): MetaValues[K] | null {
  const s = statementsOf(db);
  s.get ??= db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const raw = s.get.get(key) as string | undefined;
  return raw === undefined ? null : CODECS[key].decode(raw);
}

/** Writes `key` (replacing its row). */
export function writeMeta<K extends MetaKey>(db: DB, key: K, value: MetaValues[K]): void {
  const s = statementsOf(db);
  s.put ??= db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  s.put.run(key, CODECS[key].encode(value));
}

/** Writes `key` only when it has no row yet. */
export function writeMetaIfAbsent<K extends MetaKey>(db: DB, key: K, value: MetaValues[K]): void {
  const s = statementsOf(db);
  s.putNew ??= db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
  s.putNew.run(key, CODECS[key].encode(value));
}

/** Removes the row of `key`. */
export function deleteMeta(db: DB, key: MetaKey): void {
  const s = statementsOf(db);
  s.del ??= db.prepare('DELETE FROM meta WHERE key = ?');
  s.del.run(key);
}

/** stale_after (ms) as the indexer recorded it at its start, else the default (DEFAULT_STALE_AFTER_MS, lib/ledger/channel.ts). */
export function staleAfterMsOf(db: DB): number {
  return readMeta(db, 'stale_after_ms') ?? DEFAULT_STALE_AFTER_MS;
}

/** The channel root the indexer recorded at its start (absolute), or null before it has. */
export function channelRootOf(db: DB): string | null {
  return readMeta(db, 'channel');
}

/** The channel an index was built from and the stale_after it derives with. */
export interface ServedChannel {
  /** The channel root (absolute), or null: no indexer has recorded one in this index yet. */
  readonly root: string | null;
  /** stale_after, ms. */
  readonly staleAfterMs: number;
}

/**
 * The channel the index serves, as its indexer recorded it at its start: the one place the web
 * process learns the channel root and stale_after, for its reads and its acts alike (the
 * answers' own `channel` and `stale_after_ms` are read from the same rows).
 */
export function servedChannelOf(db: DB): ServedChannel {
  return { root: channelRootOf(db), staleAfterMs: staleAfterMsOf(db) };
}
