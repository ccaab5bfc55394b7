/**
 * The error codes of claimboard, shared by the core, the server and the browser: what an error
 * body's `error` field says (`{error: code, message}`), the one map from a code to the HTTP
 * status it is answered with, and ClaimboardError, the one error type the server's services
 * throw (lib/api/endpoint.ts `errorAnswer` answers it). No imports: anything may use it.
 */

/** Every error code, as sent in an error body's `error`. */
export const ERROR_CODES = ['bad_request', 'forbidden', 'not_found', 'conflict', 'too_large', 'unsupported_media_type', 'refused', 'too_many_requests', 'index_unavailable'] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The HTTP status of each code: 400 bad input, 403 not allowed, 404 no such
 * thing, 409 the folder moved on since the operator looked, 413 a body over the limit, 415 not JSON (the action endpoints
 * take application/json only), 422 a rule of docs/channel-format.md refuses it, 429 too many actions, 503 no
 * index yet. The only place a code becomes a status (codeOfStatus reads it backwards).
 */
export const HTTP_STATUS = {
  bad_request: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  refused: 422,
  too_many_requests: 429,
  index_unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

/** Whether `x` is one of the codes (an error body from the server, read in the browser). */
export function isErrorCode(x: unknown): x is ErrorCode {
  return typeof x === 'string' && (ERROR_CODES as readonly string[]).includes(x);
}

/**
 * Why an operator act was refused, as a code a client decides by (the words are the message's):
 * sent as `reason_code` beside the message, in an action endpoint's error body and in each
 * refused result of a bulk answer. Several reasons share one ErrorCode (its HTTP status).
 *
 * - `malformed` (400, 413, 415): the request or its records are not well formed
 * - `mismatch` (400): the records or the ledger line do not say what the operator saw
 * - `unbound` (400): a record or the ledger line names no (valid) channel: sign it again
 * - `which_channel` (400, 404): several channels are served and the act names none, or names one not served
 * - `channels_mixed` (400, bulk only): the actions of one request belong to several channels
 * - `read_only`, `cross_origin`, `not_operator`, `bad_signature`, `other_channel` (403)
 * - `no_order` (409): the order seen is not in the folder now
 * - `card_moved` (409): the order is no longer in the state, holder and target seen (the body has the current card)
 * - `plan_changed` (409): what a retired agent holds is not what the operator saw
 * - `target_moved` (409): an ack or reopen must name what the order needs now: decide again
 * - `id_taken` (409): a supersede's new order id is already an order
 * - `ledger_moved` (409): the operator's ledger has a new line since the act was signed: sign again
 * - `chain_broken` (409, bulk only): an earlier act of the batch was refused, so this one was not applied: sign again
 * - `ledger_unreadable`, `in_the_way`, `replay` (409): a file in the way of the write
 * - `rule` (422): a rule of docs/channel-format.md refuses the act on the order as it is
 * - `looks_alive` (422): the agent to retire has a fresh heartbeat: confirm twice
 * - `unverified` (422): the index has not checked the signatures behind the card yet
 * - `no_channel` (422): the folder names no channel an act can be bound to, or is not read
 * - `write_failed` (422): the disk refused the write
 * - `rate_limited` (429), `index_unavailable` (503)
 */
export const REFUSAL_REASONS = [
  'malformed',
  'mismatch',
  'unbound',
  'which_channel',
  'channels_mixed',
  'read_only',
  'cross_origin',
  'not_operator',
  'bad_signature',
  'other_channel',
  'no_order',
  'card_moved',
  'plan_changed',
  'target_moved',
  'id_taken',
  'ledger_moved',
  'chain_broken',
  'ledger_unreadable',
  'in_the_way',
  'replay',
  'rule',
  'looks_alive',
  'unverified',
  'no_channel',
  'write_failed',
  'rate_limited',
  'index_unavailable',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Whether `x` is one of the refusal reasons (an answer's `reason_code`, read in the browser). */
export function isRefusalReason(x: unknown): x is RefusalReason {
  return typeof x === 'string' && (REFUSAL_REASONS as readonly string[]).includes(x);
}

/** The code a status stands for (a bulk result carries only its status), or null for a status no code has (201, 500). */
export function codeOfStatus(status: number): ErrorCode | null {
  return ERROR_CODES.find((c) => HTTP_STATUS[c] === status) ?? null;
}

/**
 * An error an operator or a client can act on: a code, a message that says why, and what else
 * its error body carries (`detail`, e.g. a conflict's current card), for a refused act its
 * reason (`reasonCode`, sent as `reason_code`) and, for `too_many_requests`, the seconds to wait
 * (`retryAfterS`, sent as Retry-After). Anything else thrown is a programming error (a 500).
 */
export class ClaimboardError extends Error {
  override readonly name = 'ClaimboardError';
  readonly detail: Readonly<Record<string, unknown>>;
  readonly retryAfterS: number | undefined;
  readonly reasonCode: RefusalReason | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { readonly detail?: Readonly<Record<string, unknown>>; readonly retryAfterS?: number; readonly reasonCode?: RefusalReason } = {},
  ) {
    super(message);
    this.detail = options.detail ?? {};
    this.retryAfterS = options.retryAfterS;
    this.reasonCode = options.reasonCode;
  }
}
