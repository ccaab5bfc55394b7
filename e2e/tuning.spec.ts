/**
 * The stale-threshold page (/tuning) and the agent page's plots, through the
 * production build on a server of this spec's own (`--stale-after 2000` on the test clock,
 * e2e/test-clock.ts, started here and stopped by its pid) serving a fresh temp copy of vectors 03-claimed-fresh (t1, claimed by
 * fang, with a heartbeat) and 10-review-states (ra, rb, rc: claimed 09:05, result 09:30, so three
 * finished runs of 25 min each, by the holder's clock).
 *
 * Heartbeat gaps are observed live (docs/tuning.md: a gap counts only between two arrivals this
 * process saw), so the spec rewrites t1's heartbeat itself, temp + rename in the temp copy, at
 * known pauses on the test clock: 7 rewrites, pauses 1400 1400 4400 1400 1400 4400 s, hence 6
 * gaps (each its pause plus the few real seconds the spec takes to see the rewrite arrive) of
 * which 2 are longer than the 2000 s threshold. They fall well inside whole log buckets on either
 * side of it, [1259, 1585) s and [3981, 5012) s, so the report's estimate of the share beyond
 * (whole buckets) is exact. Before the rewrites the channel has no gap at all: the page says "Not
 * enough data yet" instead of a chart.
 *
 * Screenshots, light and dark: test-results/tuning-{empty,page,agent}-{light,dark}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { startOwnServer, type OwnServer } from './own-server';
import { get } from './http';

const STALE_AFTER_S = 2000;
const PAUSES_S = [1400, 1400, 4400, 1400, 1400, 4400];
let URL = '';

let server: OwnServer | null = null;
let channel = '';

async function shot(page: Page, testInfo: TestInfo, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = path.join(testInfo.project.outputDir, `tuning-${name}-${scheme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${scheme}`, { path: file, contentType: 'image/png' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** When t1's heartbeat arrived, on the server's clock (null before the first). */
async function heartbeatArrival(): Promise<number | null> {
  const r = await get(`${URL}/api/orders/t1`);
  const body = (await r.json()) as { card: { heartbeat: { arrival_ms: number } | null } };
  return body.card.heartbeat?.arrival_ms ?? null;
}

/** Rewrites t1's heartbeat the way ferry does (a temp name, then a rename) and waits until the server has seen it arrive. */
async function beat() {
  const before = await heartbeatArrival();
  const file = path.join(channel, 'tasks/t1/heartbeat.fang.json');
  const tmp = path.join(channel, 'tasks/t1/.heartbeat.fang.json.tmp');
  fs.writeFileSync(tmp, `${JSON.stringify({ order_id: 't1', agent: 'fang', run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4242, at: new Date().toISOString() }, null, 2)}\n`);
  fs.renameSync(tmp, file);
  await expect.poll(heartbeatArrival, { intervals: [100] }).not.toBe(before);
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await startOwnServer({ prefix: 'cb-e2e-tuning-', vectors: ['03-claimed-fresh', '10-review-states'], args: ['--stale-after', String(STALE_AFTER_S)] });
  channel = server.channel;
  URL = server.url;
});

test.afterAll(async () => {
  await server?.stop();
});

