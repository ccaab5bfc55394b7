/**
 * The parsed record of each kind: what records.ts's schemas produce from a
 * record file, names canonical and timestamps parsed. Types only, and the value lists they use;
 * records.ts re-exports them.
 */
import type { Timestamp } from './time';

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
  /** The name exactly as written (case variants are folded by the roster). */
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
/** What an interrupt asks (ferry's `InterruptAction`). */
export const INTERRUPT_ACTIONS = ['kill', 'pause', 'steer'] as const;
export type InterruptAction = (typeof INTERRUPT_ACTIONS)[number];
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
  /** sha256 hex of the file's bytes: what `giveup:<digest>` targets name. */
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
