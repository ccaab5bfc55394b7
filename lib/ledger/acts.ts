/**
 * Operator activity: every deliberate act of an authority (operator, master,
 * orchestrator) in the channel, from its decision records and its signed ledger lines, each act
 * one row with both sides when both are there. Pure: the records and lines come read and
 * verified (lib/index/read/activity.ts reads them).
 *
 * A record and a line are the same act when they have the same signer, the same kind (a release
 * record and a `release` line, a retirement and `retire`, …) and the same subject (the line's
 * `reference`: the order, or the retired agent), and the line's `created_at` is the record's own
 * timestamp: claimboard writes both with one clock reading. ferry stamps its line a moment after
 * its record, so a record without such a line takes the earliest line of its group stamped at or
 * after it. Both stamps are the one writer's clock: no two machines' clocks are compared.
 *
 * Order: newest arrival here first (this machine's clock). A ledger line has no arrival of its
 * own: a line without a record sorts by when its ledger file last arrived here, the latest it
 * can have arrived.
 */
import type { LedgerEntry } from './ledger-file';
import { canonicalName } from './names';
import type { AckRecord, InterruptRecord, ReleaseRecord, ReopenRecord, RetirementRecord, SupersedeRecord } from './records';
import { compareTimestamps, type Timestamp } from './time';

/** What an act did. `requeue` is a release whose reason is claimboard's "requeued: <note>". */
export type ActKind = 'requeue' | 'release' | 'retire' | 'reopen' | 'ack' | 'supersede' | 'interrupt';
export const ACT_KINDS: readonly ActKind[] = ['requeue', 'release', 'retire', 'reopen', 'ack', 'supersede', 'interrupt'];

/** The record kinds that are acts when an authority signs them. */
export type ActRecord = ReleaseRecord | RetirementRecord | ReopenRecord | AckRecord | SupersedeRecord | InterruptRecord;

/** A decision record as read from the folder, with its signature check. */
export interface ReadRecord {
  /** Channel-relative path. */
  readonly path: string;
  /** When its current content arrived here, ms, this machine's clock. */
  readonly arrivalMs: number;
  readonly record: ActRecord;
  /** Null when its signature verifies and its signer may sign it; else why not, in words. */
  readonly problem: string | null;
}

/** One line of a ledger file as read (ledger-file.ts). */
export interface ReadLine {
  /** The ledger file, channel-relative. */
  readonly path: string;
  /** The file's signer (canonical), or null for the legacy `ledger.jsonl`. */
  readonly signer: string | null;
  /** When the ledger file's current content arrived here, ms, this machine's clock. */
  readonly fileArrivalMs: number;
  readonly entry: LedgerEntry;
}

/** A signer's own ledger file (`ledger.<signer>.jsonl`) as read: why it is not read (a symlink, not UTF-8, …), or null. */
export interface ReadLedgerFile {
  readonly path: string;
  /** Canonical. */
  readonly signer: string;
  readonly unread: string | null;
}

/** The record side of an act. */
export interface ActRecordSide {
  readonly path: string;
  /** Records written with it: a retirement's releases. */
  readonly also: readonly string[];
  readonly verified: boolean;
  /** Why not verified, in words, or null. */
  readonly problem: string | null;
}

/** The ledger side of an act. */
export interface ActLedgerSide {
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
  /** Its `prev` is the hash of the line before it. */
  readonly chained: boolean;
  /** Its signature verifies, by the file's signer. */
  readonly signed: boolean;
  /** Why not (chain or signature), in words, or null. */
  readonly problem: string | null;
  /** The line's own summary. */
  readonly summary: string;
}

