/**
 * The proxy does not run for /api routes nor /metrics, so each route handler checks the read
 * token itself (the endpoints' executor, lib/api/endpoint.ts, which every route's adapter goes
 * through). Every handler exported by every route file under app/ (app/api/** and app/metrics),
 * found on disk (a new route that forgets the check fails here): 401 without
 * the token when one is configured, and let through with it (bearer, cookie or query) or when
 * none is configured.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_COOKIE } from '@/lib/security';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const TOKEN = 'tok-3f9a';

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? routeFiles(p) : e.name === 'route.ts' ? [p] : [];
  });
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Response | Promise<Response>;

async function handlers(): Promise<{ name: string; method: string; call: (headers?: Record<string, string>, query?: string) => Promise<Response> }[]> {
  const out = [];
  for (const file of routeFiles(path.dirname(import.meta.dirname))) {
    const mod = (await import(file)) as Record<string, unknown>;
    const route = '/' + path.relative(path.dirname(import.meta.dirname), path.dirname(file));
    for (const method of METHODS) {
      const h = mod[method];
      if (typeof h !== 'function') continue;
      out.push({
        name: `${method} ${route}`,
        method,
        call: async (headers: Record<string, string> = {}, query = '') =>
          (h as Handler)(
            new Request(`http://127.0.0.1:3000${route.replace(/\[(\w+)\]/g, 'x')}${query}`, {
              method,
              headers: { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000', 'content-type': 'application/json', ...headers },
              ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }),
            }),
            { params: Promise.resolve({ id: 'x', name: 'x' }) },
          ),
      });
    }
  }
  return out;
}

let saved: Record<string, string | undefined> = {};
beforeEach(() => {
  saved = { token: process.env.CLAIMBOARD_READ_TOKEN, db: process.env.CLAIMBOARD_DB };
  // No index: a handler that runs answers 503 (or 403/404 before it needs one), never 401.
  process.env.CLAIMBOARD_DB = path.join(import.meta.dirname, 'no-such-index.sqlite');
});
afterEach(() => {
  for (const [k, env] of [['token', 'CLAIMBOARD_READ_TOKEN'], ['db', 'CLAIMBOARD_DB']] as const) {
    if (saved[k] === undefined) delete process.env[env];
    else process.env[env] = saved[k];
  }
});

describe('read token on /api routes and /metrics', () => {
  it('every handler refuses a request without the token (401) and lets one with it through', async () => {
    const all = await handlers();
    expect(all.map((h) => h.name)).toEqual(expect.arrayContaining(['GET /api/board', 'GET /api/orders/[id]', 'POST /api/actions', 'GET /api/events', 'GET /metrics']));
    process.env.CLAIMBOARD_READ_TOKEN = TOKEN;
    for (const h of all) {
      for (const [headers, query] of [[{}, ''], [{ authorization: `Bearer ${TOKEN}x` }, ''], [{ cookie: `${TOKEN_COOKIE}=nope` }, '?token=nope']] as const) {
        const res = await h.call(headers, query);
        expect(res.status, `${h.name} ${JSON.stringify(headers)} ${query}`).toBe(401);
        expect(await res.text()).toContain('a read token is required');
      }
      for (const [headers, query] of [[{ authorization: `Bearer ${TOKEN}` }, ''], [{ cookie: `other=1; ${TOKEN_COOKIE}=${encodeURIComponent(TOKEN)}` }, ''], [{}, `?token=${TOKEN}`]] as const) {
        const res = await h.call(headers, query);
        expect(res.status, `${h.name} ${JSON.stringify(headers)} ${query}`).not.toBe(401);
      }
    }
    delete process.env.CLAIMBOARD_READ_TOKEN;
    for (const h of all) expect((await h.call()).status, h.name).not.toBe(401);
  });
});
