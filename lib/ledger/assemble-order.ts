/**
 * One order's folder verified and assembled: each signed record checked against the roster, the
 * order.json that makes the folder an order, and every record sorted into the folder's lists
 * (claims, heartbeats, results, ...) that derive.ts reads. channel.ts does this for every folder
 * of a channel; the index does it one folder at a time.
 */
import { canonicalName, isSafeComponent } from './names';
import { baseName, FERRY_READS, type FileOutcome, type Problem, type ProblemCode } from './entry';
import type { LedgerRecord, SignedRecord } from './records';
import { checkSignature, verifyRecord, type Ed25519Verify, type Roster, type SignatureMemo } from './verify';
import { signingPayload } from './payloads';
import type { Arrived, FolderProblem, OrderFolder } from './derive';

/** Whether a record kind carries a signature (every kind but agent, claim, heartbeat and interrupt acknowledgement). */
const isSigned = (r: LedgerRecord): r is SignedRecord =>
  r.kind !== 'agent' && r.kind !== 'claim' && r.kind !== 'heartbeat' && r.kind !== 'interrupt_ack';

/** The writer of a record for "files of h", or null when it does not count. */
export function writerOf(r: LedgerRecord): string | null {
  switch (r.kind) {
    case 'claim':
    case 'heartbeat':
    case 'result':
    case 'giveup':
      return r.agent;
    case 'release':
      return r.signed_by ? canonicalName(r.signed_by) : null;
    case 'agent':
    case 'order':
    case 'review':
    case 'recommendation':
    case 'interrupt':
    case 'reopen':
    case 'ack':
    case 'supersede':
    case 'retirement':
    case 'master':
    case 'grant':
      return null;
    case 'interrupt_ack':
      return r.agent;
  }
}

/** One order's folder, assembled from its files' outcomes and verified. */
export interface AssembledOrder {
  readonly folder: OrderFolder;
  /** Every outcome of the folder after verification. */
  readonly files: readonly FileOutcome[];
  /** Problem rows of the folder (with `order_id`). */
  readonly problems: readonly Problem[];
  readonly interrupts: readonly Arrived<Extract<LedgerRecord, { kind: 'interrupt' }>>[];
  readonly recommendations: readonly Arrived<Extract<LedgerRecord, { kind: 'recommendation' }>>[];
  /** (writer, arrival ms) of every file of the folder that counts as written by an agent. */
  readonly writers: readonly (readonly [string, number])[];
}

/**
 * Verifies and assembles one `tasks/<dir>` folder. Returns the order, or
 * the one `invalid` problem at `tasks/<dir>` when it has no readable order.json (its files are
 * then not read). `outcomes` are the folder's files as readEntry made them.
 */
