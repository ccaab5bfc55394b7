/**
 * The channel binding of an operator act (docs/channel-format.md, "Which channel an act is for"):
 * every file an act writes (its records and its ledger line) names the channel it was signed for,
 * in a second signature by the same signer, so that an act signed for one channel is never
 * applied to another, even one whose operator ledger ends with the same line.
 *
 * The channel is named by the id in `claimboard.channel.json` at the channel's root: written once,
 * with the first act claimboard writes there, never replaced. A byte copy of a folder is the same
 * channel (it carries the same id); another channel has another id.
 *
 * The binding is two fields ferry does not read, `channel` and `channel_signature`, beside the
 * record's own `signature`: ferry's structs ignore unknown fields and verify the signature over
 * the fields it names, so a bound release or order verifies in ferry exactly as before, and a
 * ledger line chains as before (ferry hashes the line's text). The channel signature covers
 * `claimboard-channel-v1`, the channel id and the record's own signing payload, one per line.
 *
 * Pure: no Node builtins (the server's reading and writing of the file are lib/actions/channel-id.ts).
 */
import { parseStrictJson, toPlain } from './json';
import { isSafeComponent } from './names';
import { checkSignature, type Ed25519Verify, type Roster, type SignatureCheck } from './verify';
import type { Signer } from './sign';
import type { RefusalReason } from '../errors';

/** The file at the channel's root that names the channel. */
export const CHANNEL_FILE = 'claimboard.channel.json';

const TAG = 'claimboard-channel-v1';

/** A channel id: 8 to 128 letters, digits, `.`, `-`, `_` (claimboard writes 32 hex digits). */
export function isChannelId(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 8 && v.length <= 128 && isSafeComponent(v);
}

/** The id `claimboard.channel.json`'s bytes name, or why they name none. */
export function parseChannelFile(bytes: Uint8Array): { readonly id: string } | { readonly problem: string } {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return { problem: `not strict JSON: ${parsed.reason}` };
  const v = toPlain(parsed.node) as Record<string, unknown> | null;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { problem: 'not a JSON object' };
  if (!isChannelId(v.channel)) return { problem: 'its "channel" is not a channel id (8 to 128 letters, digits, ".", "-", "_")' };
  return { id: v.channel };
}

/** The bytes of a new `claimboard.channel.json` naming `id`, written at `createdAt` (RFC 3339, the writer's clock). */
export function channelFileBytes(id: string, createdAt: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ channel: id, created_at: createdAt }, null, 2) + '\n');
}

/** What a channel signature covers: the tag, the channel id and the file's own signing payload, one per line. */
export function channelPayload(channel: string, payload: string): string {
  return [TAG, channel, payload].join('\n');
}

/** The binding fields as written in a record or a ledger line (any JSON value: checked here). */
export interface BindingFields {
  readonly channel?: unknown;
  readonly channel_signature?: unknown;
  readonly signed_by?: unknown;
}

/** A file's binding: none, the channel it names with its signature's check. */
export type Binding =
  | { readonly state: 'unbound' }
  | { readonly state: 'bound'; readonly channel: string; readonly check: SignatureCheck | 'malformed' };

/**
 * The binding of a record's or a ledger line's fields, its channel signature checked against
 * the roster as the file's own signature is (by `signed_by`'s key). `payload` is the file's own
 * signing payload (payloads.ts). `malformed`: `channel` is not a channel id.
 */
export function bindingOf(f: BindingFields, payload: string | (() => string), roster: Roster, verify: Ed25519Verify): Binding {
  if (f.channel === undefined && f.channel_signature === undefined) return { state: 'unbound' };
  if (!isChannelId(f.channel)) return { state: 'bound', channel: typeof f.channel === 'string' ? f.channel : '', check: 'malformed' };
  const channel = f.channel;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const check = checkSignature(str(f.signed_by), str(f.channel_signature), () => channelPayload(channel, typeof payload === 'string' ? payload : payload()), roster, verify);
  return { state: 'bound', channel, check };
}

/**
 * Why a file of a new act may not be written into the channel `channel`, or null: `what` names
 * it ("the release record", "the ledger line"). An act must be bound to this channel, by a
 * channel signature that verifies: unbound is `bad_request` (signed by a page or CLI that does
 * not bind; sign again: `unbound`), another channel (`other_channel`) or a bad channel signature
 * (`bad_signature`) is `forbidden`.
 */
export function bindingRefusal(
  what: string,
  b: Binding,
  channel: string,
): { readonly code: 'bad_request' | 'forbidden'; readonly reason: string; readonly reason_code: Extract<RefusalReason, 'unbound' | 'other_channel' | 'bad_signature'> } | null {
  if (b.state === 'unbound') return { code: 'bad_request', reason_code: 'unbound', reason: `${what} names no channel: an act must be signed for this channel (${channel}); sign it again` };
  if (b.check === 'malformed') return { code: 'bad_request', reason_code: 'unbound', reason: `${what} names no valid channel id; sign it again` };
  if (b.channel !== channel) return { code: 'forbidden', reason_code: 'other_channel', reason: `${what} was signed for channel ${b.channel}, not this channel (${channel}): an act is applied only to the channel it was signed for` };
  if (b.check !== 'valid') return { code: 'forbidden', reason_code: 'bad_signature', reason: `${what}'s channel signature: ${b.check.replace('_', ' ')}` };
  return null;
}

/** `fields` (already signed over `payload`) with the binding to `channel` added, signed by the same signer. */
export function withBinding<T extends Record<string, unknown>>(fields: T, channel: string, payload: string, sign: Signer): T & { channel: string; channel_signature: string } {
  const valid: boolean = isChannelId(channel);
  if (!valid) throw new Error(`"${channel}" is not a channel id`);
  return { ...fields, channel, channel_signature: sign(channelPayload(channel, payload)) };
}
