/**
 * The README's screenshots, taken from the demo channel: the board at 1440 px in light, the
 * board on a phone (390 px) in dark, and an order page. The channel is the one `npm start`
 * writes (`claimboard demo`), served by a `claimboard serve` of this spec's own
 * (e2e/own-server.ts: a port the kernel picks, the test clock). Time is let pass beyond
 * stale_after, then the live runs' heartbeats are written again, as the demo's fleet would:
 * the abandoned runs read Stale, the live ones Running.
 *
 * With CLAIMBOARD_REFRESH_SCREENSHOTS=1 the pictures are written into docs/ (commit them);
 * otherwise into test-results/, so an ordinary run leaves the repository unchanged.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { BoardResponse } from '../lib/api/types';
import { ROOT, startOwnServer, type OwnServer } from './own-server';
import { get } from './http';

const OUT = process.env.CLAIMBOARD_REFRESH_SCREENSHOTS === '1' ? path.join(ROOT, 'docs') : null;
const STALE_AFTER_S = 300;
/** The order page shown: the demo's give-up. */
const ORDER = 'flaky-test-web-880';

let server: OwnServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startOwnServer({
    prefix: 'cb-e2e-shots-',
    vectors: [],
    args: ['--stale-after', String(STALE_AFTER_S)],
    // `claimboard demo <dir>`: the demo channel, its keys beside it and its manifest (`<dir>.fleet.json`).
    prepare: (channel) => {
      execFileSync(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), 'demo', channel], { cwd: ROOT, stdio: 'ignore' });
    },
  });
  await server.letTimePass((STALE_AFTER_S + 60) * 1000);
  // The live runs beat again (a new file by rename, as the fleet writes it); the abandoned stay stale.
  const manifest = JSON.parse(fs.readFileSync(`${server.channel}.fleet.json`, 'utf8')) as { abandoned: string[] };
  const abandoned = new Set(manifest.abandoned);
  const tasks = path.join(server.channel, 'tasks');
  for (const order of fs.readdirSync(tasks)) {
    for (const f of fs.readdirSync(path.join(tasks, order))) {
      const m = /^heartbeat\.([^.]+)\.json$/.exec(f);
      if (!m || abandoned.has(`${order}/${m[1]}`)) continue;
      const file = path.join(tasks, order, f);
      fs.copyFileSync(file, `${file}.tmp`);
      fs.renameSync(`${file}.tmp`, file);
    }
  }
  await expect
    .poll(
      async () => {
        const b = (await (await get(`${server.url}/api/board`)).json()) as BoardResponse;
        const count = (lane: string) => b.lanes.find((l) => l.lane === lane)?.count ?? 0;
        return count('running') > 0 && count('stale') > 0 && count('attention') > 0;
      },
      { timeout: 60_000 },
    )
    .toBe(true);
});

test.afterAll(async () => {
  await server?.stop();
});

async function shot(page: Page, name: string, outputDir: string): Promise<void> {
  const file = path.join(OUT ?? outputDir, name);
  await page.screenshot({ path: file });
  expect(fs.statSync(file).size).toBeLessThan(300 * 1024);
}

async function board(page: Page): Promise<void> {
  await page.goto(`${server.url}/`);
  await expect(page.locator('[data-hydrated="yes"]')).toBeVisible();
  await expect(page.locator('[data-lane] article[data-order]').first()).toBeVisible();
}

test.describe(() => {
  // 760 px high: the header and the first cards of every lane, within the size the docs keep (< 300 KB).
  test.use({ viewport: { width: 1440, height: 760 } });

  test('the board at 1440 px, light', async ({ page }, testInfo) => {
    await board(page);
    for (const lane of ['attention', 'stale', 'running']) await expect(page.locator(`section[data-lane="${lane}"] article[data-order]`).first()).toBeVisible();
    await shot(page, 'board.png', testInfo.outputDir);
  });
});

test.describe(() => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme: 'dark' });

  test('the board on a phone, dark', async ({ page }, testInfo) => {
    await board(page);
    await expect(page.getByRole('tab', { name: /^Needs attention,/ })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'board-phone-dark.png', testInfo.outputDir);
  });
});

test.describe(() => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test('an order page', async ({ page }, testInfo) => {
    await page.goto(`${server.url}/orders/${ORDER}`);
    await expect(page.getByText(ORDER).first()).toBeVisible();
    await expect(page.getByText('gave up').first()).toBeVisible();
    await shot(page, 'order.png', testInfo.outputDir);
  });
});
