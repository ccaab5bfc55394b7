/**
 * Record schemas and strict parsing: one zod schema per kind, producing
 * the records of record-types.ts.
 *
 * A record file is strict JSON (json.ts), then checked against its kind's shape with zod, its
 * u32 fields checked on their JSON tokens, its names checked as safe components, its
 * timestamps parsed losslessly (time.ts), its `order_id` checked against its directory, and its
 * file name checked against the one its fields compute. Unknown extra fields are ignored, as
 * serde does. Each refusal is one problem detail, worded as it always was.
 *
 * Over 500 lines on purpose: one schema per record kind, all kinds in one place, so a kind's whole shape reads in one screen and no kind is missed.
 */
import { z } from 'zod';
import { type JsonNode, objectGet, parseStrictJson, toPlain } from './json';
import { payloadDigest, sha256Hex } from './canonical';
import { parseTimestamp, type Timestamp } from './time';
import {
  INTERRUPT_ACTIONS,
  type AckRecord,
  type AgentRecord,
  type ClaimRecord,
  type GiveupRecord,
  type GrantRecord,
  type HeartbeatRecord,
  type InterruptAckRecord,
  type InterruptRecord,
  type LedgerRecord,
  type MasterRecord,
  type OrderRecord,
  type RecommendationRecord,
  type ReleaseRecord,
  type ReopenRecord,
  type ResultRecord,
  type RetirementRecord,
  type ReviewRecord,
  type Signed,
  type SupersedeRecord,
} from './record-types';
import {
  canonicalName,
  fileNameMatches,
  isSafeComponent,
  type RecordKind,
  revisionComponent,
} from './names';

export * from './record-types';

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

// ---- one schema per kind ------------------------------------------------------------------------

/** Every kind a record file can be (ledger lines are read by ledger-file.ts). */
export type FileRecordKind = Exclude<RecordKind, 'ledger'>;

/**
 * What every record schema reads: one file's top-level JSON object, as plain values (json.ts
 * `toPlain`, what the shape is checked on) and as the strict-JSON tree they came from (number
 * tokens as written for u32 fields, the payload for D(x)), and the file's bytes (a give-up's digest).
 */
export interface RecordFile {
  readonly fields: unknown;
  readonly tree: JsonNode;
  readonly bytes: Uint8Array;
}

// Field types. Each is one instance, so a kind's schema says by which instance it uses which
// check its field gets; the lists of u32, name and timestamp fields are read off the shapes.
const str = z.string();
const optStr = z.string().nullish();
const bool = z.boolean();
const strList = z.array(z.string());
/** serde's u32: a JSON number whose token is a plain integer 0..2^32-1 (checked on the tree: `1.0` is not one). */
const u32 = z.number();
/** A name or id: must be a safe component once trimmed; the record carries its canonical form. */
const safeName = z.string();
const optSafeName = z.string().nullish();
/** Names (an order's `depends_on`): each entry a safe component, canonical in the record. */
const safeNames = z.array(z.string()).optional();
/** A writer's timestamp, parsed losslessly by time.ts. Branded (types only) so `times` is typed per kind. */
const timestamp = z.string().brand<'Timestamp'>();
/**
 * The signature fields of every signed kind; `channel` and `channel_signature` are claimboard's
 * binding of an operator act to its channel (channel-binding.ts), kept in `raw` as written and
 * checked only where an act is applied, so any JSON value there leaves the record readable.
 */
const sig = { signed_by: optStr, signature: optStr, channel: z.unknown().optional(), channel_signature: z.unknown().optional() };
const jsonTree = z.custom<JsonNode>();
const fileBytes = z.custom<Uint8Array>();

type Shape = Record<string, z.ZodType>;
type TimeKeys<S extends Shape> = { [K in keyof S]: S[K] extends typeof timestamp ? K : never }[keyof S];
/** What a kind's build step gets once every check passed: the shaped fields exactly as written, their timestamps parsed, the file. */
interface Checked<S extends Shape> {
  readonly d: z.output<z.ZodObject<S>>;
  readonly times: Readonly<Record<TimeKeys<S>, Timestamp>>;
  readonly file: RecordFile;
}

