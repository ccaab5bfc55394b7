/**
 * A hub in the browser: one `claimboard serve` of two channels (vectors 20 as `web`, 11 as
 * `payments`; e2e/own-server.ts `hub`), a day's stale window so no claim ages out while the tests
 * run. The board holds every order of both, each in the lane its vector expects and naming its
 * channel; each channel's line under the summary (by name) says what waits in it; the channel picker narrows
 * the board and the URL says so; on a phone the picker is one more filter; an order's page names
 * its channel. Screenshots: test-results/hub-1440-light.png, hub-390-dark.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { fixtureServer, serveThisFile } from './fixture-server';
import { ROOT } from './own-server';

const CHANNELS = { web: '20-dependencies', payments: '11-give-up-ack-reopen' } as const;
type Channel = keyof typeof CHANNELS;

const server = fixtureServer({ prefix: 'cb-e2e-hub-', name: 'web', vectors: [CHANNELS.web], hub: { payments: [CHANNELS.payments] }, args: ['--stale-after', '86400'] });
serveThisFile(server);

/** Each lane's cards as `channel/order`, sorted, as the vectors' expect.json files place them. */
function expectedLanes(channels: readonly Channel[]): Record<string, string[]> {
  const lanes: Record<string, string[]> = {};
  for (const c of channels) {
    const expect = JSON.parse(fs.readFileSync(path.join(ROOT, 'conformance/vectors', CHANNELS[c], 'expect.json'), 'utf8')) as { orders: Record<string, { lane: string }> };
    for (const [id, o] of Object.entries(expect.orders)) (lanes[o.lane] ??= []).push(`${c}/${id}`);
  }
  for (const l of Object.values(lanes)) l.sort();
  return lanes;
}

/** Each lane's cards as the page shows them, `channel/order` (the card's channel chip), sorted. */
async function shownLanes(page: Page): Promise<Record<string, string[]>> {
  const lanes: Record<string, string[]> = {};
  for (const lane of await page.locator('section[data-lane]').all()) {
    const name = (await lane.getAttribute('data-lane')) as string;
    const cards = await lane.locator('[data-order]').evaluateAll((els) => els.map((e) => `${e.querySelector('[data-channel]')?.getAttribute('data-channel')}/${e.getAttribute('data-order')}`));
    if (cards.length > 0) lanes[name] = cards.sort();
  }
  return lanes;
}

async function openBoard(page: Page, query = '') {
  await page.goto(`/${query}`);
  await expect(page.locator('[data-order]').first()).toBeVisible();
  await expect(page.locator('[data-hydrated="yes"]')).toBeVisible();
}

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const file = path.join(testInfo.project.outputDir, `hub-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

const channelLines = (page: Page) => page.getByRole('list', { name: 'Channels' }).getByRole('listitem');

test.describe('at 1440', () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("holds every order of both channels in the lane its channel gives it, each card naming its channel; each channel's line says what waits in it", async ({ page }, testInfo) => {
    await openBoard(page);
    expect(await shownLanes(page)).toEqual(expectedLanes(['web', 'payments']));
    // Each vector has one order in Needs attention (web's c, payments' g1) and none stale.
    await expect(channelLines(page)).toHaveText(['payments up to date · 1 needs attention', 'web up to date · 1 needs attention']);
    await expect(page.locator('section[data-lane="attention"] [data-lane-count]')).toHaveAttribute('data-lane-count', '2');
    await shot(page, testInfo, '1440-light');
  });

  test('the channel picker narrows the board to one channel, and the URL says so: opened again, it shows the same', async ({ page }) => {
    await openBoard(page);
    await page.getByLabel('Channel', { exact: true }).selectOption('payments');
    await expect(page).toHaveURL(/[?&]q=channel%3Apayments(&|$)/);
    await expect.poll(() => shownLanes(page)).toEqual(expectedLanes(['payments']));
    await expect(channelLines(page)).toHaveText(['payments up to date · 1 needs attention', 'web not shown by this query']);
    await page.reload();
    await expect(page.locator('[data-hydrated="yes"]')).toBeVisible();
    expect(await shownLanes(page)).toEqual(expectedLanes(['payments']));
    await expect(page.getByLabel('Channel', { exact: true })).toHaveValue('payments');
  });

  test("an order's page names its channel", async ({ page }) => {
    await openBoard(page);
    await page.locator('section[data-lane="attention"] [data-order="g1"] a').first().click();
    await expect(page).toHaveURL(/\/orders\/g1\?channel=payments$/);
    await expect(page.locator('main [data-channel="payments"]').first()).toBeVisible();
  });
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' });

  test("the channel is one more filter: picked, each lane's tab counts that channel's orders", async ({ page }, testInfo) => {
    await openBoard(page);
    await shot(page, testInfo, '390-dark');
    await page.getByLabel('Channel', { exact: true }).selectOption('web');
    await expect(page).toHaveURL(/[?&]q=channel%3Aweb(&|$)/);
    const web = expectedLanes(['web']);
    const titles = { attention: 'Needs attention', stale: 'Stale', running: 'Running', review: 'Review', queue: 'Queue', done: 'Done' };
    for (const [lane, title] of Object.entries(titles)) {
      const n = web[lane]?.length ?? 0;
      await expect(page.locator(`[data-lane-tab="${lane}"]`)).toHaveAttribute('aria-label', `${title}, ${n} ${n === 1 ? 'order' : 'orders'}`);
    }
  });
});
