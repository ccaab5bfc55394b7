/**
 * One entry of a channel folder into what it is: a record, a problem row, a
 * ledger file, or nothing claimboard reads. Pure: bytes in, outcome out; the roster's checks
 * (signatures, authority) come later, in channel.ts.
 */
import { classifyPath, isSafeComponent, MAX_RECORD_BYTES, type RecordKind } from './names';
import { parseRecord, type LedgerRecord } from './records';
import { ledgerFileSigner } from './ledger-file';

/**
 * The kinds ferry's `read_task` reads by content, whatever the file's name or `order_id` says
 * (C/lib.rs `read_task`): claims and heartbeats always, results, reviews, recommendations and
 * releases when their signature verifies against the roster, whoever signed.
 */
export const FERRY_READS: ReadonlySet<LedgerRecord['kind']> = new Set<LedgerRecord['kind']>([
  'claim',
  'heartbeat',
  'result',
  'review',
  'recommendation',
  'release',
]);

/** One entry of the channel folder as listed on this machine. */
export interface ChannelEntry {
  /** Channel-relative, `/`-separated. */
  readonly path: string;
  readonly type: 'file' | 'symlink' | 'dir' | 'other';
  /** Size in bytes (files). */
  readonly size: number;
  /** When the current content arrived here: the file's ctime, ms, this machine's clock. */
  readonly arrivalMs: number;
  /** The content, for regular files of at most MAX_RECORD_BYTES; null otherwise. */
  readonly bytes: Uint8Array | null;
  /** A directory whose entries were not read, and why (not listable, too many entries): one problem row. */
  readonly unread?: string;
}

/** Problem codes. */
export type ProblemCode =
  | 'symlink'
  | 'too_large'
  | 'sync_conflict'
  | 'invalid'
  | 'name_mismatch'
  | 'unsigned'
  | 'unknown_signer'
  | 'invalid_signature'
  | 'unauthorized_signer'
  | 'key_changed'
  | 'ledger_broken';

/** A problem row. */
export interface Problem {
  readonly path: string;
  readonly problem: ProblemCode;
  readonly detail: string;
  readonly line?: number;
  /** The order whose folder holds the file, when it is in one (not part of the JSON contract). */
  readonly order_id?: string;
}

/**
 * What one file is after reading it without the roster: a record, a
 * problem, or nothing claimboard reads.
 */
export type FileOutcome =
  | { readonly path: string; readonly arrivalMs: number; readonly orderId: string | null; readonly status: 'record'; readonly record: LedgerRecord }
  | {
      readonly path: string;
      readonly arrivalMs: number;
      readonly orderId: string | null;
      readonly status: 'problem';
      readonly problem: ProblemCode;
      readonly detail: string;
      readonly kind: RecordKind | null;
      /**
       * The record as the real ferry still reads it despite the problem (a misnamed claim, a
       * release by a worker of another's claim): it counts for state, and the problem row
       * flags the order (docs/channel-format.md "ferry's reading").
       */
      readonly ferry?: LedgerRecord;
    }
  | { readonly path: string; readonly arrivalMs: number; readonly orderId: string | null; readonly status: 'ledger'; readonly text: string | null; readonly signer: string | null }
  | { readonly path: string; readonly arrivalMs: number; readonly orderId: string | null; readonly status: 'skip' };

/** The last component of a channel-relative path. */
export const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * Reads one entry into a FileOutcome (docs/channel-format.md problem order: `symlink`, `too_large`,
 * `sync_conflict`, `invalid`, `name_mismatch`; signature codes come later with the roster).
 * Never throws.
 */
export function readEntry(entry: ChannelEntry): FileOutcome {
  const cls = classifyPath(entry.path);
  const common = { path: entry.path, arrivalMs: entry.arrivalMs };
  switch (cls.class) {
    case 'skip':
      return { ...common, orderId: null, status: 'skip' };
    case 'layout_dir':
      // agents/, retirements/, tasks/: a folder of the layout; anything else there is reported, never followed.
      if (entry.type === 'dir') return { ...common, orderId: null, status: 'skip' };
      return {
        ...common,
        orderId: null,
        status: 'problem',
        problem: entry.type === 'symlink' ? 'symlink' : 'invalid',
        detail: entry.type === 'symlink' ? `a symlink where the ${entry.path}/ folder belongs; not followed` : `not a folder where the ${entry.path}/ folder belongs`,
        kind: null,
      };
    case 'task_dir_file':
      if (entry.type === 'dir') return { ...common, orderId: null, status: 'skip' };
      return {
        ...common,
        orderId: null,
        status: 'problem',
        problem: entry.type === 'symlink' ? 'symlink' : 'invalid',
        detail:
          entry.type === 'symlink'
            ? 'a symlink where an order directory belongs; not followed'
            : 'a file where an order directory belongs',
        kind: null,
      };
    case 'conflict': {
      const orderId = cls.orderId;
      if (entry.type === 'dir') return { ...common, orderId, status: 'skip' };
      const code = entry.type === 'symlink' ? 'symlink' : entry.size > MAX_RECORD_BYTES ? 'too_large' : 'sync_conflict';
      return {
        ...common,
        orderId,
        status: 'problem',
        problem: code,
        detail:
          code === 'sync_conflict'
            ? 'Syncthing conflict copy: two machines wrote this path; never read as a record'
            : code === 'symlink'
              ? 'symlink; not followed'
              : `${entry.size} bytes, over the 1 MiB limit`,
        kind: null,
      };
    }
    case 'record': {
      const orderId = cls.orderId;
      const problem = (code: ProblemCode, detail: string): FileOutcome => ({
        ...common,
        orderId,
        status: 'problem',
        problem: code,
        detail,
        kind: cls.kind,
      });
      if (entry.type === 'symlink') return problem('symlink', 'symlink; not followed');
      if (entry.type === 'dir') return problem('invalid', 'a directory where a record file belongs');
      if (entry.type === 'other') return problem('invalid', 'not a regular file');
      if (entry.size > MAX_RECORD_BYTES || (entry.bytes && entry.bytes.length > MAX_RECORD_BYTES)) {
        return problem('too_large', `${entry.size} bytes, over the 1 MiB limit; not parsed`);
      }
      if (!entry.bytes) return problem('invalid', entry.path.includes('\uFFFD') ? 'unreadable: its name is not valid UTF-8' : 'unreadable');
      if (cls.kind === 'ledger') {
        const signer = ledgerFileSigner(baseName(entry.path));
        if (signer === undefined) return problem('invalid', 'not a valid ledger file name (ledger.<signer>.jsonl)');
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(entry.bytes);
        } catch {
          return { ...common, orderId, status: 'ledger', text: null, signer };
        }
        return { ...common, orderId, status: 'ledger', text, signer };
      }
      if (orderId !== null && !isSafeComponent(orderId)) {
        return problem('invalid', `order directory "${orderId}" is not a safe name`);
      }
      const parsed = parseRecord(cls.kind, entry.bytes, baseName(entry.path), orderId);
      if (!parsed.ok) {
        const p = problem(parsed.problem, parsed.detail);
        return parsed.misplaced && FERRY_READS.has(parsed.misplaced.kind) && p.status === 'problem' ? { ...p, ferry: parsed.misplaced } : p;
      }
      // Written out, not spread from `common`: the spread cost ~3 µs a record on a cold index.
      return { path: entry.path, arrivalMs: entry.arrivalMs, orderId, status: 'record', record: parsed.record };
    }
  }
}