/** The fields of `shape` of one of these field types, in the shape's order. */
function keysOf(shape: Shape, ...types: readonly z.ZodType[]): readonly string[] {
  return Object.entries(shape)
    .filter(([, t]) => types.includes(t))
    .map(([k]) => k);
}

/** One record kind: its declared zod schema, and the same parse on the hot path. */
interface KindSchema<R extends LedgerRecord> {
  /**
   * The kind's schema over a {@link RecordFile}: the shape (zod: types, required fields; unknown
   * extra fields dropped, as serde does), then as a transform, in this order and stopping at the
   * first that fails, the u32 tokens, the safe names, the name lists' entries and the timestamps
   * (a custom issue whose message is the problem's detail), then the record is built.
   */
  readonly schema: z.ZodType<R, RecordFile>;
  /**
   * What `schema.safeParse` answers, with the problem's detail: the shape's own safeParse, then
   * the transform's function called directly. This is the cold index's hot path: zod's
   * transform (a pipe) and the RecordFile wrapper cost ~0.7 µs a record, more than the shape
   * itself. parseRecord on 100,000 records of each of the 17 kinds (load ~4, best of 3): 17.4 s
   * through `schema`, 11.2 s this way, 11.2 s with the hand-written tables before (strict JSON
   * alone 3.7 s); at 200,000 under load ~8: 59.0 s, 35.4 s, 34.1 s.
   */
  readonly parse: (file: RecordFile) => { readonly ok: true; readonly record: R } | { readonly ok: false; readonly detail: string };
}

function recordSchema<S extends Shape, R extends LedgerRecord>(shape: S, build: (c: Checked<S>) => R): KindSchema<R> {
  const fields = z.object(shape);
  const u32Keys = keysOf(shape, u32);
  const nameKeys = keysOf(shape, safeName, optSafeName);
  const listKeys = keysOf(shape, safeNames);
  const timeKeys = keysOf(shape, timestamp);
  /** The record from fields that have the shape, or the detail of the first check that fails. */
  const finish = (d: z.output<typeof fields>, file: RecordFile): R | string => {
    const v = d as Record<string, unknown>;
    for (const f of u32Keys) if (!isU32Token(objectGet(file.tree, f))) return `field "${f}" is not an unsigned 32-bit integer`;
    for (const f of nameKeys) {
      const x = v[f];
      if (typeof x === 'string' && !isSafeComponent(x.trim())) return `field "${f}" is not a safe name: ${JSON.stringify(x)}`;
    }
    for (const f of listKeys) {
      for (const x of (v[f] as readonly string[] | undefined) ?? []) {
        if (!isSafeComponent(x.trim())) return `${f} entry is not a safe name: ${JSON.stringify(x)}`;
      }
    }
    const times: Record<string, Timestamp> = {};
    for (const f of timeKeys) {
      const t = parseTimestamp(v[f] as string);
      if (!t.ok) return `field "${f}": ${t.reason}`;
      times[f] = t.value;
    }
    // The checks above make these the types `build` is given: every time key parsed.
    return build({ d, times: times as Record<TimeKeys<S>, Timestamp>, file });
  };
  const schema = z.object({ fields, tree: jsonTree, bytes: fileBytes }).transform((file, ctx): R => {
    const out = finish(file.fields, file);
    if (typeof out !== 'string') return out;
    ctx.issues.push({ code: 'custom', message: out, input: file.fields });
    return z.NEVER;
  });
  return {
    schema,
    parse: (file) => {
      const shaped = fields.safeParse(file.fields);
      if (!shaped.success) return { ok: false, detail: describeIssue(shaped.error.issues[0], 0) };
      const out = finish(shaped.data, file);
      return typeof out === 'string' ? { ok: false, detail: out } : { ok: true, record: out };
    },
  };
}

