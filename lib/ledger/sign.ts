/**
 * Building signed records: one implementation for the browser (operator
 * actions, tweetnacl), the demo fleet and tests. The payload is computed by the same code that
 * verifies it (records.shapeRecord + payloads.signingPayload), so a record signed here verifies
 * on the server by construction.
 */
import { shapeRecord, type SignedRecord } from './records';
import { signingPayload, ledgerLinePayload } from './payloads';
import { parseTimestamp } from './time';
import { sha256HexOfText } from './canonical';
import type { RecordKind } from './names';
import { withBinding } from './channel-binding';

/** Signs a payload string; returns 128 hex digits (e.g. `(p) => naclSign(seed, p)`). */
export type Signer = (payload: string) => string;

/** Kinds that carry a signature. */
export type SignedKind = Exclude<RecordKind, 'agent' | 'claim' | 'heartbeat' | 'ledger' | 'interrupt_ack'>;

/**
 * Returns `fields` with `signed_by` and `signature` added, signed over the kind's §3.1
 * payload, and with `channel`, the binding to that channel (channel-binding.ts). `fields` must
 * be the record's own fields (names, timestamps as RFC 3339 strings). Throws Error when the
 * fields do not make a valid record of that kind (the reason says why).
 */
export function signFields(
  kind: SignedKind,
  fields: Readonly<Record<string, unknown>>,
  signerName: string,
  sign: Signer,
  channel?: string,
): Record<string, unknown> {
  const { signed_by: _a, signature: _b, channel: _c, channel_signature: _d, ...own } = fields;
  const shaped = shapeRecord(kind, new TextEncoder().encode(JSON.stringify(own)));
  if (!shaped.ok) throw new Error(`not a valid ${kind}: ${shaped.detail}`);
  const payload = signingPayload(shaped.record as SignedRecord);
  const signed = { ...own, signed_by: signerName, signature: sign(payload) };
  return channel === undefined ? signed : withBinding(signed, channel, payload, sign);
}

/** A ledger line's own fields, before signing. */
export interface LedgerLineInput {
  readonly kind: string;
  readonly actor: string;
  readonly summary: string;
  readonly reference?: string | null;
  /** RFC 3339, the writer's clock. */
  readonly created_at: string;
}

/**
 * The next line of a ledger file: `prev` = hex SHA-256 of `previousLine`'s
 * exact text (empty when null), signed by `signerName`. Returns the JSON text of the line
 * without a newline. Throws Error for an unparseable `created_at`.
 */
export function signLedgerLine(
  input: LedgerLineInput,
  previousLine: string | null,
  signerName: string,
  sign: Signer,
): string {
  return signLedgerLineAfter(input, previousLine === null ? '' : sha256HexOfText(previousLine), signerName, sign);
}

/**
 * The same as signLedgerLine, given `prev` (the previous line's hash, '' for the first line)
 * instead of the line; with `channel`, the line is bound to that channel (channel-binding.ts).
 */
export function signLedgerLineAfter(input: LedgerLineInput, prev: string, signerName: string, sign: Signer, channel?: string): string {
  const created = parseTimestamp(input.created_at);
  if (!created.ok) throw new Error(`created_at: ${created.reason}`);
  const reference = input.reference ?? null;
  const payload = ledgerLinePayload({ ...input, reference, created_at: created.value, prev });
  const line = {
    kind: input.kind,
    actor: input.actor,
    summary: input.summary,
    ...(reference !== null ? { reference } : {}),
    created_at: input.created_at,
    prev,
    signed_by: signerName,
    signature: sign(payload),
  };
  return JSON.stringify(channel === undefined ? line : withBinding(line, channel, payload, sign));
}