/** One act (GET /api/activity `acts`, re-exported by lib/api/types.ts). */
export interface Act {
  /** Unique among the acts: the record's path, else `<ledger>#<line>`. */
  readonly key: string;
  readonly act: ActKind;
  /** Who acted (canonical): the record's releaser / operator / issuer, or the ledger's signer. */
  readonly operator: string;
  /** The order acted on, or null (a retirement acts on an agent). */
  readonly order_id: string | null;
  /** The agent acted on: the released or retired one, or null. */
  readonly agent: string | null;
  /** Every order the act touched: its own, a retirement's releases, a supersede's new order. */
  readonly orders: readonly string[];
  /** A few words of what it did besides its kind ("kill", "by t1-2"), or ''. */
  readonly detail: string;
  /** The reason or note as the operator gave it ('' when none, or only the ledger line is there). */
  readonly reason: string;
  /** When the record arrived here (ms, this machine's clock), or null without a record. */
  readonly arrival_ms: number | null;
  /** The sort time: arrival_ms, or for a line without a record when its ledger file last arrived here. */
  readonly sort_ms: number;
  /** The tie-break after sort_ms (newest first is the larger). */
  readonly sort_key: string;
  /** The operator's own timestamp as written (the record's, else the line's). */
  readonly writer_time: string;
  readonly record: ActRecordSide | null;
  readonly ledger: ActLedgerSide | null;
  /** Every side that is there verifies and chains. */
  readonly verified: boolean;
  /**
   * Only part of the act is in the folder, in words: a record without its ledger line ("release
   * written; its ledger line is not in ledger.ops.jsonl", with why when that file is missing or not
   * read), or a ledger line without its record. Null when both are there, or the line's record was
   * replaced since (`replaced_by`).
   */
  readonly partial: string | null;
  /** A line whose record file now holds a later act of the same signer, kind and subject (an ack or reopen decided again, a release or interrupt written again): that file, or null. */
  readonly replaced_by: string | null;
}

/** Filters of the activity (all optional; in the URL as query parameters of the same names). */
export interface ActFilters {
  readonly operator?: string;
  readonly act?: ActKind;
  readonly order?: string;
}

type LineKind = 'release' | 'retire' | 'reopen' | 'ack' | 'supersede' | 'interrupt';
const LINE_KINDS: ReadonlySet<string> = new Set<LineKind>(['release', 'retire', 'reopen', 'ack', 'supersede', 'interrupt']);

/** The ledger kind of a record's line (ferry's and claimboard's: LEDGER_KIND in actions.ts). */
function lineKindOf(r: ActRecord): LineKind {
  switch (r.kind) {
    case 'release':
      return 'release';
    case 'retirement':
      return 'retire';
    case 'reopen':
      return 'reopen';
    case 'ack':
      return 'ack';
    case 'supersede':
      return 'supersede';
    case 'interrupt':
      return 'interrupt';
  }
}

/** What a record of each kind is called in an act's words; a line's kind names its record's. */
const RECORD_NOUN: Readonly<Record<ActRecord['kind'], string>> = { release: 'release', retirement: 'retirement', reopen: 'reopen', ack: 'ack', supersede: 'supersede', interrupt: 'interrupt' };
const LINE_RECORD_NOUN: Readonly<Record<LineKind, string>> = { release: 'release', retire: 'retirement', reopen: 'reopen', ack: 'ack', supersede: 'supersede', interrupt: 'interrupt' };

/**
 * Why a record has no ledger line, from the files: the signer's ledger file is not in the
 * folder, is not read, or has no line of this act. The words say what is there, not why it
 * came to be (an act partly written, or a line that has not arrived here yet).
 */
function missingLine(r: ActRecord, files: readonly ReadLedgerFile[]): string {
  const signer = actorOf(r);
  const file = files.find((f) => f.signer === signer);
  const ledger = file?.path ?? `ledger.${signer}.jsonl`;
  const written = `${RECORD_NOUN[r.kind]} written; its ledger line is not`;
  if (!file) return `${written}: ${ledger} is not in the folder`;
  if (file.unread !== null) return `${written}: ${ledger} is not read (${file.unread})`;
  return `${written} in ${ledger}`;
}

/** Who signed the act, as the record says: its releaser, operator or issuer (canonical). */
export function actorOf(r: ActRecord): string {
  switch (r.kind) {
    case 'release':
      return r.releaser;
    case 'retirement':
    case 'reopen':
    case 'ack':
    case 'supersede':
      return canonicalName(r.operator);
    case 'interrupt':
      return canonicalName(r.issued_by);
  }
}

/** The record's own timestamp (the writer's clock). */
function stampOf(r: ActRecord): Timestamp {
  return r.kind === 'interrupt' ? r.created_at : r.at;
}

const subjectOf = (r: ActRecord): string => (r.kind === 'retirement' ? r.agent : r.order_id);

/** The facts of an act the record says. */
function recordFacts(r: ActRecord): Pick<Act, 'act' | 'order_id' | 'agent' | 'detail' | 'reason'> {
  switch (r.kind) {
    case 'release':
      return r.reason.startsWith('requeued: ')
        ? { act: 'requeue', order_id: r.order_id, agent: r.released, detail: `released ${r.released}`, reason: r.reason.slice('requeued: '.length) }
        : { act: 'release', order_id: r.order_id, agent: r.released, detail: `released ${r.released}`, reason: r.reason };
    case 'retirement':
      return { act: 'retire', order_id: null, agent: r.agent, detail: '', reason: r.reason };
    case 'reopen':
      return { act: 'reopen', order_id: r.order_id, agent: null, detail: '', reason: r.reason };
    case 'ack':
      return { act: 'ack', order_id: r.order_id, agent: null, detail: '', reason: r.note };
    case 'supersede':
      return { act: 'supersede', order_id: r.order_id, agent: null, detail: `by ${r.by}`, reason: r.reason };
    case 'interrupt':
      return { act: 'interrupt', order_id: r.order_id, agent: null, detail: r.action, reason: r.note };
  }
}