/** The signature fields of a signed kind, and the shaped fields as written (what the signature covers). */
function signed(d: { readonly signed_by?: string | null | undefined; readonly signature?: string | null | undefined }): Signed {
  return { signed_by: d.signed_by ?? null, signature: d.signature ?? null, raw: d };
}
const canon = canonicalName;
const canonOrNull = (v: string | null | undefined): string | null => (typeof v === 'string' ? canonicalName(v) : null);
const digestOf = (tree: JsonNode, key: string): string => {
  const node = objectGet(tree, key);
  return node ? payloadDigest(node) : '';
};

const SCHEMAS = {
  agent: recordSchema({ name: safeName, role: str, capabilities: strList.optional(), public_key: optStr }, ({ d }): AgentRecord => ({
    kind: 'agent',
    name: canon(d.name),
    name_as_written: d.name,
    role: d.role,
    capabilities: d.capabilities ?? [],
    public_key: d.public_key ?? null,
  })),
  order: recordSchema(
    {
      id: safeName,
      project_id: str,
      issued_by: safeName,
      assigned_to: optSafeName,
      created_at: timestamp,
      payload: z.unknown(),
      requires_review: bool.optional(),
      requires_approval: bool.optional(),
      depends_on: safeNames,
      result_contract: z.object({ required: strList }).nullish(),
      supersedes: optSafeName,
      ...sig,
    },
    ({ d, times, file }): OrderRecord => ({
      kind: 'order',
      id: canon(d.id),
      project_id: d.project_id,
      issued_by: canon(d.issued_by),
      assigned_to: canonOrNull(d.assigned_to),
      created_at: times.created_at,
      payload_digest: digestOf(file.tree, 'payload'),
      payload: d.payload,
      requires_review: d.requires_review ?? false,
      requires_approval: d.requires_approval ?? false,
      depends_on: (d.depends_on ?? []).map(canon),
      result_contract: d.result_contract ? { required: d.result_contract.required } : null,
      supersedes: canonOrNull(d.supersedes),
      ...signed(d),
    }),
  ),
  claim: recordSchema({ order_id: safeName, agent: safeName, claimed_at: timestamp }, ({ d, times }): ClaimRecord => ({
    kind: 'claim',
    order_id: canon(d.order_id),
    agent: canon(d.agent),
    claimed_at: times.claimed_at,
  })),
  heartbeat: recordSchema({ order_id: safeName, agent: safeName, run: str, pid: u32, at: timestamp }, ({ d, times }): HeartbeatRecord => ({
    kind: 'heartbeat',
    order_id: canon(d.order_id),
    agent: canon(d.agent),
    run: d.run,
    pid: d.pid,
    at: times.at,
  })),
  result: recordSchema(
    { order_id: safeName, agent: safeName, revision: u32, submitted_at: timestamp, payload: z.unknown(), ...sig },
    ({ d, times, file }): ResultRecord => ({
      kind: 'result',
      order_id: canon(d.order_id),
      agent: canon(d.agent),
      revision: d.revision,
      submitted_at: times.submitted_at,
      payload_digest: digestOf(file.tree, 'payload'),
      payload: d.payload,
      ...signed(d),
    }),
  ),
  review: recordSchema(
    { order_id: safeName, revision: u32, reviewer: safeName, reviewed_at: timestamp, accepted: bool, notes: optStr, ...sig },
    ({ d, times }): ReviewRecord => ({
      kind: 'review',
      order_id: canon(d.order_id),
      revision: d.revision,
      reviewer: canon(d.reviewer),
      reviewed_at: times.reviewed_at,
      accepted: d.accepted,
      notes: d.notes ?? null,
      ...signed(d),
    }),
  ),
  recommendation: recordSchema(
    { order_id: safeName, revision: u32, reviewer: safeName, recommended_at: timestamp, accept: bool, reasoning: str, ...sig },
    ({ d, times }): RecommendationRecord => ({
      kind: 'recommendation',
      order_id: canon(d.order_id),
      revision: d.revision,
      reviewer: canon(d.reviewer),
      recommended_at: times.recommended_at,
      accept: d.accept,
      reasoning: d.reasoning,
      ...signed(d),
    }),
  ),
  release: recordSchema({ order_id: safeName, released: safeName, releaser: safeName, reason: str, at: timestamp, ...sig }, ({ d, times }): ReleaseRecord => ({
    kind: 'release',
    order_id: canon(d.order_id),
    released: canon(d.released),
    releaser: canon(d.releaser),
    reason: d.reason,
    at: times.at,
    ...signed(d),
  })),
  interrupt: recordSchema(
    { order_id: safeName, action: z.enum(INTERRUPT_ACTIONS), note: str, issued_by: safeName, created_at: timestamp, ...sig },
    ({ d, times }): InterruptRecord => ({
      kind: 'interrupt',
      order_id: canon(d.order_id),
      action: d.action,
      note: d.note,
      issued_by: canon(d.issued_by),
      created_at: times.created_at,
      ...signed(d),
    }),
  ),
  giveup: recordSchema(
    { order_id: safeName, agent: safeName, run: str, reason: str, attempts: u32, at: timestamp, ...sig },
    ({ d, times, file }): GiveupRecord => ({
      kind: 'giveup',
      order_id: canon(d.order_id),
      agent: canon(d.agent),
      run: d.run,
      reason: d.reason,
      attempts: d.attempts,
      at: times.at,
      file_digest: sha256Hex(file.bytes),
      ...signed(d),
    }),
  ),
  reopen: recordSchema({ order_id: safeName, operator: safeName, target: str, reason: str, at: timestamp, ...sig }, ({ d, times }): ReopenRecord => ({
    kind: 'reopen',
    order_id: canon(d.order_id),
    operator: canon(d.operator),
    target: d.target,
    reason: d.reason,
    at: times.at,
    ...signed(d),
  })),
  ack: recordSchema({ order_id: safeName, operator: safeName, target: str, note: str, at: timestamp, ...sig }, ({ d, times }): AckRecord => ({
    kind: 'ack',
    order_id: canon(d.order_id),
    operator: canon(d.operator),
    target: d.target,
    note: d.note,
    at: times.at,
    ...signed(d),
  })),
  retirement: recordSchema({ agent: safeName, operator: safeName, reason: str, at: timestamp, ...sig }, ({ d, times }): RetirementRecord => ({
    kind: 'retirement',
    agent: canon(d.agent),
    operator: canon(d.operator),
    reason: d.reason,
    at: times.at,
    ...signed(d),
  })),
  supersede: recordSchema({ order_id: safeName, operator: safeName, by: safeName, reason: str, at: timestamp, ...sig }, ({ d, times }): SupersedeRecord => ({
    kind: 'supersede',
    order_id: canon(d.order_id),
    operator: canon(d.operator),
    by: canon(d.by),
    reason: d.reason,
    at: times.at,
    ...signed(d),
  })),
  interrupt_ack: recordSchema({ order_id: safeName, issued_by: safeName, agent: safeName, acknowledged_at: timestamp }, ({ d, times }): InterruptAckRecord => ({
    kind: 'interrupt_ack',
    order_id: canon(d.order_id),
    issued_by: canon(d.issued_by),
    agent: canon(d.agent),
    acknowledged_at: times.acknowledged_at,
  })),
  master: recordSchema({ project_id: str, master: safeName, folder: str, created_at: timestamp, ...sig }, ({ d, times }): MasterRecord => ({
    kind: 'master',
    project_id: d.project_id,
    master: canon(d.master),
    folder: d.folder,
    created_at: times.created_at,
    ...signed(d),
  })),
  grant: recordSchema(
    {
      grantee: safeName,
      public_key: str,
      projects: strList.optional(),
      roles: strList.optional(),
      capabilities: strList.optional(),
      granted_at: timestamp,
      ...sig,
    },
    ({ d, times }): GrantRecord => ({
      kind: 'grant',
      grantee: canon(d.grantee),
      public_key: d.public_key,
      projects: d.projects ?? [],
      roles: d.roles ?? [],
      capabilities: d.capabilities ?? [],
      granted_at: times.granted_at,
      ...signed(d),
    }),
  ),
} satisfies { readonly [K in FileRecordKind]: KindSchema<Extract<LedgerRecord, { readonly kind: K }>> };

