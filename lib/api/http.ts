import 'server-only';
/**
 * Shared plumbing of the route handlers: error bodies (lib/errors.ts codes, answered with the
 * code's status), JSON responses, the read token, and opening the index.
 */
import { NextResponse } from 'next/server';
import { readDb, type DB } from '../index/db';
import { settings } from '../config';
import { cookieValue, hasReadToken, TOKEN_COOKIE } from '../security';
import { HTTP_STATUS, type ErrorCode } from '../errors';

export type { ErrorCode };

/** A JSON error body `{error: code, message}` with the code's status. */
export function errorResponse(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): NextResponse {
  return NextResponse.json({ error: code, message, ...extra }, { status: HTTP_STATUS[code], headers: { 'Cache-Control': 'no-store' } });
}

/** A JSON 200 response that is never cached. */
export function json(body: unknown, status = 200): NextResponse {
  return NextResponse.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
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
export function withDb(f: (db: DB) => NextResponse | Response): NextResponse | Response {
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
