/**
 * Trust: the roster, pinned keys, signature checks and who may sign what
 *.
 *
 * Pure. The Ed25519 primitive is a parameter (`Ed25519Verify`): the server passes
 * `node:crypto` (fast), the browser and tests may pass tweetnacl; both give identical answers.
 */
import { canonicalName } from './names';
import { signingPayload } from './payloads';
import type { AgentRecord, GrantRecord, MasterRecord, SignedRecord } from './records';

/**
 * Strict Ed25519 verification of `message` (UTF-8) against a 32-byte public key and 64-byte
 * signature, both given as validated lowercase-or-uppercase hex (64 and 128 digits).
 * Must return false (not throw) for a key or signature that does not verify.
 */
export type Ed25519Verify = (publicKeyHex: string, message: string, signatureHex: string) => boolean;

/** Outcome of ferryman's `check_signature`. */
export type SignatureCheck = 'valid' | 'unsigned' | 'unknown_signer' | 'invalid_signature';

/**
 * Remembers Ed25519 outcomes per file so an index re-derives without re-verifying unchanged
 * files. The holder must forget a path whenever that file's content changes.
 */
export interface SignatureMemo {
  /** The remembered outcome of the file at `path` checked against `publicKey`, if any. */
  get(path: string, publicKey: string): boolean | undefined;
  set(path: string, publicKey: string, valid: boolean): void;
}

/** One identity of the roster after case folding and key pinning. */
export interface RosterEntry {
  /** Canonical name. */
  readonly name: string;
  readonly role: string;
  readonly capabilities: readonly string[];
  /** The key records verify against: the pinned key when there is one, else the folder's. */
  readonly public_key: string | null;
  /** The key the roster file in the folder carries now (may differ from the pin). */
  readonly folder_key: string | null;
  /** Channel-relative path of the roster file kept for this name. */
  readonly path: string;
}

/** The roster with its operators. */
export interface Roster {
  readonly entries: ReadonlyMap<string, RosterEntry>;
  /** Canonical names whose signed actions count as an operator's. */
  readonly operators: ReadonlySet<string>;
  /**
   * Canonical names whose release of another agent's claim, or interrupt, is a deliberate act
   * rather than a forgery: the operators, plus roles `orchestrator`, `operator` and `master`
   * (roster or master-signed grant) and the declared master. `ferry channel retire` signs its
   * releases as the machine that runs it, an orchestrator in practice (docs/channel-format.md).
   */
  readonly authorities: ReadonlySet<string>;
  /** The master declared by a valid `master.json`, canonical, or null. */
  readonly master: string | null;
}

/** Roles whose holders act for the fleet (see Roster.authorities). */
export const AUTHORITY_ROLES: ReadonlySet<string> = new Set(['operator', 'master', 'orchestrator']);

/** A channel-level `key_changed` problem found while building the roster. */
export interface KeyChange {
  readonly path: string;
  readonly name: string;
  readonly pinned: string;
  readonly folder: string;
}

export interface RosterBuild {
  readonly roster: Roster;
  readonly keyChanges: readonly KeyChange[];
  /** Keys seen for names that had no pin yet: what an index should pin now (trust on first use). */
  readonly newPins: ReadonlyMap<string, string>;
}

const HEX = /^[0-9a-fA-F]*$/;

/**
 * Builds the roster from the agent records of `agents/*.json` (conflict copies already
 * excluded), folding case variants as ferryman does: for one canonical name keep the entry
 * with a key, then the one already written in lowercase (its name, then its file name), then
 * the first by path. `pins` maps canonical names to pinned keys (hex); a folder key that
 * differs from its pin is reported as a `KeyChange` and does not replace the pin.
 * `operators` is the configured operator list (`CLAIMBOARD_OPERATORS`); when empty or absent,
 * roster entries whose role is `operator` or `master` are the operators.
 */
