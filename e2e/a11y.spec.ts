/**
 * Accessibility and the phone's keyboard path, on the embedded demo channel served as a real
 * channel (`claimboard demo` into a temp folder, then `serve` on it), by a server of this spec's
 * own, its test clock moved past stale_after so that its claims go stale (Stale has cards).
 *
 * axe-core (WCAG 2.0-2.2 A and AA) finds no violation on any page, signed in as the demo
 * operator (the card menus and checkboxes show), light (every rule) and dark (the colour rules),
 * at 1440x900; and on the board and the history at 390x844. On the phone, `j` `l` `j` Enter opens the first card of the lane after the first one:
 * `l` shows the next lane's tab and focuses it (never the page body), `j` its first card.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import { expect, test, type Page } from '@playwright/test';
import type { BoardResponse } from '../lib/api/types';
import { fixtureServer, serveThisFile } from './fixture-server';
import { ROOT } from './own-server';
import { get } from './http';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];
const SCHEMES = ['light', 'dark'] as const;

const server = fixtureServer({
  prefix: 'cb-e2e-a11y-',
  vectors: [],
  prepare: (channel) => {
    execFileSync(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), 'demo', channel], { cwd: ROOT, stdio: 'ignore' });
  },
});
serveThisFile(server);
let seed = '';

test.beforeAll(async () => {
  seed = fs.readFileSync(path.join(server.dir, 'keys', 'ops.key'), 'utf8').trim();
  // Every claim of the demo goes stale once stale_after (300 s) has passed on the server's clock.
  await server.letTimePass(400_000);
  await expect
    .poll(async () => ((await (await get(`${server.url}/api/board`)).json()) as BoardResponse).lanes.find((l) => l.lane === 'stale')?.count ?? 0)
    .toBeGreaterThan(0);
});

async function board(): Promise<BoardResponse> {
  return (await (await get(`${server.url}/api/board`)).json()) as BoardResponse;
}

async function signIn(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Sign in as operator/ }).click();
  const panel = page.getByRole('dialog', { name: 'Operator key' });
  await panel.getByLabel('Operator name').fill('ops');
  await panel.getByLabel('Seed (64 hex digits)').fill(seed);
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.getByRole('status')).toContainText('signed in as ops — operator of this channel ✓');
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
}

/**
 * The colour rules of TAGS: all that the scheme changes (dark mode is the same DOM with other
 * colours: Tailwind's `dark:` variant is the `prefers-color-scheme` media query, no script), so
 * dark runs only these and light runs every rule.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** axe-core itself, put into each page checked once it has loaded. */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The violations of the page at `where`, one line each (rule, impact, the first nodes): loaded
 * once, checked light (every rule), then switched to dark as a system's setting switches it and
 * checked again (the colour rules). axe runs in the page and sends back only its violations:
 * the passes' details, which nobody reads here, cost more than the check on these pages.
 */
async function violations(page: Page, where: string): Promise<string[]> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(where);
  await expect(page.locator('main h1').first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  // The board's controls are disabled until it has hydrated (Board.tsx); axe counts the links in
  // that fieldset as unfocusable too, so a check before then would judge a page nobody uses.
  await expect(page.locator('fieldset[data-hydrated="no"]')).toHaveCount(0);
  await page.evaluate(AXE_SOURCE);
  return check(page, where);
}

/** The page as it is: light (every rule), then dark (the colour rules). */
async function check(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  for (const scheme of SCHEMES) {
    if (scheme === 'dark') {
      await page.emulateMedia({ colorScheme: 'dark' });
      await expect.poll(background).not.toBe(light);
    }
    const options: RunOptions = {
      runOnly: scheme === 'dark' ? { type: 'rule', values: COLOUR_RULES } : { type: 'tag', values: TAGS },
      resultTypes: ['violations'],
    };
    const lines = await page.evaluate(async (o) => {
      const r: AxeResults = await (window as unknown as { axe: { run(c: Document, o: RunOptions): Promise<AxeResults> } }).axe.run(document, o);
      return r.violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    }, options);
    found.push(...lines.map((l) => `${where} ${scheme} ${page.viewportSize()?.width}: ${l}`));
  }
  return found;
}

