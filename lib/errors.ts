/**
 * The error codes of claimboard, shared by the core, the server and the browser: what an error
 * body's `error` field says (`{error: code, message}`), the one map from a code to the HTTP
 * status it is answered with, and ClaimboardError, the one error type the server's services
 * throw (lib/api/http.ts `errorResponse` answers it). No imports: anything may use it.
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

/** The code a status stands for (a bulk result carries only its status), or null for a status no code has (201, 500). */
export function codeOfStatus(status: number): ErrorCode | null {
  return ERROR_CODES.find((c) => HTTP_STATUS[c] === status) ?? null;
}

/**
 * An error an operator or a client can act on: a code, a message that says why, and what else
 * its error body carries (`detail`, e.g. a conflict's current card) and, for
 * `too_many_requests`, the seconds to wait (`retryAfterS`, sent as Retry-After). Anything else
 * thrown is a programming error (a 500).
 */
export class ClaimboardError extends Error {
  override readonly name = 'ClaimboardError';
  readonly detail: Readonly<Record<string, unknown>>;
  readonly retryAfterS: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { readonly detail?: Readonly<Record<string, unknown>>; readonly retryAfterS?: number } = {},
  ) {
    super(message);
    this.detail = options.detail ?? {};
    this.retryAfterS = options.retryAfterS;
  }
}