export function buildRoster(
  agents: readonly { readonly path: string; readonly record: AgentRecord }[],
  options: { readonly pins?: ReadonlyMap<string, string>; readonly operators?: readonly string[] } = {},
): RosterBuild {
  const byName = new Map<string, { path: string; record: AgentRecord }>();
  // Keyed first, then already lowercase: the name as written, then the file's own name (else a
  // file `agents/Fang.json` naming "fang" with another key would win over `agents/fang.json` by
  // sorting first, and take over fang's key and role).
  const rank = (a: { path: string; record: AgentRecord }) =>
    (a.record.public_key ? 0 : 4) + (a.record.name_as_written === a.record.name ? 0 : 2) + (a.path.slice(a.path.lastIndexOf('/') + 1) === `${a.record.name}.json` ? 0 : 1);
  const sorted = [...agents].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const a of sorted) {
    const cur = byName.get(a.record.name);
    if (!cur || rank(a) < rank(cur)) byName.set(a.record.name, a);
  }
  const pins = options.pins ?? new Map<string, string>();
  const entries = new Map<string, RosterEntry>();
  const keyChanges: KeyChange[] = [];
  const newPins = new Map<string, string>();
  for (const [name, { path, record }] of byName) {
    const folderKey = record.public_key ? record.public_key.toLowerCase() : null;
    const pinned = pins.get(name)?.toLowerCase() ?? null;
    if (pinned && folderKey && pinned !== folderKey) {
      keyChanges.push({ path, name, pinned, folder: folderKey });
    }
    if (!pinned && folderKey) newPins.set(name, folderKey);
    entries.set(name, {
      name,
      role: record.role,
      capabilities: record.capabilities,
      public_key: pinned ?? folderKey,
      folder_key: folderKey,
      path,
    });
  }
  const configured = (options.operators ?? []).map(canonicalName).filter((n) => n.length > 0);
  const operators = new Set<string>(
    configured.length > 0
      ? configured
      : [...entries.values()].filter((e) => e.role === 'operator' || e.role === 'master').map((e) => e.name),
  );
  // Configured operators replace the operator/master roles here too; an orchestrator always acts for the fleet.
  const authorities = new Set<string>(operators);
  for (const e of entries.values()) if (e.role === 'orchestrator' || (configured.length === 0 && AUTHORITY_ROLES.has(e.role))) authorities.add(e.name);
  return { roster: { entries, operators, authorities, master: null }, keyChanges, newPins };
}

/**
 * The roster with ferry's master declaration and grants applied (C/master.rs): `master.json` counts
 * when its signature is valid (any roster member may sign it, as ferry reads it) and names this
 * roster's member; a grant counts when signed by that master. The master and grantees of the roles
 * operator/master/orchestrator become authorities; they become operators too unless operators
 * were configured. Returns the problems of the files that do not count, with reasons.
 */
export function withMasterAndGrants(
  roster: Roster,
  master: { readonly path: string; readonly record: MasterRecord } | null,
  grants: readonly { readonly path: string; readonly record: GrantRecord }[],
  verify: Ed25519Verify,
  configuredOperators: boolean,
): { readonly roster: Roster; readonly problems: readonly { path: string; problem: SignatureProblem; detail: string }[] } {
  const problems: { path: string; problem: SignatureProblem; detail: string }[] = [];
  let masterName: string | null = null;
  if (master) {
    const bad = verifyRecord(master.record, roster, verify);
    if (bad) problems.push({ path: master.path, ...bad });
    else masterName = master.record.master;
  }
  const operators = new Set(roster.operators);
  const authorities = new Set(roster.authorities);
  if (masterName) {
    authorities.add(masterName);
    if (!configuredOperators) operators.add(masterName);
  }
  const withMaster: Roster = { ...roster, master: masterName, operators, authorities };
  for (const g of grants) {
    const bad = verifyRecord(g.record, withMaster, verify);
    if (bad) {
      problems.push({ path: g.path, ...bad });
      continue;
    }
    for (const role of g.record.roles) {
      if (!AUTHORITY_ROLES.has(role)) continue;
      authorities.add(g.record.grantee);
      if (!configuredOperators && role !== 'orchestrator') operators.add(g.record.grantee);
    }
  }
  return { roster: { ...withMaster, operators, authorities }, problems };
}

/**
 * Ferryman's `check_signature`: no `signed_by` or no `signature` is
 * `unsigned`; a signer not in the roster, or in it without a key, is `unknown_signer`; bad
 * hex, wrong lengths, or a failed strict Ed25519 check is `invalid_signature`. Signer names
 * match case-insensitively.
 */
export function checkSignature(
  signedBy: string | null,
  signature: string | null,
  payload: string | (() => string),
  roster: Roster,
  verify: Ed25519Verify,
  memo?: { readonly memo: SignatureMemo; readonly path: string },
): SignatureCheck {
  if (signedBy === null || signature === null) return 'unsigned';
  const entry = roster.entries.get(canonicalName(signedBy));
  if (!entry || !entry.public_key) return 'unknown_signer';
  const key = entry.public_key;
  if (key.length !== 64 || !HEX.test(key) || signature.length !== 128 || !HEX.test(signature)) {
    return 'invalid_signature';
  }
  const remembered = memo?.memo.get(memo.path, key);
  if (remembered !== undefined) return remembered ? 'valid' : 'invalid_signature';
  const ok = verify(key, typeof payload === 'string' ? payload : payload(), signature);
  memo?.memo.set(memo.path, key, ok);
  return ok ? 'valid' : 'invalid_signature';
}

