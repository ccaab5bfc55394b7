import 'server-only';
/**
 * Read side of the operator activity (GET /api/activity): the index names the decision
 * records (its `files` rows: kind, writer, stat identity, remembered signature check) and the
 * ledger files (`ledger_files`: which chains it found intact); their content is read fresh from
 * the folder, as an order's timeline is, and paired into acts by lib/ledger/acts.ts. Never writes.
 *
 * What is read is remembered per file while its stat identity (and the roster's keys) stay the
 * same, so a request after a heartbeat reads no file again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DB } from '../db';
import { decodeCursor, encodeCursor, indexVersion, rosterOf } from './queries';
import { channelRootOf } from '../store/meta';
import { indexClockSteps } from '../steady-clock';
import { steadyArrival, type ClockStep } from '../../ledger/clock-steps';
import { entryFromStat, isRealDir, listCapped, MAX_FOLDER_ENTRIES } from '../disk/read-channel';
import { statKey } from '../writer/order-pass';
import { serverVerify } from '../disk/verifier';
import { readEntry } from '../../ledger/channel';
import { classifyPath } from '../../ledger/names';
import { ledgerFileSigner, readLedgerFile, type LedgerFileReport } from '../../ledger/ledger-file';
import { verifyRecord, type Roster, type SignatureMemo } from '../../ledger/verify';
import { actMatches, pairActs, type Act, type ActFilters, type ActRecord, type ReadLedgerFile, type ReadLine, type ReadRecord } from '../../ledger/acts';
import type { ActivityLedger, ActivityResponse } from '../types';

/** Acts per page. */
export const ACTIVITY_PAGE_SIZE = 50;

/**
 * The decision records' rows, through the partial index files_decisions (its WHERE, repeated
 * here, lets SQLite use it): every interrupt, reopen, ack and supersede, and the releases that
 * are an authority's or whose check failed (a worker's release of itself is routine, and many).
 */
const RECORD_SQL = `
  SELECT path, stat, sig_key, sig_ok FROM files INDEXED BY files_decisions
  WHERE kind IN ('release', 'interrupt', 'reopen', 'ack', 'supersede')
    AND NOT (kind = 'release' AND status = 'record' AND (writer IS NULL OR writer NOT IN
      (SELECT name FROM agents WHERE ifnull(json_extract(summary, '$.is_authority'), 0) = 1)))`;
const LEDGER_SQL = 'SELECT path, intact, stat, keys FROM ledger_files';

/** A file read and checked, remembered while `version` (its stat identity and the roster's version) holds. */
interface Remembered<T> {
  readonly version: string;
  readonly value: T;
}
const records = new Map<string, Remembered<ReadRecord | null>>();
const ledgers = new Map<string, Remembered<ReadLedger | null>>();
const remember = <T>(m: Map<string, Remembered<T>>, key: string, version: string, make: () => T): T => {
  const known = m.get(key);
  if (known && known.version === version) return known.value;
  if (m.size > 50_000) m.clear();
  const value = make();
  m.set(key, { version, value });
  return value;
};

/**
 * Reads the decision record at `rel` and checks its signature: null when it is not one, or not
 * shaped as one. `indexed` is the index's remembered check, used while the file is as the index read it.
 */
function readRecord(root: string, rel: string, roster: Roster, steps: readonly ClockStep[], indexed?: { readonly stat: string; readonly memo: SignatureMemo }): ReadRecord | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path.join(/*turbopackIgnore: true*/ root, rel));
  } catch {
    return null;
  }
  const sigMemo = indexed && indexed.stat === statKey(st) ? indexed.memo : undefined;
  const o = readEntry(entryFromStat(root, rel, st, steadyArrival(st.ctimeMs, steps)));
  if (o.status !== 'record') return null;
  const r = o.record;
  switch (r.kind) {
    case 'release':
    case 'retirement':
    case 'reopen':
    case 'ack':
    case 'supersede':
    case 'interrupt': {
      const bad = verifyRecord(r, roster, serverVerify, sigMemo ? { memo: sigMemo, path: rel } : undefined);
      return { path: rel, arrivalMs: o.arrivalMs, record: r satisfies ActRecord, problem: bad ? `${bad.problem.replace('_', ' ')}: ${bad.detail}` : null };
    }
    case 'agent':
    case 'order':
    case 'claim':
    case 'heartbeat':
    case 'result':
    case 'review':
    case 'recommendation':
    case 'giveup':
    case 'interrupt_ack':
    case 'master':
    case 'grant':
      return null;
  }
}

