/**
 * The header's index health banner (components/shell/IndexHealthBanner.tsx) through
 * the production build, on a server of this spec's own (a free port, started here and stopped
 * by its pid) serving a fresh temp copy of vector 03-claimed-fresh. The state is a real one, not
 * forced: the channel folder is renamed away while the board is open, so the indexer says
 * `folder_missing` (lib/index/writer/guard.ts) in the health file that GET /api/board reads as
 * `index_health`; the page open meanwhile must show the banner with the API's reason, without a
 * reload, and lose it once the folder is back.
 *
 * Screenshots: test-results/index-health-{light,dark}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { BoardResponse } from '../lib/api/types';
import { startOwnServer, type OwnServer } from './own-server';
import { get } from './http';

let server: OwnServer | null = null;
let url = '';
let channel = '';

async function board(): Promise<BoardResponse> {
  const r = await get(`${url}/api/board`);
  expect(r.status).toBe(200);
  return (await r.json()) as BoardResponse;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await startOwnServer({ prefix: 'cb-e2e-health-', vectors: ['03-claimed-fresh'] });
  url = server.url;
  channel = server.channel;
});

test.afterAll(async () => {
  await server?.stop();
});

test('the banner says the channel folder is missing while it is, with the API reason, and goes when it is back', async ({ page }, testInfo) => {
  await page.goto(`${url}/`);
  await expect(page.locator('[data-order="t1"]')).toBeVisible();
  expect((await board()).index_health).toEqual({ state: 'ok' });
  const banner = page.locator('[data-index-health]');
  await expect(banner).toHaveCount(0);

  const away = `${channel}.away`;
  fs.renameSync(channel, away);
  // The indexer checks the folder at every update, at least once a second (the quick look).
  await expect.poll(async () => (await board()).index_health?.state).toBe('degraded');
  const health = (await board()).index_health;
  if (health?.state !== 'degraded') throw new Error(`index_health ${JSON.stringify(health)}`);
  expect(health.code).toBe('folder_missing');

  // The page open meanwhile shows it, without a reload.
  await expect(banner).toHaveAttribute('data-index-health', 'folder_missing');
  await expect(banner).toHaveAttribute('role', 'alert');
  await expect(banner).toContainText('The channel folder is missing');
  await expect(banner).toContainText('actions are refused until it is back');
  await expect(banner).toContainText(`(${health.reason})`);
  // The board it keeps is the last one, not emptied.
  await expect(page.locator('[data-order="t1"]')).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = path.join(testInfo.project.outputDir, `index-health-${scheme}.png`);
    await page.screenshot({ path: file });
    await testInfo.attach(`index-health-${scheme}`, { path: file, contentType: 'image/png' });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  fs.renameSync(away, channel);
  await expect.poll(async () => (await board()).index_health).toEqual({ state: 'ok' });
  await expect(banner).toHaveCount(0);
  await expect(page.locator('[data-order="t1"]')).toBeVisible();
});
