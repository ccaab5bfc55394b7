/**
 * Signing payloads: the exact UTF-8 strings a signature covers.
 *
 * Built from the fields exactly as written (`record.raw`: names are NOT case-folded here, the
 * writer signed what it wrote), timestamps through T(x) (`rfc3339`), payloads through D(x)
 * (`payload_digest`). An absent optional string renders as the empty string.
 */
import type { SignedRecord } from './records';
import { rfc3339, type Timestamp } from './time';

const B = (b: boolean): string => (b ? 'true' : 'false');
const S = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The string a record's signature covers, lines joined with `\n`.
 * Pure; never throws for a record produced by `parseRecord`.
 */
export function signingPayload(record: SignedRecord): string {
  const r = record.raw;
  switch (record.kind) {
    case 'order': {
      const lines = [
        'ferryman-order-v1',
        S(r.id),
        S(r.project_id),
        S(r.issued_by),
        S(r.assigned_to),
        rfc3339(record.created_at),
        B(record.requires_review),
        record.payload_digest,
      ];
      if (record.result_contract) lines.push('contract:' + JSON.stringify(record.result_contract.required));
      if (record.requires_approval) lines.push('approval:true');
      const deps = (r.depends_on as string[] | undefined) ?? [];
      if (deps.length > 0) lines.push('depends:' + JSON.stringify(deps));
      return lines.join('\n');
    }
    case 'result':
      return [
        'ferryman-result-v1',
        S(r.order_id),
        S(r.agent),
        String(record.revision),
        rfc3339(record.submitted_at),
        record.payload_digest,
      ].join('\n');
    case 'review':
      return [
        'ferryman-review-v1',
        S(r.order_id),
        String(record.revision),
        S(r.reviewer),
        rfc3339(record.reviewed_at),
        B(record.accepted),
        S(r.notes),
      ].join('\n');
    case 'recommendation':
      return [
        'ferryman-recommendation-v1',
        S(r.order_id),
        String(record.revision),
        S(r.reviewer),
        rfc3339(record.recommended_at),
        B(record.accept),
        S(r.reasoning),
      ].join('\n');
    case 'release':
      return ['ferryman-release-v1', S(r.order_id), S(r.released), S(r.releaser), S(r.reason), rfc3339(record.at)].join(
        '\n',
      );
    case 'interrupt':
      return [
        'ferryman-interrupt-v1',
        S(r.order_id),
        S(r.action),
        S(r.note),
        S(r.issued_by),
        rfc3339(record.created_at),
      ].join('\n');
    case 'giveup':
      return [
        'claimboard-giveup-v1',
        S(r.order_id),
        S(r.agent),
        S(r.run),
        S(r.reason),
        String(record.attempts),
        rfc3339(record.at),
      ].join('\n');
    case 'reopen':
      return ['claimboard-reopen-v1', S(r.order_id), S(r.operator), S(r.target), S(r.reason), rfc3339(record.at)].join(
        '\n',
      );
    case 'ack':
      return ['claimboard-ack-v1', S(r.order_id), S(r.operator), S(r.target), S(r.note), rfc3339(record.at)].join('\n');
    case 'retirement':
      return ['claimboard-retirement-v1', S(r.agent), S(r.operator), S(r.reason), rfc3339(record.at)].join('\n');
    case 'supersede':
      return ['claimboard-supersede-v1', S(r.order_id), S(r.operator), S(r.by), S(r.reason), rfc3339(record.at)].join('\n');
    case 'master':
      return ['ferryman-master-v1', S(r.project_id), S(r.master), S(r.folder), rfc3339(record.created_at)].join('\n');
    case 'grant': {
      const list = (v: unknown) => (Array.isArray(v) ? v.join(',') : '');
      return [
        'ferryman-master-grant-v1',
        S(r.grantee),
        S(r.public_key),
        list(r.projects),
        list(r.roles),
        list(r.capabilities),
        rfc3339(record.granted_at),
      ].join('\n');
    }
  }
}

/** Fields of a ledger line that its signature covers. */
export interface LedgerLineFields {
  readonly kind: string;
  readonly actor: string;
  readonly summary: string;
  readonly reference: string | null;
  readonly created_at: Timestamp;
  readonly prev: string;
}

/** `ferryman-ledger-v1 | kind | actor | summary | reference | T(created_at) | prev`. */
export function ledgerLinePayload(line: LedgerLineFields): string {
  return [
    'ferryman-ledger-v1',
    line.kind,
    line.actor,
    line.summary,
    line.reference ?? '',
    rfc3339(line.created_at),
    line.prev,
  ].join('\n');
}
