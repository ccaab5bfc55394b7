/**
 * The board's event stream opening after a change it would have named (lib/client/live.ts).
 * The stream's first message carries the index's latest change, so a change made between the
 * board's first fetch and the stream's opening was never sent to the page; while the stream is
 * open the page does not poll, so the board showed the old state until some later change.
 * Found from the e2e run whose stale lane stayed empty for 15 s (local-liveness.spec.ts, under
 * load); the page now refetches what is on screen whenever the stream opens, the first time too.
 *
 * A server of this spec's own (`--stale-after 3600`, on the test clock: e2e/test-clock.ts) on
 * vector 04-stale-heartbeat-lapsed. In each test a heartbeat is rewritten, so its order is
 * fresh, and the page's stream is held (page.route) while the page loads and until the test
 * lets an hour pass on the server's clock and the server says the order is stale; then it is
 * let through.
 * 1. The stream alone held: the page's first fetch saw the order fresh. (While the stream is
 *    down the page polls every 10 s; a poll landing just after the change would also show it,
 *    so this test can pass without the fix on a rare run, never fail with it.)
 * 2. The page's first board answer held too, read before the change and delivered after the
 *    stream opened (TanStack Query hands an invalidation of a query with no data yet to the fetch
 *    on its way): the page's polls wait on that fetch, so only the opening can show the change.
 *    Since the page arrives with its board (app/page.tsx), the first board request it makes is
 *    the one the stream's opening asks for; the case stays for a board the page fetches itself
 *    (filters changed in the page).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { BoardResponse } from '../lib/api/types';
import { startOwnServer, type OwnServer } from './own-server';
import { get } from './http';

const STALE_AFTER_MS = 3_600_000;
let server: OwnServer | null = null;
let URL = '';

test.beforeAll(async () => {
  server = await startOwnServer({ prefix: 'cb-e2e-live-open-', vectors: ['04-stale-heartbeat-lapsed'], args: ['--stale-after', String(STALE_AFTER_MS / 1000)] });
  URL = server.url;
});

/** The change: an hour and a second pass on the server's clock, and the server's board has `id` stale. */
async function goesStale(id: string): Promise<void> {
  if (!server) throw new Error('no server');
  await server.letTimePass(STALE_AFTER_MS + 1000);
  await expect.poll(() => staleOnServer(id), { intervals: [200] }).toBe(true);
}
test.afterAll(async () => {
  await server?.stop();
});

/** Whether the server's own board (not the page's) has order `id` in the Stale lane. */
async function staleOnServer(id: string): Promise<boolean> {
  const r = await get(`${URL}/api/board`);
  const body = (await r.json()) as BoardResponse;
  return body.lanes.some((l) => l.lane === 'stale' && l.cards.some((c) => c.order_id === id));
}

/**
 * Rewrites fang's heartbeat on `order` as ferry does (a temp name, then a rename), naming a new
 * run, and waits until the server's board has the order fresh again.
 */
async function freshBeat(order: string, run: string, pid: number): Promise<void> {
  if (!server) throw new Error('no server');
  const dir = path.join(server.channel, `tasks/${order}`);
  fs.writeFileSync(path.join(dir, '.heartbeat.fang.json.tmp'), `${JSON.stringify({ order_id: order, agent: 'fang', run, pid, at: new Date().toISOString() }, null, 2)}\n`);
  fs.renameSync(path.join(dir, '.heartbeat.fang.json.tmp'), path.join(dir, 'heartbeat.fang.json'));
  await expect.poll(() => staleOnServer(order), { intervals: [100] }).toBe(false);
}

test('a change made before the event stream opened shows once it opens', async ({ page }) => {
  await freshBeat('t1', 'a1b2c3d4e5f60718293a4b5c6d7e8f90', 4242);

  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/events', async (route) => {
    await held;
    await route.continue().catch(() => undefined);
  });
  await page.goto(`${URL}/`);
  const t1 = page.locator('[data-order="t1"]').first();
  await expect(t1).toBeVisible();
  await expect(page.locator('section[data-lane="stale"] [data-order="t1"]')).toHaveCount(0);

  // The change: t1 goes stale on the server while the page's stream is held.
  await goesStale('t1');
  release();
  await expect(page.locator('section[data-lane="stale"] [data-order="t1"]')).toBeVisible();
});

test("a change made while the page's first fetch was on its way shows once the stream opens", async ({ page }) => {
  // The page's polls (every 10 s while the stream is down) wait on its first fetch.
  await freshBeat('t2', 'b1b2c3d4e5f60718293a4b5c6d7e8f90', 4243);

  // The page's first board answer is read from the server now (t2 fresh) and delivered only
  // after the change and the stream's opening; later board requests go through.
  let releaseBoard: () => void = () => {};
  const boardHeld = new Promise<void>((r) => (releaseBoard = r));
  let first = true;
  await page.route('**/api/board**', async (route) => {
    if (!first) return route.continue();
    first = false;
    const answer = await route.fetch();
    await boardHeld;
    await route.fulfill({ response: answer }).catch(() => undefined); // the page may have cancelled it
  });
  let releaseStream: () => void = () => {};
  const streamHeld = new Promise<void>((r) => (releaseStream = r));
  let streams = 0;
  await page.route('**/api/events', async (route) => {
    await streamHeld;
    streams++;
    await route.continue().catch(() => undefined);
  });
  await page.goto(`${URL}/`);
  await goesStale('t2');
  releaseStream();
  await expect.poll(() => streams).toBeGreaterThan(0);
  await expect(page.locator('[data-live="on"]')).toBeVisible();
  releaseBoard();
  await expect(page.locator('section[data-lane="stale"] [data-order="t2"]')).toBeVisible();
});
