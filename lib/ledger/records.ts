/**
 * Record schemas and strict parsing (LEDGER.md §3, §4).
 *
 * A record file is strict JSON (json.ts), then checked against its kind's shape with zod, its
 * timestamps parsed losslessly (time.ts), its names checked as safe components, its
 * `order_id` checked against its directory, and its file name checked against the one its
 * fields compute. Unknown extra fields are ignored, as serde does.
 */
import { z } from 'zod';
import { type JsonNode, objectGet, parseStrictJson, toPlain, payloadDigest, sha256Hex } from './json';
import { parseTimestamp, type Timestamp } from './time';
import {
  canonicalName,
  fileNameMatches,
  isSafeComponent,
  type RecordKind,
  revisionComponent,
} from './names';

/** Signature fields carried by signed kinds; both optional (absent means `unsigned`). */
export interface Signed {
  readonly signed_by: string | null;
  readonly signature: string | null;
  /** The shaped fields exactly as written (names not folded): what the signature covers (§3.1). */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface AgentRecord {
  readonly kind: 'agent';
  /** Canonical name. */
  readonly name: string;
  /** The name exactly as written (case variants are folded by the roster, LEDGER.md §5). */
  readonly name_as_written: string;
  readonly role: string;
  readonly capabilities: readonly string[];
  readonly public_key: string | null;
}
export interface OrderRecord extends Signed {
  readonly kind: 'order';
  readonly id: string;
  readonly project_id: string;
  readonly issued_by: string;
  readonly assigned_to: string | null;
  readonly created_at: Timestamp;
  readonly payload_digest: string;
  readonly requires_review: boolean;
  readonly requires_approval: boolean;
  readonly depends_on: readonly string[];
  readonly result_contract: { readonly required: readonly string[] } | null;
  /**
   * The order this one was issued to replace, as its issuer wrote it (claimboard's supersede; not
   * covered by the signature, ferry ignores it; shown only beside the old order's signed supersede record).
   */
  readonly supersedes: string | null;
  /** The order's payload as a plain value, for display only. */
  readonly payload: unknown;
}
export interface ClaimRecord {
  readonly kind: 'claim';
  readonly order_id: string;
  readonly agent: string;
  readonly claimed_at: Timestamp;
}
export interface HeartbeatRecord {
  readonly kind: 'heartbeat';
  readonly order_id: string;
  readonly agent: string;
  readonly run: string;
  readonly pid: number;
  readonly at: Timestamp;
}
export interface ResultRecord extends Signed {
  readonly kind: 'result';
  readonly order_id: string;
  readonly agent: string;
  readonly revision: number;
  readonly submitted_at: Timestamp;
  readonly payload_digest: string;
  readonly payload: unknown;
}
export interface ReviewRecord extends Signed {
  readonly kind: 'review';
  readonly order_id: string;
  readonly revision: number;
  readonly reviewer: string;
  readonly reviewed_at: Timestamp;
  readonly accepted: boolean;
  readonly notes: string | null;
}
export interface RecommendationRecord extends Signed {
  readonly kind: 'recommendation';
  readonly order_id: string;
  readonly revision: number;
  readonly reviewer: string;
  readonly recommended_at: Timestamp;
  readonly accept: boolean;
  readonly reasoning: string;
}
export interface ReleaseRecord extends Signed {
  readonly kind: 'release';
  readonly order_id: string;
  readonly released: string;
  readonly releaser: string;
  readonly reason: string;
  readonly at: Timestamp;
}
export type InterruptAction = 'kill' | 'pause' | 'steer';
export interface InterruptRecord extends Signed {
  readonly kind: 'interrupt';
  readonly order_id: string;
  readonly action: InterruptAction;
  readonly note: string;
  readonly issued_by: string;
  readonly created_at: Timestamp;
}
export interface GiveupRecord extends Signed {
  readonly kind: 'giveup';
  readonly order_id: string;
  readonly agent: string;
  readonly run: string;
  readonly reason: string;
  readonly attempts: number;
  readonly at: Timestamp;
  /** sha256 hex of the file's bytes: what `giveup:<digest>` targets name (LEDGER.md §4). */
  readonly file_digest: string;
}
export interface ReopenRecord extends Signed {
  readonly kind: 'reopen';
  readonly order_id: string;
  readonly operator: string;
  readonly target: string;
  readonly reason: string;
  readonly at: Timestamp;
}
export interface AckRecord extends Signed {
  readonly kind: 'ack';
  readonly order_id: string;
  readonly operator: string;
  readonly target: string;
  readonly note: string;
  readonly at: Timestamp;
}
export interface RetirementRecord extends Signed {
  readonly kind: 'retirement';
  readonly agent: string;
  readonly operator: string;
  readonly reason: string;
  readonly at: Timestamp;
}

/**
 * ferry's acknowledgement of an interrupt (`interrupt.<issued_by>.<agent>.acked.json`, unsigned,
 * C/interrupt.rs `acknowledge`): `agent` saw the interrupt and acted on it when its run started.
 */
export interface InterruptAckRecord {
  readonly kind: 'interrupt_ack';
  readonly order_id: string;
  readonly issued_by: string;
  readonly agent: string;
  /** The agent's clock (ferry writes `+00:00`). */
  readonly acknowledged_at: Timestamp;
}
/**
 * supersede (extension) `supersede.<operator>.json`: the operator issued order `by` to do this
 * order's work instead (ferry cannot move an addressed order nor reopen a finished one; a new
 * order is what its workers act on). ferry ignores the file.
 */
export interface SupersedeRecord extends Signed {
  readonly kind: 'supersede';
  readonly order_id: string;
  readonly operator: string;
  /** The new order's id. */
  readonly by: string;
  readonly reason: string;
  readonly at: Timestamp;
}
/** `master.json`: who is this project's master (signed, C/master.rs `MasterDeclaration`). */
export interface MasterRecord extends Signed {
  readonly kind: 'master';
  readonly project_id: string;
  readonly master: string;
  readonly folder: string;
  readonly created_at: Timestamp;
}
/** `grants/<grantee>.json`: roles the master grants a member (signed by the master, C/master.rs `MasterGrant`). */
export interface GrantRecord extends Signed {
  readonly kind: 'grant';
  readonly grantee: string;
  readonly public_key: string;
  readonly projects: readonly string[];
  readonly roles: readonly string[];
  readonly capabilities: readonly string[];
  readonly granted_at: Timestamp;
}

/** Every file record kind (ledger lines are handled in ledger-file.ts). */
export type LedgerRecord =
  | AgentRecord
  | OrderRecord
  | ClaimRecord
  | HeartbeatRecord
  | ResultRecord
  | ReviewRecord
  | RecommendationRecord
  | ReleaseRecord
  | InterruptRecord
  | GiveupRecord
  | ReopenRecord
  | AckRecord
  | RetirementRecord
  | InterruptAckRecord
  | SupersedeRecord
  | MasterRecord
  | GrantRecord;

export type SignedRecord = Extract<LedgerRecord, Signed>;

/** Outcome of parsing one record file: the record, or a problem code and its reason. */
export type RecordParse =
  | { readonly ok: true; readonly record: LedgerRecord }
  | {
      readonly ok: false;
      readonly problem: 'invalid' | 'name_mismatch';
      readonly detail: string;
      /** The record, when only its place is wrong (its directory or file name): ferry reads it by content. */
      readonly misplaced?: LedgerRecord;
    };

// ---- shapes -------------------------------------------------------------------------------

const str = z.string();
const optStr = z.string().nullish();
const bool = z.boolean();
const strList = z.array(z.string());
const sig = { signed_by: optStr, signature: optStr };

const SHAPES = {
  agent: z.object({ name: str, role: str, capabilities: strList.optional(), public_key: optStr }),
  order: z.object({
    id: str,
    project_id: str,
    issued_by: str,
    assigned_to: optStr,
    created_at: str,
    payload: z.unknown(),
    requires_review: bool.optional(),
    requires_approval: bool.optional(),
    depends_on: strList.optional(),
    result_contract: z.object({ required: strList }).nullish(),
    supersedes: optStr,
    ...sig,
  }),
  claim: z.object({ order_id: str, agent: str, claimed_at: str }),
  heartbeat: z.object({ order_id: str, agent: str, run: str, pid: z.number(), at: str }),
  result: z.object({
    order_id: str,
    agent: str,
    revision: z.number(),
    submitted_at: str,
    payload: z.unknown(),
    ...sig,
  }),
  review: z.object({
    order_id: str,
    revision: z.number(),
    reviewer: str,
    reviewed_at: str,
    accepted: bool,
    notes: optStr,
    ...sig,
  }),
  recommendation: z.object({
    order_id: str,
    revision: z.number(),
    reviewer: str,
    recommended_at: str,
    accept: bool,
    reasoning: str,
    ...sig,
  }),
  release: z.object({ order_id: str, released: str, releaser: str, reason: str, at: str, ...sig }),
  interrupt: z.object({
    order_id: str,
    action: z.enum(['kill', 'pause', 'steer']),
    note: str,
    issued_by: str,
    created_at: str,
    ...sig,
  }),
  giveup: z.object({
    order_id: str,
    agent: str,
    run: str,
    reason: str,
    attempts: z.number(),
    at: str,
    ...sig,
  }),
  reopen: z.object({ order_id: str, operator: str, target: str, reason: str, at: str, ...sig }),
  ack: z.object({ order_id: str, operator: str, target: str, note: str, at: str, ...sig }),
  retirement: z.object({ agent: str, operator: str, reason: str, at: str, ...sig }),
  supersede: z.object({ order_id: str, operator: str, by: str, reason: str, at: str, ...sig }),
  interrupt_ack: z.object({ order_id: str, issued_by: str, agent: str, acknowledged_at: str }),
  master: z.object({ project_id: str, master: str, folder: str, created_at: str, ...sig }),
  grant: z.object({
    grantee: str,
    public_key: str,
    projects: strList.optional(),
    roles: strList.optional(),
    capabilities: strList.optional(),
    granted_at: str,
    ...sig,
  }),
} as const;

/** Fields that serde reads as u32: the token must be a plain non-negative integer in range. */
const U32_FIELDS: Partial<Record<Exclude<RecordKind, 'ledger'>, readonly string[]>> = {
  heartbeat: ['pid'],
  result: ['revision'],
  review: ['revision'],
  recommendation: ['revision'],
  giveup: ['attempts'],
};
/** Fields that must be safe components (names and ids), checked after the shape. */
const NAME_FIELDS: Record<Exclude<RecordKind, 'ledger'>, readonly string[]> = {
  agent: ['name'],
  order: ['id', 'issued_by', 'assigned_to', 'supersedes'],
  claim: ['order_id', 'agent'],
  heartbeat: ['order_id', 'agent'],
  result: ['order_id', 'agent'],
  review: ['order_id', 'reviewer'],
  recommendation: ['order_id', 'reviewer'],
  release: ['order_id', 'released', 'releaser'],
  interrupt: ['order_id', 'issued_by'],
  giveup: ['order_id', 'agent'],
  reopen: ['order_id', 'operator'],
  ack: ['order_id', 'operator'],
  retirement: ['agent', 'operator'],
  supersede: ['order_id', 'operator', 'by'],
  interrupt_ack: ['order_id', 'issued_by', 'agent'],
  master: ['master'],
  grant: ['grantee'],
};
/** Timestamp fields per kind. */
const TIME_FIELDS: Record<Exclude<RecordKind, 'ledger'>, readonly string[]> = {
  agent: [],
  order: ['created_at'],
  claim: ['claimed_at'],
  heartbeat: ['at'],
  result: ['submitted_at'],
  review: ['reviewed_at'],
  recommendation: ['recommended_at'],
  release: ['at'],
  interrupt: ['created_at'],
  giveup: ['at'],
  reopen: ['at'],
  ack: ['at'],
  retirement: ['at'],
  supersede: ['at'],
  interrupt_ack: ['acknowledged_at'],
  master: ['created_at'],
  grant: ['granted_at'],
};

const U32_MAX = 4294967295;

/** True when a JSON number token is an integer u32 as serde reads it (no fraction, no exponent). */
export function isU32Token(node: JsonNode | undefined): boolean {
  if (!node || node.t !== 'num' || !/^(0|[1-9][0-9]*)$/.test(node.text)) return false;
  return node.text.length <= 10 && Number(node.text) <= U32_MAX;
}

function describeZodError(err: z.ZodError): string {
  const first = err.issues[0];
  if (!first) return 'wrong shape';
  const where = first.path.length ? first.path.join('.') : 'record';
  if (first.code === 'invalid_type' && first.input === undefined) return `missing field "${where}"`;
  return `field "${where}": ${first.message}`;
}

/**
 * The file names a record should have, computed from its fields (LEDGER.md §2, §4). Release
 * has two accepted names: ferryman's own `release.<releaser>.json` and claimboard's
 * `release.<releaser>.<released>.json`.
 */
export function expectedFileNames(record: LedgerRecord): readonly string[] {
  switch (record.kind) {
    case 'agent':
      return [`${record.name}.json`];
    case 'order':
      return ['order.json'];
    case 'claim':
      return [`claim.${record.agent}.json`];
    case 'heartbeat':
      return [`heartbeat.${record.agent}.json`];
    case 'result':
      return [`result.${record.agent}.${revisionComponent(record.revision)}.json`];
    case 'review':
      return [`review.${revisionComponent(record.revision)}.json`];
    case 'recommendation':
      return [`recommendation.${record.reviewer}.${revisionComponent(record.revision)}.json`];
    case 'release':
      return [`release.${record.releaser}.json`, `release.${record.releaser}.${record.released}.json`];
    case 'interrupt':
      return [`interrupt.${record.issued_by}.json`];
    case 'giveup':
      return [`giveup.${record.agent}.json`];
    case 'reopen':
      return [`reopen.${record.operator}.json`];
    case 'ack':
      return [`ack.${record.operator}.json`];
    case 'retirement':
      return [`${record.agent}.${record.operator}.json`];
    case 'supersede':
      return [`supersede.${record.operator}.json`];
    case 'interrupt_ack':
      return [`interrupt.${record.issued_by}.${record.agent}.acked.json`];
    case 'master':
      return ['master.json'];
    case 'grant':
      return [`${record.grantee}.json`];
  }
}

/**
 * Strict JSON, shape, u32 fields, safe names and timestamps of one record (LEDGER.md §3),
 * without the checks that need its place in the folder (directory, file name). Never throws.
 */
export function shapeRecord(
  kind: Exclude<RecordKind, 'ledger'>,
  bytes: Uint8Array,
): { readonly ok: true; readonly record: LedgerRecord } | { readonly ok: false; readonly detail: string } {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return { ok: false, detail: `not strict JSON: ${parsed.reason}` };
  const node = parsed.node;
  if (node.t !== 'obj') return { ok: false, detail: 'not a JSON object' };
  const plain = toPlain(node);
  const shaped = SHAPES[kind].safeParse(plain);
  if (!shaped.success) return { ok: false, detail: describeZodError(shaped.error) };
  const data = shaped.data as Record<string, unknown>;

  for (const f of U32_FIELDS[kind] ?? []) {
    if (!isU32Token(objectGet(node, f))) {
      return { ok: false, detail: `field "${f}" is not an unsigned 32-bit integer` };
    }
  }
  for (const f of NAME_FIELDS[kind]) {
    const v = data[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || !isSafeComponent(v.trim())) {
      return { ok: false, detail: `field "${f}" is not a safe name: ${JSON.stringify(v)}` };
    }
  }
  if (kind === 'order') {
    for (const dep of (data.depends_on as string[] | undefined) ?? []) {
      if (!isSafeComponent(dep.trim())) {
        return { ok: false, detail: `depends_on entry is not a safe name: ${JSON.stringify(dep)}` };
      }
    }
  }
  const times: Record<string, Timestamp> = {};
  for (const f of TIME_FIELDS[kind]) {
    const t = parseTimestamp(data[f] as string);
    if (!t.ok) return { ok: false, detail: `field "${f}": ${t.reason}` };
    times[f] = t.value;
  }
  return { ok: true, record: buildRecord(kind, data, node, times, bytes) };
}

/**
 * Parses one record file (LEDGER.md §3). `kind` comes from the path (names.classifyPath),
 * `dirOrderId` is the order directory's name for task records (null otherwise), `base` the
 * file's name. Never throws: every refusal is `invalid` or `name_mismatch` with a reason.
 * Signatures are not checked here (verify.ts).
 */
export function parseRecord(
  kind: Exclude<RecordKind, 'ledger'>,
  bytes: Uint8Array,
  base: string,
  dirOrderId: string | null,
): RecordParse {
  const shaped = shapeRecord(kind, bytes);
  if (!shaped.ok) return { ok: false, problem: 'invalid', detail: shaped.detail };
  const record = shaped.record;

  // The order a record belongs to is its directory; a mismatch is `invalid` (LEDGER.md §3).
  if (dirOrderId !== null) {
    const own = record.kind === 'order' ? record.id : 'order_id' in record ? record.order_id : null;
    if (own !== null && own !== canonicalName(dirOrderId)) {
      return {
        ok: false,
        problem: 'invalid',
        detail: `${record.kind === 'order' ? 'id' : 'order_id'} "${own}" differs from its directory "${dirOrderId}"`,
        ...(record.kind === 'order' ? {} : { misplaced: record }),
      };
    }
  }
  const expected = expectedFileNames(record);
  if (!fileNameMatches(base, expected)) {
    return {
      ok: false,
      problem: 'name_mismatch',
      detail: `its fields say it should be named ${expected.map((e) => `"${e}"`).join(' or ')}`,
      misplaced: record,
    };
  }
  return { ok: true, record };
}

function nameOrNull(v: unknown): string | null {
  return typeof v === 'string' ? canonicalName(v) : null;
}
function strOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function t(times: Record<string, Timestamp>, f: string): Timestamp {
  const v = times[f];
  if (!v) throw new Error(`internal: timestamp ${f} not parsed`);
  return v;
}

function buildRecord(
  kind: Exclude<RecordKind, 'ledger'>,
  d: Record<string, unknown>,
  node: JsonNode,
  times: Record<string, Timestamp>,
  bytes: Uint8Array,
): LedgerRecord {
  const signed = { signed_by: strOrNull(d.signed_by), signature: strOrNull(d.signature), raw: d };
  const n = (f: string) => canonicalName(d[f] as string);
  const s = (f: string) => d[f] as string;
  const num = (f: string) => d[f] as number;
  switch (kind) {
    case 'agent':
      return {
        kind,
        name: n('name'),
        name_as_written: s('name'),
        role: s('role'),
        capabilities: (d.capabilities as string[] | undefined) ?? [],
        public_key: strOrNull(d.public_key),
      };
    case 'order': {
      const payloadNode = objectGet(node, 'payload');
      const rc = d.result_contract as { required: string[] } | null | undefined;
      return {
        kind,
        id: n('id'),
        project_id: s('project_id'),
        issued_by: n('issued_by'),
        assigned_to: nameOrNull(d.assigned_to),
        created_at: t(times, 'created_at'),
        payload_digest: payloadNode ? payloadDigest(payloadNode) : '',
        payload: d.payload,
        requires_review: (d.requires_review as boolean | undefined) ?? false,
        requires_approval: (d.requires_approval as boolean | undefined) ?? false,
        depends_on: ((d.depends_on as string[] | undefined) ?? []).map(canonicalName),
        result_contract: rc ? { required: rc.required } : null,
        supersedes: nameOrNull(d.supersedes),
        ...signed,
      };
    }
    case 'claim':
      return { kind, order_id: n('order_id'), agent: n('agent'), claimed_at: t(times, 'claimed_at') };
    case 'heartbeat':
      return { kind, order_id: n('order_id'), agent: n('agent'), run: s('run'), pid: num('pid'), at: t(times, 'at') };
    case 'result': {
      const payloadNode = objectGet(node, 'payload');
      return {
        kind,
        order_id: n('order_id'),
        agent: n('agent'),
        revision: num('revision'),
        submitted_at: t(times, 'submitted_at'),
        payload_digest: payloadNode ? payloadDigest(payloadNode) : '',
        payload: d.payload,
        ...signed,
      };
    }
    case 'review':
      return {
        kind,
        order_id: n('order_id'),
        revision: num('revision'),
        reviewer: n('reviewer'),
        reviewed_at: t(times, 'reviewed_at'),
        accepted: d.accepted as boolean,
        notes: strOrNull(d.notes),
        ...signed,
      };
    case 'recommendation':
      return {
        kind,
        order_id: n('order_id'),
        revision: num('revision'),
        reviewer: n('reviewer'),
        recommended_at: t(times, 'recommended_at'),
        accept: d.accept as boolean,
        reasoning: s('reasoning'),
        ...signed,
      };
    case 'release':
      return {
        kind,
        order_id: n('order_id'),
        released: n('released'),
        releaser: n('releaser'),
        reason: s('reason'),
        at: t(times, 'at'),
        ...signed,
      };
    case 'interrupt':
      return {
        kind,
        order_id: n('order_id'),
        action: d.action as InterruptAction,
        note: s('note'),
        issued_by: n('issued_by'),
        created_at: t(times, 'created_at'),
        ...signed,
      };
    case 'giveup':
      return {
        kind,
        order_id: n('order_id'),
        agent: n('agent'),
        run: s('run'),
        reason: s('reason'),
        attempts: num('attempts'),
        at: t(times, 'at'),
        file_digest: sha256Hex(bytes),
        ...signed,
      };
    case 'reopen':
      return {
        kind,
        order_id: n('order_id'),
        operator: n('operator'),
        target: s('target'),
        reason: s('reason'),
        at: t(times, 'at'),
        ...signed,
      };
    case 'ack':
      return {
        kind,
        order_id: n('order_id'),
        operator: n('operator'),
        target: s('target'),
        note: s('note'),
        at: t(times, 'at'),
        ...signed,
      };
    case 'retirement':
      return { kind, agent: n('agent'), operator: n('operator'), reason: s('reason'), at: t(times, 'at'), ...signed };
    case 'supersede':
      return { kind, order_id: n('order_id'), operator: n('operator'), by: n('by'), reason: s('reason'), at: t(times, 'at'), ...signed };
    case 'interrupt_ack':
      return {
        kind,
        order_id: n('order_id'),
        issued_by: n('issued_by'),
        agent: n('agent'),
        acknowledged_at: t(times, 'acknowledged_at'),
      };
    case 'master':
      return {
        kind,
        project_id: s('project_id'),
        master: n('master'),
        folder: s('folder'),
        created_at: t(times, 'created_at'),
        ...signed,
      };
    case 'grant':
      return {
        kind,
        grantee: n('grantee'),
        public_key: s('public_key'),
        projects: (d.projects as string[] | undefined) ?? [],
        roles: (d.roles as string[] | undefined) ?? [],
        capabilities: (d.capabilities as string[] | undefined) ?? [],
        granted_at: t(times, 'granted_at'),
        ...signed,
      };
  }
}
