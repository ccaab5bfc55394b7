/**
 * The board, an order page and live updates, against `claimboard serve` on a fresh copy of
 * vectors 10, 11 and 20 (e2e/fixture.ts): every order in the lane its vector expects, lane
 * counts, an order's timeline as a story, the filter in the URL, the keyboard, and a change
 * in the folder showing without a reload. Screenshots: test-results/board.png, board-dark.png,
 * order-g1.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { EXPECTED_LANES, mainServer } from './fixture';
import { serveThisFile } from './fixture-server';

const server = mainServer();
serveThisFile(server);

const LANE_TITLES: Record<string, string> = {
  attention: 'Needs attention',
  stale: 'Stale',
  running: 'Running',
  review: 'Review',
  queue: 'Queue',
  done: 'Done',
};

const lane = (page: Page, name: string) => page.locator(`section[data-lane="${name}"]`);

async function openBoard(page: Page, query = '') {
  await page.goto(`/${query}`);
  await expect(page.locator('[data-order]').first()).toBeVisible();
  // The board arrives rendered; its keys and controls work once the page has hydrated.
  await expect(page.locator('[data-hydrated="yes"]')).toBeVisible();
}

test('every order of the vectors is in its expected lane, with the lane counts', async ({ page }, testInfo) => {
  await openBoard(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Board' })).toBeVisible();

  // Lanes left to right in docs/channel-format.md order.
  const order = await page.locator('section[data-lane]').evaluateAll((els) => els.map((e) => e.getAttribute('data-lane')));
  expect(order).toEqual(['attention', 'stale', 'running', 'review', 'queue', 'done']);

  for (const [name, ids] of Object.entries(EXPECTED_LANES)) {
    const l = lane(page, name);
    await expect(l.getByRole('heading', { level: 2 })).toContainText(LANE_TITLES[name]!);
    await expect(l.locator('[data-lane-count]')).toHaveAttribute('data-lane-count', String(ids.length));
    const shown = await l.locator('[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('data-order')));
    expect([...shown].sort(), `lane ${name}`).toEqual([...ids].sort());
  }

  // Each card says why, in words.
  await expect(lane(page, 'attention').locator('[data-order="g1"]')).toContainText('fang gave up: run pruned; delivery unknown');
  await expect(lane(page, 'attention').locator('[data-order="c"]')).toContainText('depends on nope, not an order of this channel: ferry never offers it');

  const shot = path.join(testInfo.project.outputDir, 'board.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('board', { path: shot, contentType: 'image/png' });
});

test.describe('the page as the server sends it, no script run', () => {
  test.use({ javaScriptEnabled: false });

  test('has every lane with its count and its cards, for the filters in the URL too', async ({ page }) => {
    await page.goto('/');
    for (const [name, ids] of Object.entries(EXPECTED_LANES)) {
      await expect(lane(page, name).locator('[data-lane-count]')).toHaveAttribute('data-lane-count', String(ids.length));
      const shown = await lane(page, name).locator('[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('data-order')));
      expect([...shown].sort(), `lane ${name}`).toEqual([...ids].sort());
    }
    // The older parameter, read as the query `state:blocked`: b (queue) and c (attention), as in the filter test below.
    await page.goto('/?state=blocked');
    const blocked = await page.locator('[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('data-order')).sort());
    expect(blocked).toEqual(['b', 'c']);
  });
});

test('the board the server sent comes alive without an error, and is not fetched again before the live stream opens', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const calls: string[] = [];
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (p === '/api/board' || p === '/api/events') calls.push(p);
  });
  await openBoard(page);
  await expect(page.locator('[data-live="on"]')).toBeVisible();
  await expect(page.locator('[data-order="g1"] [data-card-link]')).toBeVisible();
  // The stream's opening asks for the board once (lib/client/live.ts); nothing asks before it.
  expect(calls[0]).toBe('/api/events');
  expect(errors).toEqual([]);
});

test('the board in dark mode', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openBoard(page);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).not.toBe('rgb(255, 255, 255)');
  const shot = path.join(testInfo.project.outputDir, 'board-dark.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('board-dark', { path: shot, contentType: 'image/png' });
});

test('an order page tells its story: sentence, fields, timeline', async ({ page }, testInfo) => {
  await openBoard(page);
  await lane(page, 'attention').getByRole('link', { name: 'g1', exact: true }).click();
  await expect(page).toHaveURL(/\/orders\/g1$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('g1');
  await expect(page.locator('[data-why]')).toContainText('fang gave up: run pruned; delivery unknown');

  const timeline = page.getByRole('list', { name: 'timeline' });
  const kinds = await timeline.locator('li[data-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
  expect(kinds).toEqual(expect.arrayContaining(['order', 'claim', 'giveup']));
  expect(kinds).toHaveLength(3);
  // Both clocks on every row.
  for (const row of await timeline.locator('li[data-kind]').all()) {
    await expect(row).toContainText('arrived');
    await expect(row).toContainText('writer clock');
  }
  await expect(timeline.locator('li[data-kind="giveup"]')).toContainText('fang');

  const shot = path.join(testInfo.project.outputDir, 'order-g1.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('order-g1', { path: shot, contentType: 'image/png' });
});

test('an unknown order says so', async ({ page }) => {
  await page.goto('/orders/no-such-order');
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
});

test('filters live in the URL; / searches, j/k move, Enter opens', async ({ page }) => {
  await openBoard(page, '?state=blocked');
  await expect(page.locator('#filter-state')).toHaveValue('blocked');
  const blocked = await page.locator('[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('data-order')).sort());
  expect(blocked).toEqual(['b', 'c']);

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/$/);

  await page.keyboard.press('/');
  await expect(page.locator('#board-search')).toBeFocused();
  await page.keyboard.type('rb');
  await expect(page).toHaveURL(/\?q=rb$/);
  await expect(page.locator('[data-order]')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(page.locator('#board-search')).not.toBeFocused();

  await page.keyboard.press('j');
  await expect(page.locator('[data-order="rb"] [data-card-link]')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/orders\/rb$/);
});

test('a change in the folder shows on the board without a reload', async ({ page }) => {
  await openBoard(page);
  await expect(lane(page, 'queue').locator('[data-order="a"]')).toBeVisible();
  await expect(page.locator('[data-live="on"]')).toBeVisible();
  // wisp claims `a` (claims are unsigned): written the way Syncthing does, temp name then rename.
  const dir = path.join(server.channel, 'tasks', 'a');
  const tmp = path.join(dir, '.claim.wisp.json.tmp');
  fs.writeFileSync(tmp, JSON.stringify({ order_id: 'a', agent: 'wisp', claimed_at: new Date().toISOString() }));
  fs.renameSync(tmp, path.join(dir, 'claim.wisp.json'));
  await expect(lane(page, 'running').locator('[data-order="a"]')).toBeVisible();
  await expect(lane(page, 'running').locator('[data-order="a"]')).toContainText('claimed by wisp; no heartbeat yet');
  await expect(lane(page, 'queue').locator('[data-lane-count]')).toHaveAttribute('data-lane-count', String(EXPECTED_LANES.queue!.length - 1));
});
