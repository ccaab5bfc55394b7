/**
 * The web process served (bin/web.ts behind `claimboard serve`): the fast path answers the two
 * polled endpoints with the read token enforced as Next.js's routes enforce it, gzips for a
 * client that asks, and everything else still reaches Next.js (pages with their CSP from
 * proxy.ts, a method the route does not take). Needs the production build (skipped, and said,
 * without it; scripts/test.sh runs it after the build).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBuilt, freePort, killAll, ServeProcess } from '../test/support/soak/proc';
import { VECTORS_DIR } from '../test/support/vectors';

const built = dashboardBuilt();
if (!built) console.warn('web.test.ts: skipped: no production build (.next/BUILD_ID); run `npm run build` first');

const TOKEN = 'a-read-token-for-the-test-0123456789';
const ORDER = 'ichabod-1650'; // vector 06's one order

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
let port = 0;
function req(method: string, p: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, path: p, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    r.on('error', reject);
    r.end();
  });
}
const auth = { Authorization: `Bearer ${TOKEN}` };

let serve: ServeProcess | null = null;
const dirs: string[] = [];
beforeAll(async () => {
  if (!built) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-web-'));
  dirs.push(dir);
  const channel = path.join(dir, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '06-stale-no-heartbeat', 'channel'), channel, { recursive: true });
  port = await freePort();
  serve = new ServeProcess({ channel, db: path.join(dir, 'index.sqlite'), port, staleAfterS: 300, env: { ...process.env, CLAIMBOARD_READ_TOKEN: TOKEN } });
  // waitReady asks without the token: poll with it instead.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (serve.exited !== null) throw new Error(`serve exited:\n${serve.tail()}`);
    const r = await req('GET', '/api/board', auth).catch(() => null);
    if (r?.status === 200 && (JSON.parse(r.body.toString()) as { progress: { phase: string } }).progress.phase === 'ready') break;
    if (Date.now() > deadline) throw new Error(`not ready:\n${serve.tail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});
afterAll(async () => {
  await serve?.stop();
  killAll();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!built)('the web process: fast path and Next.js behind it', () => {
  it('the read token holds on the fast path: 401 without it, the answer with it', async () => {
    for (const p of ['/api/board', `/api/orders/${ORDER}`, '/api/board?lane=stale']) {
      const without = await req('GET', p);
      expect(without.status, p).toBe(401);
      expect(without.body.toString()).toMatch(/a read token is required/);
      expect((await req('GET', p, { Authorization: 'Bearer wrong' })).status, p).toBe(401);
    }
    const board = await req('GET', '/api/board', auth);
    expect(board.status).toBe(200);
    expect(board.headers['content-type']).toBe('application/json');
    expect(board.headers['x-frame-options']).toBe('DENY');
    const lanes = (JSON.parse(board.body.toString()) as { lanes: { lane: string; count: number }[] }).lanes;
    expect(lanes.reduce((n, l) => n + l.count, 0)).toBe(1); // vector 06 has one order (fresh here: its files just arrived)
    const order = await req('GET', `/api/orders/${ORDER}`, auth);
    expect(order.status).toBe(200);
    expect((JSON.parse(order.body.toString()) as { card: { order_id: string } }).card.order_id).toBe(ORDER);
    const missing = await req('GET', '/api/orders/no-such-order', auth);
    expect([missing.status, (JSON.parse(missing.body.toString()) as { error: string }).error]).toEqual([404, 'not_found']);
    const bad = await req('GET', '/api/board?q=colour%3Ared', auth);
    expect(bad.status).toBe(400);
    // A Host header that is not a host the board is served as: refused before anything, token or not.
    expect((await req('GET', '/api/board', { Host: 'a b' })).status).toBe(421);
    expect((await req('GET', `/api/orders/${ORDER}`, { ...auth, Host: 'x:99999' })).status).toBe(421);
  });

  it('gzips for a client that accepts it: the same JSON', async () => {
    const plain = await req('GET', '/api/board', auth);
    const zipped = await req('GET', '/api/board', { ...auth, 'Accept-Encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const lanesOf = (b: Buffer) => (JSON.parse(b.toString()) as { lanes: unknown }).lanes;
    expect(lanesOf(gunzipSync(zipped.body))).toEqual(lanesOf(plain.body));
  });

  it('everything else reaches Next.js: a page with its CSP, a method the route does not take', async () => {
    const page = await req('GET', '/', auth);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self' 'nonce-/);
    expect(page.body.toString()).toMatch(/<html/);
    expect((await req('POST', '/api/board', auth)).status).toBe(405);
    expect((await req('GET', '/', {})).status).toBe(401); // the proxy's token check, for pages
  });
});