/** Why a ledger line does not chain or verify, in words, or null. */
function lineProblem(l: ReadLine): string | null {
  const e = l.entry;
  const words: string[] = [];
  if (!e.chained) words.push(`line ${e.line} does not chain: its prev is not the hash of ${e.line === 1 ? 'an empty ledger' : `line ${e.line - 1}`}`);
  switch (e.signature) {
    case 'valid':
      break;
    case 'unsigned':
      words.push(`line ${e.line} is not signed`);
      break;
    case 'unknown_signer':
      words.push(`line ${e.line}'s signer ${e.signed_by ?? ''} is not in the roster or has no key`);
      break;
    case 'invalid_signature':
      words.push(`line ${e.line}'s signature does not verify against ${canonicalName(e.signed_by ?? '')}'s pinned key`);
      break;
    case 'wrong_signer':
      words.push(`line ${e.line} is signed by ${canonicalName(e.signed_by ?? '')}, not by the file's signer ${l.signer ?? ''}`);
      break;
  }
  return words.length ? words.join('; ') : null;
}

const lineSigner = (l: ReadLine): string => l.signer ?? canonicalName(l.entry.signed_by ?? l.entry.actor);
const pad = (n: number) => String(n).padStart(9, '0');

/**
 * The acts of the channel, newest first: every record (a release of an agent by itself is routine,
 * not an act, and is left out) paired with its ledger line, every line of an act kind without a
 * record, and a retirement with the releases it wrote (same operator, agent and timestamp, reason
 * `retired`). `isAuthority` says whose acts these are; records and lines of others are left out.
 * `files` are the signers' ledger files as read, for the words of an act partly in the folder.
 */
