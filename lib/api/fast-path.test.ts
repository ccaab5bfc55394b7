/**
 * The web process's fast path (lib/api/fast-path.ts): which requests it takes from Next.js, the
 * headers it answers with (next.config.mjs's own), and when it gzips. bin/web.test.ts checks it
 * served, read token and all.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, fastHandler, fastRoute, SECURITY_HEADERS } from './fast-path';
import { boardGet } from './board-get';
import { holdsGet } from './holds-get';
import { orderGet } from './order-get';

describe('fastHandler: what the fast path answers, what it leaves to Next.js', () => {
  it('takes GET /api/board and GET /api/holds with any query, and GET /api/orders/<id> with the id decoded', () => {
    expect(fastRoute('GET', '/api/board')).toEqual({ endpoint: boardGet, params: {} });
    expect(fastRoute('GET', '/api/holds?range=30d&agent=fang')).toEqual({ endpoint: holdsGet, params: {} });
    expect(fastRoute('GET', '/api/board?q=lane%3Astale&lane=stale')).toEqual({ endpoint: boardGet, params: {} });
    expect(fastRoute('GET', '/api/orders/fix-api-1046')).toEqual({ endpoint: orderGet, params: { id: 'fix-api-1046' } });
    expect(fastRoute('GET', '/api/orders/a%2Fb?x=1')).toEqual({ endpoint: orderGet, params: { id: 'a/b' } }); // the endpoint refuses the id (400), as Next's route does
    expect(fastHandler('GET', '/api/orders/fix-api-1046')).toBeTypeOf('function');
  });
  it('leaves everything else to Next.js: other methods, paths, a trailing slash, a bad escape', () => {
    for (const [m, u] of [
      ['HEAD', '/api/board'],
      ['POST', '/api/board'],
      ['POST', '/api/actions'],
      ['GET', '/api/board/'],
      ['GET', '/api/boardx'],
      ['GET', '/api/holds/'],
      ['GET', '/api/history'],
      ['GET', '/api/orders'],
      ['GET', '/api/orders/'],
      ['GET', '/api/orders/a/b'],
      ['GET', '/api/orders/%E0%A4%A'],
      ['GET', '/'],
      ['GET', '/orders/fix-api-1046'],
      ['GET', undefined],
      [undefined, '/api/board'],
    ] as const) {
      expect(fastRoute(m, u), `${String(m)} ${String(u)}`).toBeNull();
      expect(fastHandler(m, u), `${String(m)} ${String(u)}`).toBeNull();
    }
  });
});

describe('the fast path answers with the headers Next.js would add', () => {
  it('SECURITY_HEADERS are next.config.mjs headers() for every path', async () => {
    const file = pathToFileURL(path.resolve(import.meta.dirname, '../../next.config.mjs')).href;
    const { default: config } = (await import(file)) as { default: { headers: () => Promise<{ source: string; headers: { key: string; value: string }[] }[]> } };
    const rules = await config.headers();
    expect(rules.map((r) => r.source)).toEqual(['/:path*']);
    expect(Object.fromEntries((rules[0]?.headers ?? []).map((h) => [h.key, h.value]))).toEqual(SECURITY_HEADERS);
  });
});

describe('acceptsGzip (RFC 9110 Accept-Encoding)', () => {
  it('gzip or * with a q above 0', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
  });
  it('not when absent, not offered, or refused with q=0', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.000, br')).toBe(false);
    expect(acceptsGzip('x-gzip')).toBe(false);
  });
});