/**
 * The schema of each record kind: a {@link RecordFile} in, the kind's parsed record out (names
 * canonical, timestamps parsed, defaults filled), or one issue, whose detail {@link describeIssue}
 * words. `z.output<typeof RECORD_SCHEMAS.claim>` is ClaimRecord, and so on.
 */
export const RECORD_SCHEMAS: { readonly [K in FileRecordKind]: (typeof SCHEMAS)[K]['schema'] } = {
  agent: SCHEMAS.agent.schema,
  order: SCHEMAS.order.schema,
  claim: SCHEMAS.claim.schema,
  heartbeat: SCHEMAS.heartbeat.schema,
  result: SCHEMAS.result.schema,
  review: SCHEMAS.review.schema,
  recommendation: SCHEMAS.recommendation.schema,
  release: SCHEMAS.release.schema,
  interrupt: SCHEMAS.interrupt.schema,
  giveup: SCHEMAS.giveup.schema,
  reopen: SCHEMAS.reopen.schema,
  ack: SCHEMAS.ack.schema,
  retirement: SCHEMAS.retirement.schema,
  supersede: SCHEMAS.supersede.schema,
  interrupt_ack: SCHEMAS.interrupt_ack.schema,
  master: SCHEMAS.master.schema,
  grant: SCHEMAS.grant.schema,
};

