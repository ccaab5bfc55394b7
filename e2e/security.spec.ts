/**
 * What the page promises about untrusted content and trust (issue "reliability and security"):
 * security headers, record text rendered as text, and a changed key shown as a banner with how
 * to re-pin from a terminal. Runs on its own copy of the main fixture (it adds an order and changes a key).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { mainServer } from './fixture';
import { serveThisFile } from './fixture-server';
import { signFields } from '../lib/ledger/sign';
import { naclPublicKey, naclSign } from '../lib/ledger/nacl-verify';

const server = mainServer();
serveThisFile(server);

const keys = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../conformance/vectors/keys.json'), 'utf8')) as Record<string, { seed: string }>;
const seed = (n: string) => keys[n]?.seed ?? '';
const put = (rel: string, value: unknown) => {
  const abs = path.join(server.channel, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs + '.tmp', JSON.stringify(value));
  fs.renameSync(abs + '.tmp', abs);
};

test('pages carry a strict CSP and the usual security headers', async ({ request }) => {
  const res = await request.get('/');
  const h = res.headers();
  expect(h['content-security-policy']).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
  const scriptSrc = (h['content-security-policy'] ?? '').split('; ').find((d) => d.startsWith('script-src')) ?? '';
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['referrer-policy']).toBe('no-referrer');
  expect(h['x-frame-options']).toBe('DENY');
});

test('markup inside a record renders as text, never as HTML', async ({ page }) => {
  const evil = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b>';
  put('tasks/xss-1/order.json', signFields('order', { id: 'xss-1', project_id: 'demo', issued_by: 'ops', created_at: '2026-11-30T10:00:00Z', payload: { task: evil }, requires_review: false, requires_approval: false }, 'ops', (p) => naclSign(seed('ops'), p)));
  put('tasks/xss-1/claim.fang.json', { order_id: 'xss-1', agent: 'fang', claimed_at: '2026-11-30T10:01:00Z' });
  put('tasks/xss-1/giveup.fang.json', signFields('giveup', { order_id: 'xss-1', agent: 'fang', run: 'r1', reason: evil, attempts: 1, at: '2026-11-30T10:02:00Z' }, 'fang', (p) => naclSign(seed('fang'), p)));
  await page.goto('/');
  const card = page.locator('section[data-lane="attention"] [data-order="xss-1"]');
  await expect(card).toBeVisible();
  await expect(card).toContainText('<img src=x onerror=');
  expect(await card.locator('img, b').count()).toBe(0);
  await page.goto('/orders/xss-1');
  await expect(page.getByText('<b>bold</b>').first()).toBeVisible();
  expect(await page.locator('main img').count()).toBe(0);
  expect(await page.title()).not.toBe('pwned');
});

test('a changed key shows as a banner saying how to re-pin deliberately', async ({ page }) => {
  const file = path.join(server.channel, 'agents/wisp.json');
  const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  put('agents/wisp.json', { ...entry, public_key: naclPublicKey('11'.repeat(32)) });
  await page.goto('/');
  const banner = page.getByRole('alert').filter({ hasText: 'Key changed in the folder' });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('wisp');
  await expect(banner).toContainText('npx claimboard repin');
  await banner.getByRole('link', { name: 'wisp' }).click();
  await expect(page.getByText('Its key changed in the folder.')).toBeVisible();
  await expect(page.getByText(/npx claimboard repin <channel> wisp/)).toBeVisible();
});
