/**
 * Runs before every request but the API's and /metrics' (Next.js 16 proxy): the read token when
 * one is configured (CLAIMBOARD_READ_TOKEN; required by `claimboard serve` beyond loopback), and
 * a per-request CSP nonce for pages so that no inline script runs but Next's own. /api routes
 * and /metrics check the read token themselves (the executor, lib/api/endpoint.ts): running the
 * proxy costs about a quarter of a cheap API request, they need no nonce, and a scraper must get
 * its answer, not the redirect that trades `?token=` for a cookie.
 */
import { NextResponse, type NextRequest } from 'next/server';
import { contentSecurityPolicy, hasReadToken, TOKEN_COOKIE } from './lib/security';
import { settings } from './lib/config';

export function proxy(request: NextRequest) {
  const token = settings.readToken();
  const query = request.nextUrl.searchParams.get('token');
  if (!hasReadToken(token, { headers: request.headers, cookie: request.cookies.get(TOKEN_COOKIE)?.value, query })) {
    return new NextResponse('claimboard: a read token is required (open the URL with ?token=<CLAIMBOARD_READ_TOKEN>)\n', {
      status: 401,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
    });
  }
  if (token && query) {
    // Trade the token in the URL for an HttpOnly cookie, and drop it from the address bar.
    const clean = request.nextUrl.clone();
    clean.searchParams.delete('token');
    const res = NextResponse.redirect(clean);
    res.cookies.set(TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/' });
    return res;
  }
  if (request.nextUrl.pathname.startsWith('/_next/')) return NextResponse.next();
  const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('Content-Security-Policy', csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set('Content-Security-Policy', csp);
  return res;
}

// Every page, whatever its headers (a prefetch too): only static assets, the API and /metrics are left out.
export const config = {
  matcher: ['/((?!api/|metrics$|_next/static|_next/image|favicon).*)'],
};