const U32_MAX = 4294967295;

/** True when a JSON number token is an integer u32 as serde reads it (no fraction, no exponent). */
export function isU32Token(node: JsonNode | undefined): boolean {
  if (!node || node.t !== 'num' || !/^(0|[1-9][0-9]*)$/.test(node.text)) return false;
  return node.text.length <= 10 && Number(node.text) <= U32_MAX;
}

/**
 * The problem detail for a schema's first issue, as claimboard has always worded it; `pathFrom`
 * 1 for a {@link RECORD_SCHEMAS} issue (its path starts at RecordFile's `fields`), 0 for the
 * shape's own. A custom
 * issue (u32, name, timestamp) carries its detail as its message. zod 4 reports no input in an
 * issue, so every wrong type reads `missing field "<path>"`, absent or not (kept: the details
 * are part of the problem rows operators and the conformance cases see). Any other issue (an
 * interrupt's `action` outside its list) is `field "<path>": <zod's message>`.
 */
export function describeIssue(issue: z.core.$ZodIssue | undefined, pathFrom: 0 | 1): string {
  if (!issue) return 'wrong shape';
  if (issue.code === 'custom') return issue.message;
  const path = issue.path.slice(pathFrom);
  const where = path.length ? path.join('.') : 'record';
  if (issue.code === 'invalid_type' && issue.input === undefined) return `missing field "${where}"`;
  return `field "${where}": ${issue.message}`;
}

/**
 * The file names a record should have, computed from its fields. Release
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
 * Strict JSON, shape, u32 fields, safe names and timestamps of one record,
 * without the checks that need its place in the folder (directory, file name). Never throws.
 */
export function shapeRecord(
  kind: FileRecordKind,
  bytes: Uint8Array,
): { readonly ok: true; readonly record: LedgerRecord } | { readonly ok: false; readonly detail: string } {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return { ok: false, detail: `not strict JSON: ${parsed.reason}` };
  const tree = parsed.node;
  if (tree.t !== 'obj') return { ok: false, detail: 'not a JSON object' };
  return SCHEMAS[kind].parse({ fields: toPlain(tree), tree, bytes });
}

/**
 * Parses one record file. `kind` comes from the path (names.classifyPath),
 * `dirOrderId` is the order directory's name for task records (null otherwise), `base` the
 * file's name. Never throws: every refusal is `invalid` or `name_mismatch` with a reason.
 * Signatures are not checked here (verify.ts).
 */
export function parseRecord(
  kind: FileRecordKind,
  bytes: Uint8Array,
  base: string,
  dirOrderId: string | null,
): RecordParse {
  const shaped = shapeRecord(kind, bytes);
  if (!shaped.ok) return { ok: false, problem: 'invalid', detail: shaped.detail };
  const record = shaped.record;

  // The order a record belongs to is its directory; a mismatch is `invalid`.
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
