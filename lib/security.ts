/**
 * Security policy of the dashboard (issue "reliability and security"): the Content-Security-
 * Policy (scripts only from this origin or carrying the per-request nonce Next.js stamps on
 * its own inline bootstrap scripts), and the optional read token required when the dashboard
 * listens beyond loopback. Pure, so it runs in the proxy and in tests.
 */

/** The CSP for a page rendered with `nonce`. Inline styles are allowed (style attributes); inline scripts are not. */
export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Name of the cookie that carries the read token after a first `?token=` visit. */
export const TOKEN_COOKIE = 'claimboard_token';

/**
 * The value of cookie `name` in a `Cookie` request header, read as Next.js reads it (pairs split
 * on `;`, value URI-decoded, the last of repeated names wins; a value that does not decode is
 * skipped), or undefined.
 */
export function cookieValue(header: string | null, name: string): string | undefined {
  let value: string | undefined;
  for (const pair of (header ?? '').split(/; */)) {
    const eq = pair.indexOf('=');
    if (eq === -1 ? pair !== name : pair.slice(0, eq) !== name) continue;
    try {
      value = eq === -1 ? 'true' : decodeURIComponent(pair.slice(eq + 1));
    } catch {
      /* not URI-encoded: skipped, as Next.js does */
    }
  }
  return value;
}

/** Constant-time string comparison. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Whether a request carries the read token: `Authorization: Bearer <token>`, the cookie, or
 * `?token=` (which the proxy turns into the cookie). `token` empty means no token is required.
 */
export function hasReadToken(token: string, req: { headers: { get(name: string): string | null }; cookie: string | undefined; query: string | null }): boolean {
  if (!token) return true;
  const auth = req.headers.get('authorization') ?? '';
  const bearer = auth.startsWith('Bearer ') ? auth.slice(7) : '';
  return [bearer, req.cookie ?? '', req.query ?? ''].some((v) => v.length > 0 && sameSecret(v, token));
}

/**
 * The Host header values a board served on `bind`:`port` answers to (lowercase), so that a name
 * an attacker points at this address (DNS rebinding) is refused: the bind address; `localhost`
 * and the loopback addresses for a loopback bind; for a wildcard bind, `interfaces` (this
 * machine's addresses) and `hostname`; and the host of each `publicUrls` (a reverse proxy's).
 */
export function servedHosts(bind: string, port: number, opts: { publicUrls?: readonly string[]; interfaces?: readonly string[]; hostname?: string } = {}): string[] {
  const out = new Set<string>();
  const add = (h: string, p: number) => {
    const name = (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h).toLowerCase();
    out.add(`${name}:${p}`);
    if (p === 80) out.add(name);
  };
  const b = bind.toLowerCase();
  const wildcard = b === '0.0.0.0' || b === '::' || b === '[::]';
  const loopback = b === 'localhost' || b === '::1' || b.startsWith('127.');
  if (!wildcard) add(b, port);
  if (loopback || wildcard) for (const h of ['localhost', '127.0.0.1', '::1']) add(h, port);
  if (wildcard) {
    for (const h of opts.interfaces ?? []) add(h, port);
    if (opts.hostname) add(opts.hostname, port);
  }
  for (const u of opts.publicUrls ?? []) {
    const url = new URL(u);
    out.add(url.host.toLowerCase());
    if (url.port === '') out.add(`${url.hostname.toLowerCase()}:${url.protocol === 'https:' ? 443 : 80}`);
  }
  return [...out];
}

/** Whether a request's Host header is one the board answers to (`allowed`: servedHosts; empty: not checked). */
export function hostAllowed(host: string | null | undefined, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  return typeof host === 'string' && allowed.includes(host.trim().toLowerCase());
}

/**
 * Whether an Origin header names the board itself: its host is one the board answers to (`allowed`),
 * or, when no list is configured, the request's own Host.
 */
export function originAllowed(origin: string, allowed: readonly string[], host: string | null): boolean {
  let originHost: string;
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    originHost = u.host.toLowerCase();
  } catch {
    return false;
  }
  return allowed.length > 0 ? allowed.includes(originHost) : host !== null && originHost === host.toLowerCase();
}

/**
 * The largest request body the server reads (every POST): 16 MiB. The largest legitimate one is a
 * bulk act of 500 actions (about 1.5 KB each) or a supersede carrying a new order of at most 1 MiB.
 */
export const MAX_POST_BODY_BYTES = 16 * 1024 * 1024;

/** The header the web server sets to the client's address (any value the client sent is replaced). */
export const CLIENT_ADDRESS_HEADER = 'x-claimboard-client';

/**
 * Why the web server answers a request itself before any route sees it, or null: a Host it does
 * not answer to (421), a path that does not decode (400), a POST body declared over the limit (413).
 */
export function refusedAtDoor(
  method: string | undefined,
  url: string | undefined,
  header: (name: string) => string | undefined,
  allowedHosts: readonly string[],
): { readonly status: number; readonly message: string } | null {
  const host = header('host');
  if (!hostAllowed(host, allowedHosts)) {
    return { status: 421, message: `claimboard: this board does not answer to the host ${JSON.stringify(host ?? '')} (it answers to ${allowedHosts.join(', ')}; serve --public-url adds one)` };
  }
  const u = url ?? '/';
  const q = u.indexOf('?');
  try {
    decodeURIComponent(q === -1 ? u : u.slice(0, q));
  } catch {
    return { status: 400, message: 'claimboard: the path is not valid percent-encoded UTF-8' };
  }
  if (method === 'POST') {
    const length = Number(header('content-length') ?? '0');
    if (length > MAX_POST_BODY_BYTES) return { status: 413, message: `claimboard: a request body is at most ${MAX_POST_BODY_BYTES} bytes` };
  }
  return null;
}