/** The keys a ledger file verifies against (as ledgerReportOf names them). */
function keysOf(roster: Roster, signer: string | null): string {
  return signer !== null ? (roster.entries.get(signer)?.public_key ?? '') : [...roster.entries.values()].map((e) => `${e.name}=${e.public_key ?? ''}`).join(',');
}

/** One ledger file as read: its lines, its integrity, and (a signer's own file) whether it is read at all. */
interface ReadLedger {
  readonly lines: ReadLine[];
  readonly summary: ActivityLedger;
  readonly file: ReadLedgerFile | null;
}

/**
 * Reads one ledger file: its lines and its integrity. When the index found the file intact at
 * this very stat identity and these keys, its signatures are not checked again. A file not read
 * (a symlink, not a regular file, too large) is its signer's still, by its name.
 */
function readLedger(root: string, rel: string, roster: Roster, steps: readonly ClockStep[], indexed: { intact: number; stat: string | null; keys: string | null } | undefined): ReadLedger | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path.join(/*turbopackIgnore: true*/ root, rel));
  } catch {
    return null;
  }
  const o = readEntry(entryFromStat(root, rel, st, steadyArrival(st.ctimeMs, steps)));
  if (o.status === 'problem') {
    const signer = ledgerFileSigner(path.basename(rel)) ?? null;
    return {
      lines: [],
      summary: { path: rel, signer, entries: 0, intact: false, reason: `${o.problem.replace('_', ' ')}: ${o.detail}` },
      file: signer === null ? null : { path: rel, signer, unread: o.detail },
    };
  }
  if (o.status !== 'ledger') return null;
  const keys = keysOf(roster, o.signer);
  let report: LedgerFileReport;
  if (o.text === null) report = { entries: 0, intact: false, broken_at: 1, reason: 'not valid UTF-8', lines: [] };
  else {
    const known = indexed && indexed.intact === 1 && indexed.stat === statKey(st) && indexed.keys === keys;
    report = readLedgerFile(o.text, o.signer, roster, known ? () => true : serverVerify);
  }
  const summary: ActivityLedger = {
    path: rel,
    signer: o.signer,
    entries: report.entries,
    intact: report.intact,
    ...(report.broken_at !== undefined ? { broken_at: report.broken_at } : {}),
    ...(report.reason !== undefined ? { reason: report.reason } : {}),
  };
  return {
    lines: report.lines.map((entry) => ({ path: rel, signer: o.signer, fileArrivalMs: o.arrivalMs, entry })),
    summary,
    file: o.signer === null ? null : { path: rel, signer: o.signer, unread: o.text === null ? 'not valid UTF-8' : null },
  };
}

