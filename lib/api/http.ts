import 'server-only';
/**
 * Shared plumbing of the route handlers, which parse, call and respond: the error response
 * (a ClaimboardError of lib/errors.ts as `{error: code, reason_code?, message, ...detail}` with its code's
 * status), `respond` for handlers whose work throws one, JSON responses, the read token, and
 * opening the index.
 */
import { readDb, type DB } from '../index/db';
import { settings } from '../config';
import { cookieValue, hasReadToken, TOKEN_COOKIE } from '../security';
import { ClaimboardError, HTTP_STATUS, type ErrorCode } from '../errors';
import { toResponse, type Answer, type ReadRequest } from './answer';

/**
 * The response to an error: the JSON body `{error: code, reason_code?, message, ...detail}` (the
 * reason code only for a refused act) with the code's
 * status (lib/errors.ts HTTP_STATUS), never cached, with Retry-After when the error says how long
 * to wait. `errorResponse(code, message, detail)` is the same for a new ClaimboardError.
 */
export function errorResponse(error: ClaimboardError): Response;
export function errorResponse(code: ErrorCode, message: string, detail?: Readonly<Record<string, unknown>>): Response;
export function errorResponse(error: ClaimboardError | ErrorCode, message = '', detail: Readonly<Record<string, unknown>> = {}): Response {
  return toResponse(error instanceof ClaimboardError ? errorAnswer(error) : errorAnswer(error, message, detail));
}

/** errorResponse as an Answer (the fast path's). */
export function errorAnswer(error: ClaimboardError): Answer;
export function errorAnswer(code: ErrorCode, message: string, detail?: Readonly<Record<string, unknown>>): Answer;
export function errorAnswer(error: ClaimboardError | ErrorCode, message = '', detail: Readonly<Record<string, unknown>> = {}): Answer {
  const e = error instanceof ClaimboardError ? error : new ClaimboardError(error, message, { detail });
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
  if (e.retryAfterS !== undefined) headers['Retry-After'] = String(e.retryAfterS);
  return { status: HTTP_STATUS[e.code], headers, body: Buffer.from(JSON.stringify({ error: e.code, ...(e.reasonCode ? { reason_code: e.reasonCode } : {}), message: e.message, ...e.detail })) };
}

/**
 * Answers what `work` returns; a ClaimboardError it throws is answered by errorResponse.
 * Anything else thrown goes on (Next.js answers 500): it is a programming error.
 */
export async function respond(work: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ClaimboardError) return errorResponse(e);
    throw e;
  }
}

/** A JSON 200 response that is never cached. */
export function json(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
}

/**
 * A JSON 200 response of ready UTF-8 bytes (a cached answer is not encoded again per request),
 * never cached. (No Content-Length: Next.js drops it and sends the body chunked.)
 */
export function jsonBytes(body: Buffer): Response {
  return toResponse(jsonAnswer(body));
}

/** jsonBytes as an Answer (the fast path's). */
export function jsonAnswer(body: Buffer): Answer {
  return { status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body };
}

/** The answer to a request without the read token (the same as the proxy's for pages). */
export function readTokenRequired(): Response {
  return toResponse(READ_TOKEN_REQUIRED);
}

const READ_TOKEN_REQUIRED: Answer = {
  status: 401,
  headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  body: Buffer.from('claimboard: a read token is required (open the URL with ?token=<CLAIMBOARD_READ_TOKEN>)\n'),
};

/** Whether a request may read: no read token configured, or it carries it (bearer, cookie or `?token=` in `url`). */
function mayRead(url: string, header: (name: string) => string | null): boolean {
  const token = settings.readToken();
  if (!token) return true;
  const q = url.indexOf('?');
  const query = q === -1 ? null : new URLSearchParams(url.slice(q)).get('token');
  return hasReadToken(token, { headers: { get: header }, cookie: cookieValue(header('cookie'), TOKEN_COOKIE), query });
}

/**
 * Wraps an /api route handler in the read-token check (lib/security.ts): when
 * CLAIMBOARD_READ_TOKEN is set, a request without it (`Authorization: Bearer`, the cookie, or
 * `?token=`) gets 401 and the handler does not run. The proxy does not run for /api routes
 * (it costs about a quarter of a cheap API request), so every handler under app/api/ is
 * exported through this (app/api/read-token.test.ts checks each one).
 */
export function withReadToken<A extends unknown[], R extends Response>(
  handler: (req: Request, ...rest: A) => R | Promise<R>,
): (req: Request, ...rest: A) => R | Response | Promise<R | Response> {
  return (req, ...rest) => (mayRead(req.url, (n) => req.headers.get(n)) ? handler(req, ...rest) : readTokenRequired());
}

/** withReadToken for a handler of the fast path (ReadRequest in, Answer out). */
export function readTokenChecked<A extends unknown[]>(handler: (req: ReadRequest, ...rest: A) => Answer): (req: ReadRequest, ...rest: A) => Answer {
  return (req, ...rest) => (mayRead(req.url, req.header) ? handler(req, ...rest) : READ_TOKEN_REQUIRED);
}

/** Runs `f` with the read-only index, answering 503 when it cannot be opened. */
export function withDb(f: (db: DB) => Response): Response {
  const db = openedDb();
  return 'db' in db ? f(db.db) : toResponse(db.error);
}

/** withDb for the fast path's handlers. */
export function withDbAnswer(f: (db: DB) => Answer): Answer {
  const db = openedDb();
  return 'db' in db ? f(db.db) : db.error;
}

function openedDb(): { db: DB } | { error: Answer } {
  try {
    return { db: readDb() };
  } catch (e) {
    return { error: errorAnswer('index_unavailable', `the index is not available yet: ${e instanceof Error ? e.message : String(e)}`) };
  }
}

/** Whether operator actions are accepted (not in read-only mode). */
export function actionsEnabled(): boolean {
  return !settings.readOnly();
}
