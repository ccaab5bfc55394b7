import 'server-only';
/**
 * The fast path of the web process (bin/web.ts): the two read endpoints every open board and
 * order page polls, GET /api/board and GET /api/orders/:id, and the fleet history's export,
 * GET /api/holds, answered by their endpoints (lib/api/board-get.ts, order-get.ts,
 * holds-get.ts) through the one executor (endpoint.ts) straight from Node's HTTP server, ahead
 * of Next.js.
 * Measured at 100,000 orders on 2 cores: Next.js spends about 1 ms of routing per request on
 * top of the handler's own work and answered 600 requests/s under 20 clients (p95 58 ms); the
 * same handlers without it answered several times as many (README, performance). Everything
 * else (pages, actions, other routes, HEAD, a path Next.js would redirect) goes to Next.js.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { boardGet } from './board-get';
import { orderGet } from './order-get';
import { holdsGet } from './holds-get';
import { pathParams, runEndpoint, type Endpoint } from './endpoint';
import type { Answer, ReadRequest } from './answer';

/** The headers next.config.mjs sets on every answer; fast-path.test.ts holds the two lists equal. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Bodies at least this long are gzipped for a client that accepts it (Next.js's own threshold, 1 KB). */
export const GZIP_MIN_BYTES = 1024;

/** A handler of the fast path: the request's URL and headers in, an Answer out (answer.ts). */
export type FastHandler = (req: ReadRequest) => Answer;

/** The endpoints the fast path answers: GET only, each answering synchronously with bytes. */
const FAST_ENDPOINTS: readonly Endpoint<unknown>[] = [boardGet, holdsGet, orderGet];

/** An endpoint's path as a pattern: each `:name` one segment of at least one character. */
const patternOf = (path: string) => new RegExp(`^${path.replace(/:\w+/g, '([^/]+)')}$`);
const ROUTES = FAST_ENDPOINTS.map((endpoint) => ({ endpoint, pattern: patternOf(endpoint.path), names: pathParams(endpoint) }));

/**
 * The endpoint and path parameters of a request the fast path answers, or null for one it
 * leaves to Next.js: only GET, only FAST_ENDPOINTS' paths (any query), each path parameter
 * decoded (a bad percent-escape goes to Next.js, which answers it as it always did).
 */
export function fastRoute(method: string | undefined, url: string | undefined): { endpoint: Endpoint<unknown>; params: Record<string, string> } | null {
  if (method !== 'GET' || !url) return null;
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  for (const r of ROUTES) {
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] as string)));
    } catch {
      return null;
    }
    return { endpoint: r.endpoint, params };
  }
  return null;
}

/** The fast path's adapter of an endpoint: the executor's answer, which must be bytes given at once. */
export function fastAnswer(endpoint: Endpoint<unknown>, params: Readonly<Record<string, string>>): FastHandler {
  return (req) => {
    const a = runEndpoint(endpoint, { url: req.url, header: req.header, params });
    if (a instanceof Promise || 'stream' in a) throw new Error(`${endpoint.path} cannot be answered on the fast path: its answer is not bytes at once`);
    return a;
  };
}

/** The handler for a request the fast path answers (fastRoute), or null for one it leaves to Next.js. */
export function fastHandler(method: string | undefined, url: string | undefined): FastHandler | null {
  const r = fastRoute(method, url);
  return r ? fastAnswer(r.endpoint, r.params) : null;
}

/** Whether an Accept-Encoding header takes gzip (`gzip` or `*`, with no `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  for (const part of (header ?? '').split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== '*') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** The ReadRequest of a Node request: its URL as sent, and a header as Headers.get would give it (repeated ones joined). */
function requestOf(req: IncomingMessage): ReadRequest {
  return {
    url: req.url ?? '/',
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

/**
 * Answers `req` with `handler`, as Next.js would have: the handler's status and headers, the
 * security headers, gzip when the client accepts it and the body is 1 KB or more. A handler that
 * throws is a 500 (logged), as in Next.js; the process goes on.
 */
export function answerFast(req: IncomingMessage, res: ServerResponse, handler: FastHandler): void {
  let status: number;
  const headers: Record<string, string> = { ...SECURITY_HEADERS };
  let body: Buffer;
  try {
    const a = handler(requestOf(req));
    status = a.status;
    // Header names in lower case, as a Response's headers gave them.
    for (const [k, v] of Object.entries(a.headers)) headers[k.toLowerCase()] = v;
    body = a.body;
  } catch (e) {
    console.error(`claimboard web: ${req.method ?? ''} ${req.url ?? ''} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    status = 500;
    body = Buffer.alloc(0);
  }
  headers.Vary = 'Accept-Encoding';
  if (body.length >= GZIP_MIN_BYTES && acceptsGzip(req.headers['accept-encoding'])) {
    body = gzipSync(body);
    headers['Content-Encoding'] = 'gzip';
  }
  headers['Content-Length'] = String(body.length);
  if (res.destroyed) return;
  res.writeHead(status, headers);
  res.end(body);
}