/** Every act of the channel, newest first, and the ledger files of its authorities. */
function everything(db: DB): { acts: Act[]; ledgers: ActivityLedger[] } {
  const at = indexVersion(db);
  const { version: rosterOnly, roster } = rosterOf(db, at);
  // Arrivals on the index's clock (steady-clock.ts): the clock's steps are part of what the acts are computed from.
  const steps = indexClockSteps(db);
  const rosterVersion = steps.length === 0 ? rosterOnly : `${rosterOnly}\u0000${JSON.stringify(steps)}`;
  const root = channelRootOf(db) ?? '';
  const isAuthority = (n: string) => roster.authorities.has(n);

  const read: ReadRecord[] = [];
  // What the acts are computed from: the same inputs as last time give the same acts.
  const inputs: string[] = [root, rosterVersion];
  for (const row of db.prepare(RECORD_SQL).all() as { path: string; stat: string; sig_key: string | null; sig_ok: number | null }[]) {
    // The index's signature check holds for the file as the index read it (its stat identity).
    const memo: SignatureMemo = { get: (_p, key) => (row.sig_key === key && row.sig_ok !== null ? row.sig_ok === 1 : undefined), set: () => {} };
    const r = remember(records, `${root}\u0000${row.path}`, `${row.stat}\u0000${rosterVersion}`, () => readRecord(root, row.path, roster, steps, { stat: row.stat, memo }));
    inputs.push(`${row.path}\u0000${row.stat}`);
    if (r) read.push(r);
  }
  // Retirements are channel-level files the index keeps no rows for: listed here (a few).
  const retDir = path.join(/*turbopackIgnore: true*/ root, 'retirements');
  if (isRealDir(retDir)) {
    // Capped as every folder read on a request is (read-channel.ts); past it, none is shown.
    const listed = listCapped(retDir, MAX_FOLDER_ENTRIES);
    const names = 'names' in listed ? listed.names : [];
    for (const name of names) {
      const rel = `retirements/${name}`;
      const c = classifyPath(rel);
      if (c.class !== 'record' || c.kind !== 'retirement') continue;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(path.join(retDir, name));
      } catch {
        continue;
      }
      const r = remember(records, `${root}\u0000${rel}`, `${statKey(st)}\u0000${rosterVersion}`, () => readRecord(root, rel, roster, steps));
      inputs.push(`${rel}\u0000${statKey(st)}`);
      if (r) read.push(r);
    }
  }

  const lines: ReadLine[] = [];
  const summaries: ActivityLedger[] = [];
  const files: ReadLedgerFile[] = [];
  const indexed = new Map((db.prepare(LEDGER_SQL).all() as { path: string; intact: number; stat: string | null; keys: string | null }[]).map((r) => [r.path, r]));
  const listedRoot = listCapped(root, MAX_FOLDER_ENTRIES);
  const rootNames = 'names' in listedRoot ? listedRoot.names : [];
  for (const name of rootNames) {
    const c = classifyPath(name);
    if (c.class !== 'record' || c.kind !== 'ledger') continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path.join(/*turbopackIgnore: true*/ root, name));
    } catch {
      continue;
    }
    const version = `${statKey(st)}\u0000${rosterVersion}\u0000${JSON.stringify(indexed.get(name) ?? null)}`;
    const l = remember(ledgers, `${root}\u0000${name}`, version, () => readLedger(root, name, roster, steps, indexed.get(name)));
    inputs.push(`${name}\u0000${version}`);
    if (!l) continue;
    if (l.file) files.push(l.file);
    const s = l.summary.signer;
    // A signer's own file: kept when the signer is an authority; the legacy file, when any of its lines is one's.
    const mine = s !== null ? isAuthority(s) : l.lines.some((x) => isAuthority(x.entry.signed_by ?? ''));
    if (!mine) continue;
    summaries.push(l.summary);
    lines.push(...l.lines);
  }
  const key = inputs.join('\n');
  if (lastPaired && lastPaired.key === key) return lastPaired.value;
  const value = { acts: pairActs(read, lines, isAuthority, files), ledgers: summaries };
  lastPaired = { key, value };
  return value;
}

/** The acts last computed and what they were computed from. */
let lastPaired: { key: string; value: { acts: Act[]; ledgers: ActivityLedger[] } } | null = null;

const cached = new WeakMap<DB, { at: string; value: { acts: Act[]; ledgers: ActivityLedger[] } }>();

/** Every act and the authorities' ledger files, computed once per version of the index. */
function allActs(db: DB): { acts: Act[]; ledgers: ActivityLedger[] } {
  const at = indexVersion(db);
  let known = cached.get(db);
  if (!known || known.at !== at) cached.set(db, (known = { at, value: everything(db) }));
  return known.value;
}

/**
 * The acts whose record arrived here within [fromMs, toMs) (this machine's clock), oldest first,
 * at most `limit` (the fleet history's marks); a ledger line without its record has no arrival and
 * is not among them.
 */
export function actsBetween(db: DB, fromMs: number, toMs: number, limit: number): Act[] {
  return allActs(db)
    .acts.filter((a) => a.arrival_ms !== null && a.arrival_ms >= fromMs && a.arrival_ms < toMs)
    .reverse()
    .slice(0, limit);
}

/**
 * GET /api/activity: the acts matching `filters`, newest first, `limit` after `cursor` (an opaque
 * keyset cursor from a previous page's `next_cursor`), with how many match, the names that acted
 * (for the operator filter) and the ledger files read. Throws on a malformed cursor (the route
 * checks it first with decodeCursor).
 */
export function activity(db: DB, filters: ActFilters, cursor: string | null, nowMs: number, limit = ACTIVITY_PAGE_SIZE): ActivityResponse {
  const { acts, ledgers: ledgerFiles } = allActs(db);
  const after = cursor === null ? null : decodeCursor(cursor);
  if (cursor !== null && after === null) throw new Error('not a cursor from this API');
  const matching = acts.filter((a) => actMatches(a, filters));
  const start = after ? matching.findIndex((a) => a.sort_ms < after[0] || (a.sort_ms === after[0] && a.sort_key < after[1])) : 0;
  const page = start < 0 ? [] : matching.slice(start, start + limit);
  const last = page[page.length - 1];
  const more = start >= 0 && start + limit < matching.length;
  return {
    acts: page,
    total: matching.length,
    next_cursor: more && last ? encodeCursor(last.sort_ms, last.sort_key) : null,
    operators: [...new Set(acts.map((a) => a.operator))].sort(),
    ledgers: ledgerFiles,
    now_ms: nowMs,
  };
}
