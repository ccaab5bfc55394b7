import 'server-only';
/**
 * Shared plumbing of the route handlers, which parse, call and respond: the error response
 * (a ClaimboardError of lib/errors.ts as `{error: code, message, ...detail}` with its code's
 * status), `respond` for handlers whose work throws one, JSON responses, the read token, and
 * opening the index.
 */
import { readDb, type DB } from '../index/db';
import { settings } from '../config';
import { cookieValue, hasReadToken, TOKEN_COOKIE } from '../security';
import { ClaimboardError, HTTP_STATUS, type ErrorCode } from '../errors';

/**
 * The response to an error: the JSON body `{error: code, message, ...detail}` with the code's
 * status (lib/errors.ts HTTP_STATUS), never cached, with Retry-After when the error says how long
 * to wait. `errorResponse(code, message, detail)` is the same for a new ClaimboardError.
 */
export function errorResponse(error: ClaimboardError): Response;
export function errorResponse(code: ErrorCode, message: string, detail?: Readonly<Record<string, unknown>>): Response;
export function errorResponse(error: ClaimboardError | ErrorCode, message = '', detail: Readonly<Record<string, unknown>> = {}): Response {
  const e = error instanceof ClaimboardError ? error : new ClaimboardError(error, message, { detail });
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (e.retryAfterS !== undefined) headers['Retry-After'] = String(e.retryAfterS);
  return Response.json({ error: e.code, message: e.message, ...e.detail }, { status: HTTP_STATUS[e.code], headers });
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
export function jsonBytes(body: Uint8Array): Response {
  // Buffers from Buffer.from(string) sit on a plain ArrayBuffer (the type allows a shared one).
  return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
}

/** The answer to a request without the read token (the same as the proxy's for pages). */
export function readTokenRequired(): Response {
  return new Response('claimboard: a read token is required (open the URL with ?token=<CLAIMBOARD_READ_TOKEN>)\n', {
    status: 401,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  });
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
  return (req, ...rest) => {
    const token = settings.readToken();
    if (token) {
      const url = req.url;
      const q = url.indexOf('?');
      const query = q === -1 ? null : new URLSearchParams(url.slice(q)).get('token');
      if (!hasReadToken(token, { headers: req.headers, cookie: cookieValue(req.headers.get('cookie'), TOKEN_COOKIE), query })) return readTokenRequired();
    }
    return handler(req, ...rest);
  };
}

/** Runs `f` with the read-only index, answering 503 when it cannot be opened. */
export function withDb(f: (db: DB) => Response): Response {
  let db: DB;
  try {
    db = readDb();
  } catch (e) {
    return errorResponse('index_unavailable', `the index is not available yet: ${e instanceof Error ? e.message : String(e)}`);
  }
  return f(db);
}

/** Whether operator actions are accepted (not in read-only mode). */
export function actionsEnabled(): boolean {
  return !settings.readOnly();
}
