import path from 'node:path';
import { expect, test } from '@playwright/test';
import { mainServer } from './fixture';
import { serveThisFile } from './fixture-server';

serveThisFile(mainServer());

test('the home page is the board, with the navigation and the channel', async ({ page }, testInfo) => {
  const response = await page.goto('/');
  expect(response?.status()).toBe(200);
  expect(response?.headers()['x-powered-by']).toBeUndefined();

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Board');
  await expect(page).toHaveTitle(/claimboard/);
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const name of ['Board', 'Agents', 'Problems']) await expect(nav.getByRole('link', { name: new RegExp(`^${name}`) })).toBeVisible();
  await expect(nav.getByText(/cb-e2e-main-.*channel/)).toBeVisible();

  // A fixed place, test-results/home.png, so a reviewer finds it without searching.
  const shot = path.join(testInfo.project.outputDir, 'home.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('home', { path: shot, contentType: 'image/png' });
});

test('dark mode follows the system and keeps readable contrast', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Board');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).not.toBe('rgb(255, 255, 255)');

  const shot = path.join(testInfo.project.outputDir, 'home-dark.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('home-dark', { path: shot, contentType: 'image/png' });
});

test("the navigation's pages are fetched ahead only when a pointer rests on their link, not for being in view", async ({ page }) => {
  // Next.js's prefetches carry `Next-Router-Prefetch: 1`; each names the page it fetches ahead.
  const ahead = new Set<string>();
  page.on('request', (r) => {
    if (r.headers()['next-router-prefetch'] === '1') ahead.add(new URL(r.url()).pathname);
  });
  await page.goto('/');
  await expect(page.locator('fieldset[data-hydrated="yes"]')).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const [name, path] of [
    ['Agents', '/agents'],
    ['Activity', '/activity'],
  ] as const) {
    await nav.getByRole('link', { name, exact: true }).hover();
    await expect.poll(() => ahead.has(path)).toBe(true);
  }
  // Threshold, History and Problems were in view since the page hydrated, before either hover.
  expect([...ahead].sort()).toEqual(['/activity', '/agents']);
});