test('no heartbeat gap yet: "Not enough data yet" instead of the gaps chart; three runs are too few for a chart but have their figures', async ({ page }, testInfo) => {
  await page.goto(`${URL}/tuning`);
  await expect(page.getByRole('heading', { level: 1, name: 'Threshold' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Threshold', exact: true })).toHaveAttribute('aria-current', 'page');
  // The threshold in force, in words: --stale-after 2000.
  await expect(page.locator('[data-threshold]')).toHaveText('33 min');

  const gaps = page.locator('section[aria-labelledby="gaps"]');
  await expect(gaps.locator('[data-not-enough]')).toContainText('Not enough data yet: no run’s heartbeat has arrived here twice');
  await expect(gaps.locator('svg[role="img"]')).toHaveCount(0);
  await expect(gaps.locator('[data-beyond]')).toHaveText('No heartbeat gap has been observed yet.');
  await expect(gaps.locator('[data-suggestion="none"]')).toContainText('No suggestion yet.');

  // ra, rb, rc: claimed 09:05, result 09:30 (the holder's clock): 3 runs of 25 min.
  const runs = page.locator('section[aria-labelledby="runs"]');
  await expect(runs.locator('[data-not-enough]')).toHaveText('Not enough data yet: only 3 finished runs so far; a distribution needs at least 5.');
  await expect(runs.locator('[data-percentiles]')).toContainText('runs3');
  await expect(runs.locator('[data-percentiles]')).toContainText('median (p50)25 min');
  await expect(runs.locator('[data-percentiles]')).toContainText('longest25 min');

  // Time in lane: the four orders of the two vectors; ra alone in Review, rb alone in Done.
  const lanes = page.locator('[data-lanes]');
  await expect(lanes.locator('tbody tr')).toHaveCount(6);
  const counts = await lanes.locator('tbody tr td:nth-child(2)').allTextContents();
  expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(4);
  await expect(lanes.locator('tr[data-lane-age="review"] td:nth-child(2)')).toHaveText('1');
  await expect(lanes.locator('tr[data-lane-age="review"]').getByRole('link', { name: 'ra' })).toHaveAttribute('href', '/orders/ra');
  await expect(lanes.locator('tr[data-lane-age="done"]').getByRole('link', { name: 'rb' })).toHaveAttribute('href', '/orders/rb');
  await shot(page, testInfo, 'empty');
});

test('heartbeat gaps observed live: the chart with the threshold line labelled in words, the share beyond it, what it would have flagged', async ({ page }, testInfo) => {
  if (!server) throw new Error('no server');
  await beat();
  for (const s of PAUSES_S) {
    await server.letTimePass(s * 1000);
    await beat();
  }
  // The report is refetched every 15 s; a reload asks for it now, until the last arrival is in.
  await expect(async () => {
    await page.goto(`${URL}/tuning`);
    await expect(page.locator('section[aria-labelledby="gaps"] [data-percentiles]')).toContainText('gaps6', { timeout: 3_000 });
  }).toPass({ timeout: 60_000 });

  const gaps = page.locator('section[aria-labelledby="gaps"]');
  const chart = gaps.getByRole('img', { name: /Time between two arrivals of one run's heartbeat/ });
  await expect(chart).toBeVisible();
  await expect(chart.locator('[data-mark="current"] text')).toHaveText('stale after 33 min');
  // Its text alternative says the same in words.
  await expect(chart.locator('desc')).toContainText('6 gaps on a log scale from 1 s to 6 h');
  await expect(chart.locator('desc')).toContainText('a solid line at 33 min: stale after 33 min');
  // The x axis in words.
  for (const t of ['1 s', '1 min', '1 h']) await expect(chart.locator('text', { hasText: new RegExp(`^${t}$`) })).toHaveCount(1);

  // 2 of the 6 gaps (the 4400 s pauses) were longer than 2000 s.
  await expect(gaps.locator('[data-beyond]')).toHaveText('2 gaps (33 %) were longer than the threshold (33 min).');
  await expect(gaps.locator('[data-percentiles]')).toContainText('longest1 h 13 min');
  // 6 gaps from 1 run: the suggestion needs 30 from 3 (docs/tuning.md), said plainly.
  await expect(gaps.locator('[data-suggestion="none"]')).toContainText('No suggestion yet.');
  // t1's longest gap (4400 s) was longer than 2000 s: the one run, linked to its order.
  const current = page.locator('[data-would-flag="current"]');
  await expect(current).toContainText('At the threshold in force (33 min)');
  await expect(current).toContainText('1 of 1 run would have shown as stale at least once.');
  await expect(current.getByRole('link', { name: 't1' })).toHaveAttribute('href', '/orders/t1');
  await expect(current).toContainText('fang, longest gap 1 h 13 min');

  // The numbers as a table: the 6 gaps in two buckets, 4 and 2.
  await gaps.getByText('The numbers').click();
  await expect(gaps.locator('details table tbody td:nth-child(3)')).toHaveText(['4', '2']);
  await shot(page, testInfo, 'page');
});

test("the agent page: fang's gaps with the threshold line, its runs", async ({ page }, testInfo) => {
  await page.goto(`${URL}/agents/fang`);
  const section = page.locator('section[aria-labelledby="tuning"]');
  await expect(section.getByRole('heading', { name: 'Heartbeat gaps and run durations' })).toBeVisible();
  const chart = section.getByRole('img', { name: /Its heartbeat gaps/ });
  await expect(chart.locator('[data-mark="current"] text')).toHaveText('stale after 33 min');
  await expect(section.locator('[data-beyond]')).toHaveText('2 gaps (33 %) were longer than the threshold (33 min).');
  // fang finished ra and rb (25 min each); two runs are too few for a chart.
  await expect(section).toContainText('Not enough data yet: only 2 finished runs so far');
  await expect(section).toContainText('2 runs: median 25 min, p99 25 min, longest 25 min.');
  await expect(section.getByRole('link', { name: 'the whole channel' })).toHaveAttribute('href', '/tuning');
  await shot(page, testInfo, 'agent');
});
