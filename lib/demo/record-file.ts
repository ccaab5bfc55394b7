import 'server-only';
/**
 * One record file put in place: built as a plain object, checked with the reader's own parser,
 * signed, and written atomically, the way ferryman writes (a temp file named with a leading dot in
 * the same directory, fsync, then rename, or link for write-once kinds). The bytes go through
 * lib/fs/atomic-write.ts, the one atomic writer the operator actions use too.
 *
 * Signing. A signed kind is serialized to JSON, parsed back with `parseRecord` (shape, names,
 * timestamps, file name), and its payload computed by `signingPayload` (the verifier's own
 * function), so the payload logic lives in one place and a record written here verifies by
 * construction.
 *
 * Ownership. Write-once kinds (order, claim, result, review, recommendation, release,
 * retirement) refuse to replace an existing file (ChannelWriteError `exists`); every other kind
 * is rewritten atomically by its own writer, whose name its path carries.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic, WriteError } from '../fs/atomic-write';
import { parseRecord, type SignedRecord } from '../ledger/records';
import { signingPayload } from '../ledger/payloads';
import { nodeSign } from '../index/disk/node-sign';
import { sha256Hex } from '../ledger/canonical';
import { isSafeComponent, type RecordKind } from '../ledger/names';
import type { Identity } from './identity';
import { ChannelWriteError } from './write-error';

/** What a write put on disk. */
export interface Written {
  /** Channel-relative path, `/`-separated (e.g. `tasks/build-api-1042/claim.fang.json`). */
  readonly rel: string;
  /** Absolute path. */
  readonly path: string;
  /** The exact bytes written (for a ledger file: the whole file). */
  readonly bytes: Uint8Array;
  /** Lowercase hex SHA-256 of `bytes`: a give-up's digest for `giveup:<digest>` targets. */
  readonly digest: string;
}

/** Options common to every write: when the writer acts, on this machine's clock. */
export interface At {
  /** This machine's clock, ms since the epoch (default `Date.now()`); the writer's offset is added. */
  readonly atMs?: number;
}

const enc = new TextEncoder();

/**
 * Writes `bytes` at `abs` atomically through lib/fs/atomic-write.ts, the one
 * writer: `.<base>.<random>.tmp` in the same directory (skipped by every reader),
 * fsync, then `rename` (replace) or `link` (write-once: fails with ChannelWriteError `exists` if
 * the path is taken, leaving it untouched; where the file system has no hard links, checked and
 * renamed, since the demo is alone on its paths). The temp file is removed on
 * every path out. Other refusals are lib/fs's WriteError (`io`: the disk's errno in the message).
 */
export function writeFileAtomic(abs: string, bytes: Uint8Array, mode: 'replace' | 'once'): void {
  try {
    writeAtomic(abs, bytes, mode === 'once' ? 'new' : 'replace', { withoutHardLinks: 'check-then-rename' });
  } catch (e) {
    if (e instanceof WriteError && e.code === 'exists') {
      throw new ChannelWriteError('exists', mode === 'once' ? `${abs} already exists; a write-once record is never replaced` : e.message);
    }
    throw e;
  }
}

/** Pretty JSON as serde_json's `to_vec_pretty` writes it (2-space indent, no trailing newline). */
function jsonBytes(value: unknown): Uint8Array {
  return enc.encode(JSON.stringify(value, null, 2));
}

/** The kinds kept one per file (a ledger is a file of lines: ledger-line.ts). */
type FileKind = Exclude<RecordKind, 'ledger'>;
/** The file kinds that carry a signature. */
type SignedKind = Exclude<FileKind, 'agent' | 'claim' | 'heartbeat' | 'interrupt_ack'>;

/** Kinds ferryman writes once; every other kind is rewritten in place by its own writer. */
const WRITE_ONCE: ReadonlySet<FileKind> = new Set<FileKind>([
  'order',
  'claim',
  'result',
  'review',
  'recommendation',
  'release',
  'retirement',
]);

/** Throws ChannelWriteError `invalid_record` unless `v` is a safe name (one path component). */
export function requireName(what: string, v: string): void {
  if (!isSafeComponent(v)) throw new ChannelWriteError('invalid_record', `${what} ${JSON.stringify(v)} is not a safe name`);
}

/**
 * Validates `fields` as a record of `kind` at `rel` with the reader's own parser, signs it when
 * `signer` is given (the §3.1 payload of the parsed record), and writes it. Throws
 * ChannelWriteError `invalid_record` if the reader would refuse the record.
 */
export function writeRecord(
  root: string,
  kind: FileKind,
  rel: string,
  fields: Record<string, unknown>,
  signer: Identity | null,
  mode: 'replace' | 'once' = WRITE_ONCE.has(kind) ? 'once' : 'replace',
): Written {
  const parts = rel.split('/');
  const base = parts[parts.length - 1] ?? rel;
  const orderId = parts[0] === 'tasks' ? (parts[1] ?? null) : null;
  const parsed = parseRecord(kind, jsonBytes(fields), base, orderId);
  if (!parsed.ok) throw new ChannelWriteError('invalid_record', `${rel}: ${parsed.problem}: ${parsed.detail}`);
  let value: Record<string, unknown> = fields;
  if (signer) {
    requireName('signer', signer.name);
    const payload = signingPayload(parsed.record as SignedRecord);
    let signature: string;
    try {
      signature = nodeSign(signer.seedHex, payload);
    } catch (e) {
      throw new ChannelWriteError('invalid_record', `${signer.name}: ${(e as Error).message}`);
    }
    value = { ...fields, signed_by: signer.name, signature };
  }
  const abs = path.join(root, ...parts);
  const dir = path.dirname(abs);
  if (orderId !== null && kind !== 'order' && !fs.existsSync(path.join(root, 'tasks', orderId))) {
    throw new ChannelWriteError('no_order', `no order ${orderId} in ${root} (tasks/${orderId} does not exist)`);
  }
  fs.mkdirSync(dir, { recursive: true });
  const bytes = jsonBytes(value);
  writeFileAtomic(abs, bytes, mode);
  return { rel, path: abs, bytes, digest: sha256Hex(bytes) };
}

/** writeRecord for a signed kind: its signer is required. */
export const signedRecord = (
  root: string,
  kind: SignedKind,
  rel: string,
  fields: Record<string, unknown>,
  signer: Identity,
  mode?: 'replace' | 'once',
) => writeRecord(root, kind, rel, fields, signer, mode);