export function assembleOrder(
  dir: string,
  outcomes: readonly FileOutcome[],
  roster: Roster,
  options: { readonly verify: Ed25519Verify; readonly memo?: SignatureMemo },
): { readonly order: AssembledOrder } | { readonly invalid: Problem } {
  const memo = (path: string) => (options.memo ? { memo: options.memo, path } : undefined);
  const verified: FileOutcome[] = outcomes.map((o) => {
    if (o.status === 'problem' && o.ferry && isSigned(o.ferry)) {
      // Misplaced but signed: ferry reads it only when the signature verifies (whoever signed).
      const r = o.ferry;
      const ok = checkSignature(r.signed_by, r.signature, () => signingPayload(r), roster, options.verify, memo(o.path)) === 'valid';
      if (ok) return o;
      const { ferry: _dropped, ...rest } = o;
      return rest;
    }
    if (o.status !== 'record' || !isSigned(o.record)) return o;
    const bad = verifyRecord(o.record, roster, options.verify, memo(o.path));
    if (!bad) return o;
    const base = { path: o.path, arrivalMs: o.arrivalMs, orderId: o.orderId, status: 'problem' as const, problem: bad.problem, detail: bad.detail, kind: o.record.kind };
    // A valid signature by someone claimboard would not authorise: ferry honours it (any roster member).
    return bad.problem === 'unauthorized_signer' && FERRY_READS.has(o.record.kind) ? { ...base, ferry: o.record } : base;
  });
  const files = verified.filter((f) => f.status !== 'skip');
  const orderFile = files.find((f) => baseName(f.path) === 'order.json');
  const orderRecord =
    orderFile?.status === 'record' && orderFile.record.kind === 'order'
      ? orderFile.record
      : orderFile?.status === 'problem' && isSignatureProblem(orderFile.problem)
        ? reparseOrder(outcomes, orderFile.path)
        : null;
  if (!isSafeComponent(dir) || !orderFile || !orderRecord) {
    const why = !isSafeComponent(dir)
      ? `"${dir}" is not a safe order id`
      : !orderFile
        ? 'no order.json: not an order, its files are not read'
        : `order.json is unreadable (${orderFile.status === 'problem' ? `${orderFile.problem}: ${orderFile.detail}` : 'not an order'}); its files are not read`;
    return { invalid: { path: `tasks/${dir}`, problem: 'invalid', detail: why } };
  }
  const folder = {
    order: { record: orderRecord, arrivalMs: orderFile.arrivalMs, path: orderFile.path },
    claims: [] as Arrived<Extract<LedgerRecord, { kind: 'claim' }>>[],
    heartbeats: [] as Arrived<Extract<LedgerRecord, { kind: 'heartbeat' }>>[],
    results: [] as Arrived<Extract<LedgerRecord, { kind: 'result' }>>[],
    reviews: [] as Arrived<Extract<LedgerRecord, { kind: 'review' }>>[],
    releases: [] as Arrived<Extract<LedgerRecord, { kind: 'release' }>>[],
    giveups: [] as Arrived<Extract<LedgerRecord, { kind: 'giveup' }>>[],
    reopens: [] as Arrived<Extract<LedgerRecord, { kind: 'reopen' }>>[],
    acks: [] as Arrived<Extract<LedgerRecord, { kind: 'ack' }>>[],
    interruptAcks: [] as Arrived<Extract<LedgerRecord, { kind: 'interrupt_ack' }>>[],
    supersedes: [] as Arrived<Extract<LedgerRecord, { kind: 'supersede' }>>[],
    interrupts: [] as Arrived<Extract<LedgerRecord, { kind: 'interrupt' }>>[],
    problems: [] as FolderProblem[],
    problemCount: 0,
    conflictCount: 0,
  };
  const problems: Problem[] = [];
  // Outcomes by path, built once: a folder of many problem files is linear, not quadratic.
  const byPath = new Map<string, FileOutcome>();
  for (const o of outcomes) byPath.set(o.path, o);
  const writers: [string, number][] = [];
  const interrupts: Arrived<Extract<LedgerRecord, { kind: 'interrupt' }>>[] = [];
  const recommendations: Arrived<Extract<LedgerRecord, { kind: 'recommendation' }>>[] = [];
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    let r: LedgerRecord;
    if (f.status === 'problem') {
      problems.push({ path: f.path, problem: f.problem, detail: f.detail, order_id: orderRecord.id });
      folder.problems.push({ path: f.path, problem: f.problem, detail: f.detail, kind: f.kind, ferry_reads: f.ferry !== undefined, signer: signerOf(byPath.get(f.path)) });
      if (f.problem === 'sync_conflict') folder.conflictCount++;
      else folder.problemCount++;
      if (!f.ferry) continue;
      r = f.ferry;
    } else if (f.status !== 'record') continue;
    else r = f.record;
    const w = writerOf(r);
    if (w) writers.push([w, f.arrivalMs]);
    // Each entry written out (not `{ ...a, record }`): the spread cost more than the rest of assembling (cold index).
    const at = f.arrivalMs;
    const path = f.path;
    switch (r.kind) {
      case 'claim':
        folder.claims.push({ arrivalMs: at, path, record: r });
        break;
      case 'heartbeat':
        folder.heartbeats.push({ arrivalMs: at, path, record: r });
        break;
      case 'result':
        folder.results.push({ arrivalMs: at, path, record: r });
        break;
      case 'review':
        folder.reviews.push({ arrivalMs: at, path, record: r });
        break;
      case 'release':
        folder.releases.push({ arrivalMs: at, path, record: r });
        break;
      case 'giveup':
        folder.giveups.push({ arrivalMs: at, path, record: r });
        break;
      case 'reopen':
        folder.reopens.push({ arrivalMs: at, path, record: r });
        break;
      case 'ack':
        folder.acks.push({ arrivalMs: at, path, record: r });
        break;
      case 'interrupt':
        interrupts.push({ arrivalMs: at, path, record: r });
        folder.interrupts.push({ arrivalMs: at, path, record: r });
        break;
      case 'interrupt_ack':
        folder.interruptAcks.push({ arrivalMs: at, path, record: r });
        break;
      case 'supersede':
        folder.supersedes.push({ arrivalMs: at, path, record: r });
        break;
      case 'recommendation':
        recommendations.push({ arrivalMs: at, path, record: r });
        break;
      case 'order':
      case 'agent':
      case 'retirement':
      case 'master':
      case 'grant':
        break;
    }
  }
  return { order: { folder, files, problems, interrupts, recommendations, writers } };
}

/** Who signed a file as written (for a problem's explanation), or null. */
function signerOf(o: FileOutcome | undefined): string | null {
  const r = o?.status === 'record' ? o.record : o?.status === 'problem' ? o.ferry : undefined;
  return r && 'signed_by' in r && r.signed_by ? canonicalName(r.signed_by) : null;
}

/** Whether a problem is about the signature only (the record itself parsed). */
function isSignatureProblem(p: ProblemCode): boolean {
  return p === 'unsigned' || p === 'unknown_signer' || p === 'invalid_signature' || p === 'unauthorized_signer';
}

/** The parsed order behind a signature problem: the order exists, its card is flagged `bad_record`. */
function reparseOrder(outcomes: readonly FileOutcome[], path: string) {
  const o = outcomes.find((x) => x.path === path);
  return o?.status === 'record' && o.record.kind === 'order' ? o.record : null;
}
