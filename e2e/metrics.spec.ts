/**
 * GET /metrics as a Prometheus server scrapes it from `claimboard serve`:
 * through the production build, past the proxy, parsed with a text-format parser.
 *
 * - On the main fixture: 200 without a token (none is configured, loopback), no page headers
 *   (the proxy skips it), and the lane gauges equal /api/board's counts read at the same time.
 * - On a server of its own (CLAIMBOARD_READ_TOKEN set, a fresh copy of vector 17,
 *   started here and stopped by its pid): without the token 401, with `Authorization: Bearer`
 *   or `?token=` 200 straight away (no redirect to a cookie, which a scraper would not keep),
 *   pages still behind the token; its problems per code are expect.json's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parseMetrics, sampleValue } from '../test/support/prometheus';
import type { BoardResponse } from '../lib/api/types';
import { ROOT, startOwnServer, type OwnServer } from './own-server';
import { mainServer } from './fixture';
import { serveThisFile } from './fixture-server';

serveThisFile(mainServer());

const TOKEN = 'metrics-e2e-7c41';
let TOKEN_URL = '';

test('/metrics on the fixture: parsed, not behind the page proxy, lane gauges equal /api/board', async ({ request }) => {
  // Board and metrics read one after the other: read both again until they agree (nothing
  // writes the fixture meanwhile).
  await expect(async () => {
    const res = await request.get('/metrics');
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers()['content-security-policy']).toBeUndefined();
    const families = parseMetrics(await res.text());
    const board = (await (await request.get('/api/board')).json()) as BoardResponse;
    expect(board.lanes).toHaveLength(6);
    for (const page of board.lanes) expect(sampleValue(families, 'claimboard_lane_orders', { lane: page.lane }), page.lane).toBe(page.count);
    const total = board.lanes.reduce((n, l) => n + l.count, 0);
    expect((families.get('claimboard_orders')?.samples ?? []).reduce((n, s) => n + s.value, 0)).toBe(total);
    expect(sampleValue(families, 'claimboard_index_ready')).toBe(1);
    expect(families.has('process_resident_memory_bytes')).toBe(true);
  }).toPass({ timeout: 60_000 });
});

test.describe('/metrics with a read token', () => {
  let server: OwnServer | null = null;

  test.beforeAll(async () => {
    server = await startOwnServer({
      prefix: 'cb-e2e-metrics-',
      vectors: ['17-bad-signatures'],
      env: { CLAIMBOARD_READ_TOKEN: TOKEN },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    TOKEN_URL = server.url;
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  test('401 without the token; 200 with a bearer or ?token= (no redirect); pages still need it', async ({ request }) => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }] as Record<string, string>[]) {
      const res = await request.get(`${TOKEN_URL}/metrics`, { headers, maxRedirects: 0 });
      expect(res.status(), JSON.stringify(headers)).toBe(401);
      expect(await res.text()).toContain('a read token is required');
    }
    const bearer = await request.get(`${TOKEN_URL}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` }, maxRedirects: 0 });
    expect(bearer.status()).toBe(200);
    const families = parseMetrics(await bearer.text());
    // expect.json of vector 17: three problems, one of each code; its three orders in Needs attention.
    const expectJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'conformance/vectors/17-bad-signatures/expect.json'), 'utf8')) as { problems: { problem: string }[] };
    for (const p of expectJson.problems) expect(sampleValue(families, 'claimboard_problems', { code: p.problem }), p.problem).toBe(1);
    expect((families.get('claimboard_problems')?.samples ?? []).reduce((n, s) => n + s.value, 0)).toBe(expectJson.problems.length);
    expect(sampleValue(families, 'claimboard_lane_orders', { lane: 'attention' })).toBe(3);
    expect(sampleValue(families, 'claimboard_signatures_verified_total')).toBeGreaterThan(0);

    const query = await request.get(`${TOKEN_URL}/metrics?token=${TOKEN}`, { maxRedirects: 0 });
    expect(query.status()).toBe(200);
    expect(parseMetrics(await query.text()).has('claimboard_lane_orders')).toBe(true);

    const page = await request.get(`${TOKEN_URL}/`, { maxRedirects: 0 });
    expect(page.status()).toBe(401);
  });
});
