import 'server-only';
/**
 * The demo's channel writer: one small writer per record kind, building ferryman records exactly
 * as docs/channel-format.md describes them. Used by the embedded demo (scenario.ts, fleet.ts) and
 * by tests. Every function is synchronous: when it returns, the file is in place; when it throws,
 * at most a dot-temp file of its own was left behind (and it tries to remove that too), never a
 * half-written record.
 *
 * Beside it: who writes and on which clock (identity.ts), how one record file is checked, signed
 * and placed (record-file.ts), the writer's ledger (ledger-line.ts), the two deletions ferry makes
 * of its own files (remove-own.ts), and why a write is refused (write-error.ts).
 *
 * Every path written carries the writer's name, except `review.<rev>.json` and `order.json`, which
 * are write-once; a release under ferry's own name `release.<releaser>.json` is rewritten in place.
 */
import { parseTimestamp, rfc3339 } from '../ledger/time';
import { revisionComponent } from '../ledger/names';
import { writerTime, type Identity } from './identity';
import { requireName, signedRecord, writeRecord, type At, type Written } from './record-file';
import { ChannelWriteError } from './write-error';

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
