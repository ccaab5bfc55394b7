/**
 * The error codes of claimboard, shared by the core, the server and the browser: what an error
 * body's `error` field says (`{error: code, message}`), and the one map from a code to the HTTP
 * status it is answered with. No imports: anything may use it.
 */

/** Every error code, as sent in an error body's `error`. */
export const ERROR_CODES = ['bad_request', 'forbidden', 'not_found', 'conflict', 'refused', 'too_many_requests', 'index_unavailable'] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The HTTP status of each code (DESIGN.md "HTTP"): 400 bad input, 403 not allowed, 404 no such
 * thing, 409 the folder moved on since the operator looked, 422 a rule of LEDGER.md refuses it,
 * 429 too many actions, 503 no index yet. The only place a code becomes a status.
 */
export const HTTP_STATUS = {
  bad_request: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  refused: 422,
  too_many_requests: 429,
  index_unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

/** Whether `x` is one of the codes (an error body from the server, read in the browser). */
export function isErrorCode(x: unknown): x is ErrorCode {
  return typeof x === 'string' && (ERROR_CODES as readonly string[]).includes(x);
}