export function pairActs(records: readonly ReadRecord[], lines: readonly ReadLine[], isAuthority: (name: string) => boolean, files: readonly ReadLedgerFile[] = []): Act[] {
  const mine = records.filter((r) => isAuthority(actorOf(r.record)));
  // A retirement's releases belong to it.
  const retirements = mine.filter((r): r is ReadRecord & { record: RetirementRecord } => r.record.kind === 'retirement');
  const releasesOf = new Map<ReadRecord, ReadRecord[]>();
  const grouped = new Set<ReadRecord>();
  for (const r of mine) {
    const rel = r.record;
    if (rel.kind !== 'release' || rel.reason !== 'retired') continue;
    const owner = retirements.find((t) => t.record.operator === rel.releaser && t.record.agent === rel.released && compareTimestamps(t.record.at, rel.at) === 0);
    if (!owner) continue;
    releasesOf.set(owner, [...(releasesOf.get(owner) ?? []), r]);
    grouped.add(r);
  }
  const acting = mine.filter((r) => !grouped.has(r));

  // Lines and records by (signer, kind, subject).
  const group = (signer: string, kind: string, subject: string) => `${signer}\u0000${kind}\u0000${canonicalName(subject)}`;
  const linesBy = new Map<string, ReadLine[]>();
  for (const l of lines) {
    if (!LINE_KINDS.has(l.entry.kind) || !isAuthority(lineSigner(l))) continue;
    const k = group(lineSigner(l), l.entry.kind, l.entry.reference ?? '');
    linesBy.set(k, [...(linesBy.get(k) ?? []), l]);
  }
  const used = new Set<ReadLine>();
  const lineOf = new Map<ReadRecord, ReadLine>();
  const recordsBy = new Map<string, ReadRecord[]>();
  for (const r of acting) {
    const k = group(actorOf(r.record), lineKindOf(r.record), subjectOf(r.record));
    recordsBy.set(k, [...(recordsBy.get(k) ?? []), r]);
  }
  for (const [k, rs] of recordsBy) {
    const ls = linesBy.get(k) ?? [];
    const sorted = [...rs].sort((a, b) => compareTimestamps(stampOf(a.record), stampOf(b.record)));
    for (const r of sorted) {
      const exact = ls.find((l) => !used.has(l) && compareTimestamps(l.entry.created_at, stampOf(r.record)) === 0);
      if (exact) {
        used.add(exact);
        lineOf.set(r, exact);
      }
    }
    for (const r of sorted) {
      if (lineOf.has(r)) continue;
      const later = ls.find((l) => !used.has(l) && compareTimestamps(l.entry.created_at, stampOf(r.record)) >= 0);
      if (later) {
        used.add(later);
        lineOf.set(r, later);
      }
    }
  }

  const ledgerSide = (l: ReadLine): ActLedgerSide => {
    const problem = lineProblem(l);
    return { path: l.path, line: l.entry.line, chained: l.entry.chained, signed: l.entry.signature === 'valid', problem, summary: l.entry.summary };
  };
  const acts: Act[] = [];
  for (const r of acting) {
    const rec = r.record;
    if (rec.kind === 'release' && rec.releaser === rec.released) continue; // a worker's own release: routine
    const l = lineOf.get(r);
    const facts = recordFacts(rec);
    const releases = releasesOf.get(r) ?? [];
    const bad = [r, ...releases].filter((x) => x.problem !== null);
    const record: ActRecordSide = {
      path: r.path,
      also: releases.map((x) => x.path).sort(),
      verified: bad.length === 0,
      problem: bad.length ? bad.map((x) => (x === r ? x.problem : `${x.path}: ${x.problem}`)).join('; ') : null,
    };
    const ledger = l ? ledgerSide(l) : null;
    const orders = [
      ...(facts.order_id ? [facts.order_id] : []),
      ...releases.map((x) => (x.record.kind === 'release' ? x.record.order_id : '')).filter(Boolean).sort(),
      ...(rec.kind === 'supersede' ? [rec.by] : []),
    ];
    acts.push({
      key: r.path,
      ...facts,
      detail: rec.kind === 'retirement' && releases.length ? `released ${orders.join(', ')}` : facts.detail,
      operator: actorOf(rec),
      orders,
      arrival_ms: r.arrivalMs,
      sort_ms: r.arrivalMs,
      sort_key: l ? `${l.path}\u0000${pad(l.entry.line)}` : r.path,
      writer_time: stampOf(rec).text,
      record,
      ledger,
      verified: record.verified && (ledger === null || ledger.problem === null),
      partial: l ? null : missingLine(rec, files),
      replaced_by: null,
    });
  }
  for (const [k, ls] of linesBy) {
    for (const l of ls) {
      if (used.has(l)) continue;
      const kind = l.entry.kind as LineKind;
      const ref = l.entry.reference === null ? null : canonicalName(l.entry.reference);
      const ledger = ledgerSide(l);
      // One file per signer, kind and subject: a later act of the same replaces this one's record.
      const replacedBy = (recordsBy.get(k) ?? []).filter((r) => compareTimestamps(stampOf(r.record), l.entry.created_at) > 0).sort((a, b) => compareTimestamps(stampOf(b.record), stampOf(a.record)))[0];
      acts.push({
        key: `${l.path}#${l.entry.line}`,
        act: kind,
        operator: lineSigner(l),
        order_id: kind === 'retire' ? null : ref,
        agent: kind === 'retire' ? ref : null,
        orders: kind === 'retire' || ref === null ? [] : [ref],
        detail: '',
        reason: '',
        arrival_ms: null,
        sort_ms: l.fileArrivalMs,
        sort_key: `${l.path}\u0000${pad(l.entry.line)}`,
        writer_time: l.entry.created_at.text,
        record: null,
        ledger,
        verified: ledger.problem === null,
        partial: replacedBy ? null : `ledger line written; its ${LINE_RECORD_NOUN[kind]} record is not in the folder`,
        replaced_by: replacedBy?.path ?? null,
      });
    }
  }
  return acts.sort(newestFirst);
}

/** Newest first: larger sort_ms, then larger sort_key. */
export function newestFirst(a: Pick<Act, 'sort_ms' | 'sort_key'>, b: Pick<Act, 'sort_ms' | 'sort_key'>): number {
  return b.sort_ms - a.sort_ms || (a.sort_key < b.sort_key ? 1 : a.sort_key > b.sort_key ? -1 : 0);
}

/** Whether an act passes the filters (operator and order compared canonically). */
export function actMatches(a: Act, f: ActFilters): boolean {
  if (f.operator && a.operator !== canonicalName(f.operator)) return false;
  if (f.act && a.act !== f.act) return false;
  if (f.order) {
    const o = canonicalName(f.order);
    if (!a.orders.includes(o)) return false;
  }
  return true;
}
