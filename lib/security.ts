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
