import path from 'node:path';
import { expect, test } from '@playwright/test';

test('home page says what claimboard is and how to run it', async ({ page }, testInfo) => {
  const response = await page.goto('/');
  expect(response?.status()).toBe(200);
  expect(response?.headers()['x-powered-by']).toBeUndefined();

  await expect(page).toHaveTitle('claimboard');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('claimboard');
  await expect(page.getByRole('heading', { name: 'The board comes next' })).toBeVisible();
  await expect(page.getByText('npx claimboard state <channel>')).toBeVisible();

  // A fixed place, test-results/home.png, so a reviewer finds it without searching.
  const shot = path.join(testInfo.project.outputDir, 'home.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('home', { path: shot, contentType: 'image/png' });
});

test('home page in dark mode keeps readable contrast', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('claimboard');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).not.toBe('rgb(255, 255, 255)');

  const shot = path.join(testInfo.project.outputDir, 'home-dark.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('home-dark', { path: shot, contentType: 'image/png' });
});
