import 'server-only';
/**
 * A small channel writer: builds ferryman records exactly as docs/channel-format.md describes them and
 * writes them the way ferryman does: a temp file named with a leading dot in the
 * same directory, fsync, then rename (or link, for write-once kinds) into place.
 *
 * Used by the embedded demo (scenario.ts, fleet.ts) and by tests; the bytes go through
 * lib/fs/atomic-write.ts, the one atomic writer the operator actions use too. Every function is
 * synchronous: when it returns, the file is in place; when it throws, at most a dot-temp file
 * of its own was left behind (and it tries to remove that too), never a half-written record.
 *
 * Clocks. `atMs` parameters are instants on THIS machine's clock (ms since the Unix epoch,
 * default `Date.now()`). A record's timestamps are the WRITER's clock: `atMs +
 * identity.clockOffsetMs`, rendered as RFC 3339 UTC with `Z` and milliseconds
 * (`2026-11-20T09:05:00.000Z`). A simulated agent with a skewed clock passes its skew as
 * `clockOffsetMs`; nothing here ever compares clocks.
 *
 * Signing. A signed kind is built as a plain object, serialized to JSON,
 * parsed back with `parseRecord` (the reader's own parser: shape, names, timestamps, file name),
 * and its payload computed by `signingPayload` (the verifier's own function), so the payload
 * logic lives in one place and a record written here verifies by construction.
 *
 * Ownership. Every path written carries the writer's name (except
 * `review.<rev>.json` and `order.json`, which are write-once). Write-once kinds (order, claim,
 * result, review, recommendation, release, retirement) refuse to replace an existing file
 * (`ChannelWriteError` code `exists`); kinds ferryman rewrites (agent, heartbeat, interrupt,
 * interrupt acknowledgement, giveup, reopen, ack, ledger, and a release under ferry's own name
 * `release.<releaser>.json`) replace the writer's own file atomically.
 *
 * Deleting. ferry removes exactly two paths, both its own: its claim when it honours a kill or
 * pause (C/interrupt.rs `abandon_claim`) and its heartbeat when a run ends (C/lib.rs
 * `remove_heartbeat`, the run's `Drop`). {@link removeOwnClaim} and {@link removeOwnHeartbeat} do
 * that for the demo's simulated workers only; claimboard's operator code never deletes anything.
 *
 * Over 500 lines on purpose: one small writer per record kind the demo and the tests write, each beside its siblings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fsyncDir, writeAtomic, WriteError } from '../fs/atomic-write';
import { parseRecord, type SignedRecord } from '../ledger/records';
import { signingPayload, ledgerLinePayload } from '../ledger/payloads';
import { nodePublicKey, nodeSign } from '../index/disk/node-sign';
import { formatLocalInstant, parseTimestamp, rfc3339 } from '../ledger/time';
import { sha256Hex, sha256HexOfText } from '../ledger/canonical';
import { isSafeComponent, revisionComponent, type RecordKind } from '../ledger/names';
import { splitLines } from '../ledger/ledger-file';
import { hexToBytes } from '../ledger/hex';

// ---- identities and errors -----------------------------------------------------------------

/** Someone who writes into the channel: a worker agent or an operator. */
export interface Identity {
  /** The name as written in records and file names; must be a safe component. */
  readonly name: string;
  /** Ed25519 seed, 64 hex digits (what ferryman stores in `keys/<name>.key`). */
  readonly seedHex: string;
  /** The writer's clock minus this machine's clock, in ms (default 0): +3 h = 10_800_000. */
  readonly clockOffsetMs?: number;
}

/** Why a write was refused. */
export type ChannelWriteErrorCode =
  /** A write-once file is already there (someone, maybe this writer, wrote it before). */
  | 'exists'
  /** The order's directory `tasks/<id>` does not exist (write the order first). */
  | 'no_order'
  /** The fields do not make a valid record (unsafe name, bad timestamp, bad seed...). */
  | 'invalid_record';

/** A refused write. `code` says why; the message names the path. */
export class ChannelWriteError extends Error {
  override readonly name = 'ChannelWriteError';
  constructor(
    readonly code: ChannelWriteErrorCode,
    message: string,
  ) {
    super(message);
  }
}

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

// ---- clocks, keys ----------------------------------------------------------------------------

/**
 * The writer's timestamp for a local instant: `atMs + clockOffsetMs` as RFC 3339 UTC with
 * milliseconds and `Z` (e.g. `2026-11-20T12:05:00.000Z`). `atMs` defaults to `Date.now()`.
 */
export function writerTime(identity: Pick<Identity, 'clockOffsetMs'>, atMs: number = Date.now()): string {
  return formatLocalInstant(atMs + (identity.clockOffsetMs ?? 0));
}