/** Whether `name` is an operator of this channel. */
export function isOperator(roster: Roster, name: string): boolean {
  return roster.operators.has(canonicalName(name));
}

/**
 * Who may sign what: order by anyone in the roster; result, giveup by its
 * `agent`; review, recommendation by its `reviewer`; release by its `releaser`, who is the
 * released agent itself or an operator; interrupt, reopen, ack, retirement by an operator
 * who is also the record's `issued_by` / `operator`. `signer` is canonical.
 */
export function maySign(record: SignedRecord, signer: string, roster: Roster): boolean {
  // Who may sign what, with ferry's roles (docs/channel-format.md): a release of another's claim
  // and an interrupt need an authority (operator, master, orchestrator); a grant, the master.
  switch (record.kind) {
    case 'order':
      return roster.entries.has(signer);
    case 'result':
    case 'giveup':
      return signer === record.agent;
    case 'review':
    case 'recommendation':
      return signer === record.reviewer;
    case 'release':
      return signer === record.releaser && (record.releaser === record.released || roster.authorities.has(signer));
    case 'interrupt':
      return signer === record.issued_by && roster.authorities.has(signer);
    case 'master':
      return roster.entries.has(signer); // ferry's read_master: any valid signature
    case 'grant':
      return roster.master !== null && signer === roster.master; // member_grants: the master's key only
    case 'reopen':
    case 'ack':
    case 'supersede':
      return signer === record.operator && isOperator(roster, signer);
    case 'retirement':
      return signer === record.operator && isOperator(roster, signer);
  }
}

/** Problem codes a signed record can earn after it parsed. */
export type SignatureProblem = 'unsigned' | 'unknown_signer' | 'invalid_signature' | 'unauthorized_signer';

/**
 * Verifies a parsed signed record: signature first, then who may sign it
 *. Returns null when the record is valid, else the problem and a reason.
 */
export function verifyRecord(
  record: SignedRecord,
  roster: Roster,
  verify: Ed25519Verify,
  memo?: { readonly memo: SignatureMemo; readonly path: string },
): { readonly problem: SignatureProblem; readonly detail: string } | null {
  const check = checkSignature(record.signed_by, record.signature, () => signingPayload(record), roster, verify, memo);
  switch (check) {
    case 'valid':
      break;
    case 'unsigned':
      return { problem: 'unsigned', detail: 'no signed_by or no signature' };
    case 'unknown_signer':
      return {
        problem: 'unknown_signer',
        detail: `signer "${record.signed_by}" is not in the roster or has no public key`,
      };
    case 'invalid_signature':
      return {
        problem: 'invalid_signature',
        detail: `signature does not verify against ${canonicalName(record.signed_by ?? '')}'s pinned key`,
      };
  }
  const signer = canonicalName(record.signed_by ?? '');
  if (!maySign(record, signer, roster)) {
    return { problem: 'unauthorized_signer', detail: unauthorizedReason(record, signer, roster) };
  }
  return null;
}

function unauthorizedReason(record: SignedRecord, signer: string, roster: Roster): string {
  switch (record.kind) {
    case 'order':
      return `${signer} is not in the roster`;
    case 'result':
    case 'giveup':
      return `a ${record.kind} must be signed by its agent ${record.agent}, not ${signer}`;
    case 'review':
    case 'recommendation':
      return `a ${record.kind} must be signed by its reviewer ${record.reviewer}, not ${signer}`;
    case 'release':
      return signer !== record.releaser
        ? `a release must be signed by its releaser ${record.releaser}, not ${signer}`
        : `${signer} released ${record.released}'s claim but is neither ${record.released} nor an operator or orchestrator; ferry honours the release all the same`;
    case 'interrupt':
      return `an interrupt must be signed by the operator who issued it; ${signer} is not an operator or orchestrator`;
    case 'master':
      return `${signer} is not in the roster`;
    case 'grant':
      return roster.master === null
        ? 'no valid master.json declares a master, so no grant counts'
        : `a grant must be signed by the master ${roster.master}, not ${signer}`;
    case 'reopen':
    case 'ack':
    case 'supersede':
    case 'retirement':
      return signer !== record.operator
        ? `a ${record.kind} must be signed by its operator ${record.operator}, not ${signer}`
        : `${signer} is not an operator of this channel`;
  }
}
