/**
 * The fleet history in the browser, on vectors 11 and 13 served by a server of this spec's own
 * (e2e/own-server.ts: it writes into the folder), its test clock half an hour on after the copy so the
 * holds still held run for half an hour and more: the window nobody asked for is fitted to them
 * (the last hour), their bars spanning half the plot. Every hold GET /api/holds lists for the window is a bar, in its
 * agent's row, coloured by how it ended and linking to its order; the keyboard moves along the
 * bars and zooms; on a phone each row's name sits above its track; a release written into the
 * folder changes its bar's ending without a reload. Screenshots (light and dark, 1440 and 390):
 * test-results/history-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import type { HistoryResponse, HoldsResponse } from '../lib/api/types';
import { naclSign } from '../lib/ledger/nacl-verify';
import { signFields } from '../lib/ledger/sign';
import { fixtureServer, serveThisFile } from './fixture-server';
import { ROOT } from './own-server';
import { get } from './http';

const KEYS = JSON.parse(fs.readFileSync(path.join(ROOT, 'conformance/vectors/keys.json'), 'utf8')) as Record<'ops', { seed: string }>;

const server = fixtureServer({ prefix: 'cb-e2e-history-', vectors: ['11-give-up-ack-reopen', '13-retired'], args: ['--stale-after', '86400'] });
serveThisFile(server);

test.beforeAll(async () => {
  await server.letTimePass(30 * 60_000);
});

async function holds(): Promise<HoldsResponse['holds']> {
  return ((await (await get(`${server.url}/api/holds?range=24h`)).json()) as HoldsResponse).holds;
}

/** The history page, opened in `scheme`. */
async function open(page: Page, scheme: 'light' | 'dark' = 'light'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto('/history');
  await expect(page.locator('[data-history-chart]')).toBeVisible();
}

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const file = path.join(testInfo.project.outputDir, `history-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

test.use({ viewport: { width: 1440, height: 900 } });

test('the window nobody asked for is fitted to the holds: the last hour, its bars spanning a real part of the plot', async ({ page }) => {
  // The claims arrived with the copy, half an hour and the server's start before now: within the last hour.
  const a = (await (await get(`${server.url}/api/history`)).json()) as HistoryResponse;
  expect([a.range, a.fitted, a.to_ms - a.from_ms, a.total]).toEqual(['1h', true, 3_600_000, 5]);
  await open(page);
  await expect(page.getByRole('button', { name: 'Last hour' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'Fit to holds' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('[data-window-fit]')).toHaveText("Fitted to the holds: the last hour is the shortest window in which every hold of the last 30 days begins (its claim's arrival here).");
  // t2, still held, runs from its claim to now: about half of the plot (a 24 h window would draw it in its last 25th).
  const track = await page.locator('[data-agent-row="fang"] svg').first().boundingBox();
  const bar = await page.locator('[data-hold="t2:fang"]').boundingBox();
  expect(track && bar && bar.width >= 0.3 * track.width && bar.x + bar.width >= track.x + 0.95 * track.width, `t2 drawn ${JSON.stringify(bar)} in ${JSON.stringify(track)}`).toBe(true);
  // Asking for a range is taken as asked, and the note goes.
  await page.getByRole('button', { name: 'Last 24 h' }).click();
  await expect(page).toHaveURL(/\/history\?range=24h$/);
  await expect(page.getByRole('button', { name: 'Last 24 h' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('[data-window-fit]')).toHaveCount(0);
});

/**
 * Every hold GET /api/holds lists is a bar in its agent's row, coloured by its ending and linking
 * to its order, light and dark; on a phone each row's name sits above its track.
 */
async function everyHoldIsABar(page: Page, testInfo: TestInfo, width: number): Promise<void> {
  const listed = await holds();
  // g1 fang gave up, g2 wisp gave up, g3 nebra held (its give-up reopened), t1 fang retired by ops, t2 fang held.
  expect(listed.map((h) => `${h.order_id}:${h.agent}:${h.ending}`).sort()).toEqual(['g1:fang:gave_up', 'g2:wisp:gave_up', 'g3:nebra:held', 't1:fang:retired', 't2:fang:held']);
  for (const scheme of ['light', 'dark'] as const) {
    await open(page, scheme);
    await expect(page.locator('[data-agent-row]')).toHaveCount(3);
    expect(await page.locator('[data-agent-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-agent-row')))).toEqual(['fang', 'nebra', 'wisp']);
    for (const h of listed) {
      const bar = page.locator(`[data-agent-row="${h.agent}"] [data-hold="${h.order_id}:${h.agent}"]`);
      await expect(bar).toHaveAttribute('data-ending', h.ending);
      await expect(bar).toHaveAttribute('href', `/orders/${h.order_id}`);
      const box = await bar.boundingBox();
      expect(box && box.width >= 3 && box.height >= 10, `${h.order_id}:${h.agent} drawn at ${width}`).toBe(true);
    }
    // fang's clock note and its retirement are on its row; the numbers count its holds.
    await expect(page.locator('[data-agent-row="fang"]')).toContainText('3 holds, retired');
    await expect(page.locator('table[data-agent-numbers] tr[data-agent="fang"] td').first()).toHaveText('3');
    if (width < 500) {
      // A phone: the name above its track, nothing scrolls sideways.
      const row = page.locator('[data-agent-row="fang"]');
      const name = await row.getByRole('link', { name: 'fang', exact: true }).boundingBox();
      const track = await row.locator('svg').boundingBox();
      expect(name && track && name.y + name.height <= track.y).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    }
    await shot(page, testInfo, `${width}-${scheme}`);
  }
}

test("every hold of the window is a bar in its agent's row, coloured by its ending, linking to its order", async ({ page }, testInfo) => {
  await everyHoldIsABar(page, testInfo, 1440);
  await open(page);
  await page.locator('[data-hold="t1:fang"]').click();
  await expect(page).toHaveURL(/\/orders\/t1$/);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("every hold of the window is a bar in its agent's row, its name above its track", async ({ page }, testInfo) => {
    await everyHoldIsABar(page, testInfo, 390);
  });
});

test('the keyboard moves along the bars and zooms the window', async ({ page }) => {
  await open(page);
  const bars = page.locator('[data-agent-row="fang"] [data-hold]');
  const first = bars.first();
  await first.focus();
  const order = await bars.evaluateAll((els) => els.map((e) => e.getAttribute('data-hold')));
  await page.keyboard.press('ArrowRight');
  await expect(page.locator(`[data-hold="${order[1]}"]`)).toBeFocused();
  await expect(page.locator('[data-hold-details]')).toContainText(`fang on ${order[1]?.split(':')[0]}`);
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('[data-agent-row="nebra"] [data-hold]')).toBeFocused();
  await page.keyboard.press('+');
  await expect(page).toHaveURL(/\/history\?from=\d+&to=\d+$/);
  const u = new URL(page.url());
  expect(Number(u.searchParams.get('to')) - Number(u.searchParams.get('from'))).toBe(30 * 60_000); // half the fitted hour
});

test('a release written into the folder ends its bar without a reload', async ({ page }) => {
  await open(page);
  const bar = page.locator('[data-hold="t2:fang"]');
  await expect(bar).toHaveAttribute('data-ending', 'held');
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  // ops re-queues fang's claim on t2 from another machine: the record arrives by Syncthing's rename.
  const release = signFields('release', { order_id: 't2', released: 'fang', releaser: 'ops', reason: 'requeued: e2e', at: new Date().toISOString() }, 'ops', (p) => naclSign(KEYS.ops.seed, p));
  const file = path.join(server.channel, 'tasks/t2/release.ops.fang.json');
  fs.writeFileSync(`${path.dirname(file)}/.release.tmp`, JSON.stringify(release, null, 2));
  fs.renameSync(`${path.dirname(file)}/.release.tmp`, file);
  await expect(bar).toHaveAttribute('data-ending', 'requeued');
  await expect(bar).toHaveAttribute('aria-label', /^fang on t2: released by ops: requeued: e2e\./);
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
});