/** A fresh Ed25519 seed from the OS's CSPRNG: 64 lowercase hex digits. */
export function generateSeed(): string {
  return randomBytes(32).toString('hex');
}

/** The public key (64 hex) of an identity's seed. Throws ChannelWriteError `invalid_record` on a bad seed. */
export function publicKeyOf(identity: Pick<Identity, 'seedHex'>): string {
  const seed = hexToBytes(identity.seedHex);
  if (!seed || seed.length !== 32) throw new ChannelWriteError('invalid_record', 'an Ed25519 seed is 64 hex digits');
  return nodePublicKey(identity.seedHex);
}

/**
 * Writes a seed file as ferryman keeps it: the hex seed and a newline, mode 0600. Refuses to
 * replace an existing file (ChannelWriteError `exists`); creates missing parent directories
 * (mode 0700). Keys never belong in the synced folder: callers write them outside it.
 */
export function writeKeyFile(file: string, seedHex: string): void {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new ChannelWriteError('invalid_record', 'an Ed25519 seed is 64 hex digits');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ChannelWriteError('exists', `${file} already exists; not overwritten`);
    throw e;
  }
  try {
    fs.writeSync(fd, seedHex.toLowerCase() + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(file, 0o600); // the umask may have narrowed it; never widened
}

/** Reads a seed file (hex seed, surrounding whitespace ignored). Throws when missing or not 64 hex digits. */
export function readKeyFile(file: string): string {
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ChannelWriteError('invalid_record', `${file} does not hold a 64-hex-digit seed`);
  return text.toLowerCase();
}

// ---- atomic file writes ------------------------------------------------------------------------

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

type FileKind = Exclude<RecordKind, 'ledger'>;
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

function requireName(what: string, v: string): void {
  if (!isSafeComponent(v)) throw new ChannelWriteError('invalid_record', `${what} ${JSON.stringify(v)} is not a safe name`);
}

/**
 * Validates `fields` as a record of `kind` at `rel` with the reader's own parser, signs it when
 * `signer` is given (the §3.1 payload of the parsed record), and writes it. Throws
 * ChannelWriteError `invalid_record` if the reader would refuse the record.
 */
function writeRecord(
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

const signedRecord = (
  root: string,
  kind: SignedKind,
  rel: string,
  fields: Record<string, unknown>,
  signer: Identity,
  mode?: 'replace' | 'once',
) => writeRecord(root, kind, rel, fields, signer, mode);

// ---- record writers ------------------------------------------------------------

/** A roster entry's fields. */
export interface AgentFields {
  readonly name: string;
  /** `operator` / `master` make an operator when none is configured; else e.g. `worker`. */
  readonly role: string;
  readonly capabilities?: readonly string[];
  /** 64 hex digits; absent: an entry without a key (its signed records are `unknown_signer`). */
  readonly publicKey?: string | null;
}

/** Writes `agents/<name>.json` (unsigned; pinned on first use). Replaces the writer's own entry. */
export function writeAgent(root: string, agent: AgentFields): Written {
  requireName('agent name', agent.name);
  return writeRecord(
    root,
    'agent',
    `agents/${agent.name}.json`,
    {
      name: agent.name,
      role: agent.role,
      capabilities: [...(agent.capabilities ?? [])],
      ...(agent.publicKey ? { public_key: agent.publicKey } : {}),
    },
    null,
  );
}

/** An order's own fields; `issued_by` and `created_at` come from the writer. */
export interface OrderFields {
  readonly id: string;
  readonly project_id: string;
  readonly assigned_to?: string | null;
  /** Any JSON value; its digest D(x) is signed. */
  readonly payload: unknown;
  readonly requires_review?: boolean;
  readonly requires_approval?: boolean;
  readonly depends_on?: readonly string[];
  readonly result_contract?: { readonly required: readonly string[] } | null;
}

/**
 * Writes `tasks/<id>/order.json`, signed by the issuer, creating the
 * order's directory. Write-once: `exists` if the order is already there.
 */
export function writeOrder(root: string, issuer: Identity, order: OrderFields, opts: At = {}): Written {
  requireName('order id', order.id);
  return signedRecord(
    root,
    'order',
    `tasks/${order.id}/order.json`,
    {
      id: order.id,
      project_id: order.project_id,
      issued_by: issuer.name,
      ...(order.assigned_to ? { assigned_to: order.assigned_to } : {}),
      created_at: writerTime(issuer, opts.atMs),
      payload: order.payload,
      requires_review: order.requires_review ?? false,
      requires_approval: order.requires_approval ?? false,
      ...(order.depends_on && order.depends_on.length > 0 ? { depends_on: [...order.depends_on] } : {}),
      ...(order.result_contract ? { result_contract: { required: [...order.result_contract.required] } } : {}),
    },
    issuer,
  );
}

/** Writes `tasks/<order>/claim.<agent>.json` (unsigned by design). Write-once. */
export function writeClaim(root: string, agent: Identity, orderId: string, opts: At = {}): Written {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return writeRecord(
    root,
    'claim',
    `tasks/${orderId}/claim.${agent.name}.json`,
    { order_id: orderId, agent: agent.name, claimed_at: writerTime(agent, opts.atMs) },
    null,
  );
}

/** A run's identity as ferryman's heartbeat carries it. */
export interface RunFields {
  /** Run id (ferryman: 32 hex digits). */
  readonly run: string;
  /** The run's process id (u32). */
  readonly pid: number;
}

/**
 * Rewrites `tasks/<order>/heartbeat.<agent>.json` (unsigned) atomically: the
 * rename gives the file a new ctime, which is what staleness measures.
 */
export function writeHeartbeat(root: string, agent: Identity, orderId: string, run: RunFields, opts: At = {}): Written {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return writeRecord(
    root,
    'heartbeat',
    `tasks/${orderId}/heartbeat.${agent.name}.json`,
    { order_id: orderId, agent: agent.name, run: run.run, pid: run.pid, at: writerTime(agent, opts.atMs) },
    null,
  );
}

/** Writes `tasks/<order>/result.<agent>.<rev:03>.json`, signed by the agent. Write-once. */
export function writeResult(
  root: string,
  agent: Identity,
  orderId: string,
  revision: number,
  payload: unknown,
  opts: At = {},
): Written {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return signedRecord(
    root,
    'result',
    `tasks/${orderId}/result.${agent.name}.${revisionComponent(revision)}.json`,
    { order_id: orderId, agent: agent.name, revision, submitted_at: writerTime(agent, opts.atMs), payload },
    agent,
  );
}

/**
 * Writes `tasks/<order>/review.<rev:03>.json`, signed by the reviewer:
 * `accepted` true accepts revision `revision`, false sends it back. Write-once.
 */
export function writeReview(
  root: string,
  reviewer: Identity,
  orderId: string,
  revision: number,
  accepted: boolean,
  notes?: string | null,
  opts: At = {},
): Written {
  requireName('order id', orderId);
  return signedRecord(
    root,
    'review',
    `tasks/${orderId}/review.${revisionComponent(revision)}.json`,
    {
      order_id: orderId,
      revision,
      reviewer: reviewer.name,
      reviewed_at: writerTime(reviewer, opts.atMs),
      accepted,
      ...(notes !== undefined && notes !== null ? { notes } : {}),
    },
    reviewer,
  );
}

/** Writes `tasks/<order>/recommendation.<reviewer>.<rev:03>.json`, signed by the reviewer (advisory). Write-once. */
export function writeRecommendation(
  root: string,
  reviewer: Identity,
  orderId: string,
  revision: number,
  accept: boolean,
  reasoning: string,
  opts: At = {},
): Written {
  requireName('reviewer', reviewer.name);
  requireName('order id', orderId);
  return signedRecord(
    root,
    'recommendation',
    `tasks/${orderId}/recommendation.${reviewer.name}.${revisionComponent(revision)}.json`,
    { order_id: orderId, revision, reviewer: reviewer.name, recommended_at: writerTime(reviewer, opts.atMs), accept, reasoning },
    reviewer,
  );
}

/**
 * Writes a release of `released`'s claim, signed by the releaser.
 * `fileName`: `claimboard` (default) writes `release.<releaser>.<released>.json`, write-once;
 * `ferryman` writes ferry's own `release.<releaser>.json` and, as ferry's `write_release` does
 * (C/lib.rs `write_task_file`), rewrites it when it is already there (a worker's second restart
 * releases again). The releaser must be the released agent itself or an authority (an operator,
 * or an `orchestrator` as `ferry channel retire` signs), else readers report `unauthorized_signer`.
 */
export function writeRelease(
  root: string,
  releaser: Identity,
  orderId: string,
  released: string,
  reason: string,
  opts: At & { readonly fileName?: 'claimboard' | 'ferryman' } = {},
): Written {
  requireName('releaser', releaser.name);
  requireName('released', released);
  requireName('order id', orderId);
  const base =
    opts.fileName === 'ferryman' ? `release.${releaser.name}.json` : `release.${releaser.name}.${released}.json`;
  return signedRecord(
    root,
    'release',
    `tasks/${orderId}/${base}`,
    { order_id: orderId, released, releaser: releaser.name, reason, at: writerTime(releaser, opts.atMs) },
    releaser,
    opts.fileName === 'ferryman' ? 'replace' : 'once',
  );
}

/** Writes `tasks/<order>/interrupt.<issued_by>.json` (kill / pause / steer), signed by an operator. Rewrites its own. */
export function writeInterrupt(
  root: string,
  operator: Identity,
  orderId: string,
  action: 'kill' | 'pause' | 'steer',
  note: string,
  opts: At = {},
): Written {
  requireName('operator', operator.name);
  requireName('order id', orderId);
  return signedRecord(
    root,
    'interrupt',
    `tasks/${orderId}/interrupt.${operator.name}.json`,
    { order_id: orderId, action, note, issued_by: operator.name, created_at: writerTime(operator, opts.atMs) },
    operator,
  );
}

/**
 * The writer's clock as chrono's `Utc::now().to_rfc3339()` renders it: UTC with `+00:00` and
 * 0/3/6/9 fraction digits (e.g. `2026-12-01T08:34:50.700+00:00`), what ferry writes in an
 * interrupt acknowledgement (C/interrupt.rs `acknowledge`) where every other kind has `Z`.
 */
export function ferryAckTime(identity: Pick<Identity, 'clockOffsetMs'>, atMs: number = Date.now()): string {
  const t = parseTimestamp(writerTime(identity, atMs));
  if (!t.ok) throw new ChannelWriteError('invalid_record', `acknowledged_at: ${t.reason}`);
  return rfc3339(t.value);
}

/**
 * Writes `tasks/<order>/interrupt.<issued_by>.<agent>.acked.json`: `agent` saw `issued_by`'s
 * interrupt when its run of the order started (C/interrupt.rs `acknowledge`). Unsigned; a
 * `json!` map, so the keys are alphabetical (`acknowledged_at`, `agent`, `issued_by`,
 * `order_id`) and `acknowledged_at` ends in `+00:00` ({@link ferryAckTime}). Rewrites its own.
 */
export function writeInterruptAck(root: string, agent: Identity, orderId: string, issuedBy: string, opts: At = {}): Written {
  requireName('agent', agent.name);
  requireName('issuer', issuedBy);
  requireName('order id', orderId);
  return writeRecord(
    root,
    'interrupt_ack',
    `tasks/${orderId}/interrupt.${issuedBy}.${agent.name}.acked.json`,
    { acknowledged_at: ferryAckTime(agent, opts.atMs), agent: agent.name, issued_by: issuedBy, order_id: orderId },
    null,
  );
}

function removeOwn(root: string, rel: string): boolean {
  const abs = path.join(root, ...rel.split('/'));
  try {
    fs.unlinkSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  fsyncDir(path.dirname(abs));
  return true;
}

/**
 * Deletes `tasks/<order>/claim.<agent>.json`, the agent's own claim, as a ferry worker does when
 * it honours a kill or pause (C/interrupt.rs `abandon_claim`). For the demo's simulated workers
 * only. Returns false when there was no such file (ferry ignores NotFound too).
 */
export function removeOwnClaim(root: string, agent: Identity, orderId: string): boolean {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return removeOwn(root, `tasks/${orderId}/claim.${agent.name}.json`);
}

/**
 * Deletes `tasks/<order>/heartbeat.<agent>.json`, the agent's own heartbeat, as ferry does when a
 * run ends (C/lib.rs `remove_heartbeat`); a run that dies leaves it behind. For the demo's
 * simulated workers only. Returns false when there was no such file.
 */
export function removeOwnHeartbeat(root: string, agent: Identity, orderId: string): boolean {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return removeOwn(root, `tasks/${orderId}/heartbeat.${agent.name}.json`);
}

/** A give-up's fields. */
export interface GiveupFields {
  /** The run that gave up (the heartbeat's `run`). */
  readonly run: string;
  readonly reason: string;
  /** Attempts made (u32). */
  readonly attempts: number;
}

/**
 * Writes `tasks/<order>/giveup.<agent>.json`, signed by the holder.
 * Rewriting it replaces it. The returned `digest` is what `giveup:<digest>` targets name.
 */
export function writeGiveup(root: string, agent: Identity, orderId: string, giveup: GiveupFields, opts: At = {}): Written {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return signedRecord(
    root,
    'giveup',
    `tasks/${orderId}/giveup.${agent.name}.json`,
    {
      order_id: orderId,
      agent: agent.name,
      run: giveup.run,
      reason: giveup.reason,
      attempts: giveup.attempts,
      at: writerTime(agent, opts.atMs),
    },
    agent,
  );
}

/**
 * Writes `tasks/<order>/ack.<operator>.json` acknowledging the give-up named by `target`
 * (`giveup:<digest>`), signed by an operator: the order is closed.
 * One per operator per order: a later ack rewrites it.
 */
export function writeAck(root: string, operator: Identity, orderId: string, target: string, note: string, opts: At = {}): Written {
  requireName('operator', operator.name);
  requireName('order id', orderId);
  return signedRecord(
    root,
    'ack',
    `tasks/${orderId}/ack.${operator.name}.json`,
    { order_id: orderId, operator: operator.name, target, note, at: writerTime(operator, opts.atMs) },
    operator,
  );
}

/**
 * Writes `tasks/<order>/reopen.<operator>.json`: the terminal named by `target`
 * (`result:<rev>`, `review:<rev>` or `giveup:<digest>`) no longer holds; signed by an operator
 *. One per operator per order: a later reopen rewrites it.
 */
export function writeReopen(root: string, operator: Identity, orderId: string, target: string, reason: string, opts: At = {}): Written {
  requireName('operator', operator.name);
  requireName('order id', orderId);
  return signedRecord(
    root,
    'reopen',
    `tasks/${orderId}/reopen.${operator.name}.json`,
    { order_id: orderId, operator: operator.name, target, reason, at: writerTime(operator, opts.atMs) },
    operator,
  );
}

/**
 * Writes `retirements/<agent>.<operator>.json`, signed by an operator (docs/channel-format.md,
 * extension). The caller also writes a release (reason `retired`) for each order the agent
 * holds by an active claim with no result, as `ferry channel retire` does. Write-once.
 */
export function writeRetirement(root: string, operator: Identity, agent: string, reason: string, opts: At = {}): Written {
  requireName('operator', operator.name);
  requireName('agent', agent);
  return signedRecord(
    root,
    'retirement',
    `retirements/${agent}.${operator.name}.json`,
    { agent, operator: operator.name, reason, at: writerTime(operator, opts.atMs) },
    operator,
  );
}

// ---- ledger lines ---------------------------------------------------------------

/** A ledger line's own fields; `actor` defaults to the signer, `created_at` to the writer's clock. */
export interface LedgerLineFields {
  /** e.g. `order`, `claim`, `result`, `review`, `release`, `retire`, `reopen`, `ack`. */
  readonly kind: string;
  readonly summary: string;
  /** Usually the order id; omitted when absent. */
  readonly reference?: string | null;
  readonly actor?: string;
}

/**
 * Appends one signed line to `ledger.<signer>.jsonl`: `prev` is the hex
 * SHA-256 of the file's last line's exact text (empty for the first line), the signature
 * covers `ledgerLinePayload`. The whole file is rewritten through a dot-temp file and a rename,
 * so a reader never sees half a line. Only the signer's own file is ever written.
 * Returns the new file (its `bytes` are the whole file).
 */
export function appendLedgerLine(root: string, signer: Identity, line: LedgerLineFields, opts: At = {}): Written {
  requireName('signer', signer.name);
  const rel = `ledger.${signer.name}.jsonl`;
  const abs = path.join(root, rel);
  let previous = '';
  try {
    previous = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const lines = splitLines(previous);
  const last = lines.length > 0 ? (lines[lines.length - 1] ?? null) : null;
  const prev = last === null ? '' : sha256HexOfText(last);
  const createdAt = writerTime(signer, opts.atMs);
  const created = parseTimestamp(createdAt);
  if (!created.ok) throw new ChannelWriteError('invalid_record', `created_at: ${created.reason}`);
  const actor = line.actor ?? signer.name;
  const reference = line.reference ?? null;
  let signature: string;
  try {
    signature = nodeSign(
      signer.seedHex,
      ledgerLinePayload({ kind: line.kind, actor, summary: line.summary, reference, created_at: created.value, prev }),
    );
  } catch (e) {
    throw new ChannelWriteError('invalid_record', `${signer.name}: ${(e as Error).message}`);
  }
  const text = JSON.stringify({
    kind: line.kind,
    actor,
    summary: line.summary,
    ...(reference !== null ? { reference } : {}),
    created_at: createdAt,
    prev,
    signed_by: signer.name,
    signature,
  });
  const head = previous.length > 0 && !previous.endsWith('\n') ? previous + '\n' : previous;
  const bytes = enc.encode(head + text + '\n');
  fs.mkdirSync(root, { recursive: true });
  writeFileAtomic(abs, bytes, 'replace');
  return { rel, path: abs, bytes, digest: sha256Hex(bytes) };
}