/**
 * Every page, in four groups that run as tests of their own: the board, activity and the
 * history; agents, two agents that hold orders and the retired moth; the first order of each
 * lane; problems and the threshold.
 */
const PAGE_GROUPS: Record<string, (b: BoardResponse) => string[]> = {
  'the board, activity and the history': () => ['/', '/activity', '/history'],
  'the agents': (b) => {
    const holders = [...new Set(b.lanes.flatMap((l) => l.cards.map((c) => c.holder)).filter((h): h is string => h !== null))].slice(0, 2);
    return ['/agents', ...holders.map((h) => `/agents/${encodeURIComponent(h)}`), '/agents/moth'];
  },
  'an order of each lane': (b) => b.lanes.flatMap((l) => l.cards.slice(0, 1).map((c) => `/orders/${encodeURIComponent(c.order_id)}`)),
  'problems and the threshold': () => ['/problems', '/tuning'],
};

test.use({ viewport: { width: 1440, height: 900 } });

for (const [group, pathsOf] of Object.entries(PAGE_GROUPS)) {
  test(`axe finds no violation on ${group} at 1440, light and dark`, async ({ page }) => {
    test.setTimeout(600_000); // up to 6 pages, each two axe runs of up to a minute on a loaded 2-core machine
    const paths = pathsOf(await board());
    expect(paths.length).toBeGreaterThan(0);
    await page.goto('/');
    await signIn(page);
    const found: string[] = [];
    for (const p of paths) found.push(...(await violations(page, p)));
    expect(found).toEqual([]);
  });
}

test('the check finds what it looks for: an image without a text alternative, light; text too faint on dark', async ({ page }) => {
  await page.setContent(`<html lang="en"><head><title>t</title><style>
    @media (prefers-color-scheme: dark) { body { background: rgb(9, 9, 11); } p { color: rgb(40, 40, 44); } }
  </style></head><body><main><h1>A page</h1><p>faint on dark</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></body></html>`);
  await page.evaluate(AXE_SOURCE);
  const found = await check(page, 'synthetic');
  expect(found.map((l) => l.replace(/ \(.*$/, ''))).toEqual(['synthetic light 1440: image-alt', 'synthetic dark 1440: color-contrast']);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test('axe finds no violation on the board and the history at 390, light and dark', async ({ page }) => {
    test.setTimeout(600_000); // 3 pages, each two axe runs of up to a minute on a loaded 2-core machine
    await page.goto('/');
    await signIn(page);
    const found: string[] = [];
    for (const p of ['/', '/?lane=stale', '/history']) found.push(...(await violations(page, p)));
    expect(found).toEqual([]);
  });

  test('j, l, j, Enter opens the first card of the next lane', async ({ page }) => {
    await page.goto('/');
    await expect(page.locator('fieldset[data-hydrated="yes"]')).toBeVisible();
    const lanes = (await board()).lanes.filter((l) => l.count > 0);
    const [first, next] = [lanes[0]!, lanes[1]!];

    await page.keyboard.press('j');
    await expect(page.locator(`section[data-lane="${first.lane}"] [data-card-index="0"] [data-card-link]`)).toBeFocused();
    await page.keyboard.press('l');
    const tab = page.locator(`[data-lane-tab="${next.lane}"]`);
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    await expect(tab).toBeFocused();
    await page.keyboard.press('j');
    const card = page.locator(`section[data-lane="${next.lane}"] [data-card-index="0"]`);
    const id = await card.locator('[data-order]').getAttribute('data-order');
    await expect(card.locator('[data-card-link]')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/orders/${encodeURIComponent(id!)}$`));
  });
});

test('/favicon.ico is served', async () => {
  const r = await get(`${server.url}/favicon.ico`);
  expect(r.status).toBe(200);
});
