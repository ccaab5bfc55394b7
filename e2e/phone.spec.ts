/**
 * On a phone: 390×844, touch, against the actions server
 * (e2e/actions-fixture.ts). The board shows one lane at a time with the lanes as tabs whose
 * counts are /api/board's, the selected lane in the URL, and no sideways scroll; the header fits
 * with "Sign in as operator" a 44 px tap target; an alert's link (`<base>/orders/<id>`, as
 * lib/alerts/engine.ts writes it) is followed to an acknowledged give-up in Done by tap alone;
 * every action dialog (acknowledge, re-queue, reopen, retire, supersede, bulk) and the key panel
 * fit the screen with their buttons reachable; a virtualized lane scrolls in the one-lane view.
 * Each test writes its own orders into the channel (the ones of 100 cards are removed after).
 * The board runs in light (all of it) and dark (up to its screenshots); the alert flow in light,
 * the dialogs in dark (FLOW_SCHEME).
 * Screenshots: test-results/phone-*-light.png and phone-*-dark.png.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import type { BoardResponse, OrderResponse } from '../lib/api/types';
import { naclSign } from '../lib/ledger/nacl-verify';
import { signFields } from '../lib/ledger/sign';
import { actionsServer, KEYS, letClaimsGoStale } from './actions-fixture';
import { serveThisFile } from './fixture-server';

const W = 390;
const H = 844;
const server = actionsServer();
serveThisFile(server);
// Its tests run in order on the one server; each writes its own orders.
test.use({ viewport: { width: W, height: H }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });

const SCHEMES = ['light', 'dark'] as const;
type Scheme = (typeof SCHEMES)[number];
/** The scheme each tap flow runs in: one each, so that both schemes are looked at in a flow. */
const FLOW_SCHEME: Record<'alert' | 'dialogs', Scheme> = { alert: 'light', dialogs: 'dark' };
const LANES = ['attention', 'stale', 'running', 'review', 'queue', 'done'] as const;
const TITLE: Record<(typeof LANES)[number], string> = {
  attention: 'Needs attention',
  stale: 'Stale',
  running: 'Running',
  review: 'Review',
  queue: 'Queue',
  done: 'Done',
};

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const lane = (page: Page, name: string) => page.locator(`section[data-lane="${name}"]`);
const tab = (page: Page, name: (typeof LANES)[number]) => page.getByRole('tab', { name: new RegExp(`^${TITLE[name]},`) });

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const file = path.join(testInfo.project.outputDir, `phone-${name}.png`);
  await page.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** The page does not scroll sideways. */
async function noSideScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(W);
}

/** Wholly inside the screen (a dialog, a menu). */
async function onScreen(el: Locator) {
  const b = await el.boundingBox();
  expect(b).not.toBeNull();
  expect(b!.x).toBeGreaterThanOrEqual(0);
  expect(b!.y).toBeGreaterThanOrEqual(0);
  expect(b!.x + b!.width).toBeLessThanOrEqual(W + 0.5);
  expect(b!.y + b!.height).toBeLessThanOrEqual(H + 0.5);
}

/** Visible, on screen once scrolled to (all of it but a rounding's fraction of a pixel), and at least 44 px high. */
async function tapTarget(el: Locator) {
  await el.scrollIntoViewIfNeeded();
  await expect(el).toBeInViewport({ ratio: 0.98 });
  const b = (await el.boundingBox())!;
  expect(b.height, `${await el.textContent()} is a 44 px tap target`).toBeGreaterThanOrEqual(44);
  expect(b.x + b.width).toBeLessThanOrEqual(W);
}

async function tap(el: Locator) {
  await tapTarget(el);
  await el.tap();
}

/**
 * A dialog fits the screen, scrolling inside when taller, its submit (or other) button reachable;
 * the page still does not scroll sideways. An action dialog is looked at once its plan has come
 * (what the fleet will do, where a give-up's digest is named in full).
 */
async function dialogFits(page: Page, dialog: Locator, button: Locator) {
  await expect(dialog).toBeVisible();
  const plan = dialog.locator('section[aria-label="what the fleet will do"]');
  if ((await dialog.getAttribute('data-testid')) !== 'key-panel') await expect(plan).toBeVisible();
  await onScreen(dialog);
  await noSideScroll(page);
  // Nothing in it sticks out sideways (when something does: the dialog's widths, and what is wider than its box).
  const wide = await dialog.evaluate((d) => {
    if (d.scrollWidth <= d.clientWidth) return [];
    const inner = [...d.querySelectorAll('*')].filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1);
    return [`dialog ${d.scrollWidth} px wide in ${d.clientWidth}`, ...inner.map((e) => `<${e.tagName.toLowerCase()}> ${(e.textContent ?? '').slice(0, 80)}`)];
  });
  expect(wide).toEqual([]);
  await tapTarget(button);
  await onScreen(dialog);
}

/** Writes a file the way Syncthing does (a dotted temp name, then a rename); returns its bytes' SHA-256. */
function writeChannelFile(rel: string, content: unknown): string {
  const abs = path.join(server.channel, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  const text = JSON.stringify(content, null, 2) + '\n';
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, abs);
  return createHash('sha256').update(text).digest('hex');
}

const ops = (p: string) => naclSign(KEYS.ops.seed, p);
const fang = (p: string) => naclSign(KEYS.fang.seed, p);

function writeOrder(id: string, createdAt = new Date().toISOString()) {
  writeChannelFile(
    `tasks/${id}/order.json`,
    signFields('order', { id, project_id: 'phone', issued_by: 'ops', created_at: createdAt, payload: { n: id }, requires_review: false, requires_approval: false, depends_on: [] }, 'ops', ops),
  );
}

/** An order fang claimed (no heartbeat: stale once time passes) and, with `gaveUp`, gave up; returns the give-up's digest. */
function writeClaimed(id: string, opts: { gaveUp?: boolean } = {}): string | null {
  const now = new Date().toISOString();
  writeOrder(id, now);
  writeChannelFile(`tasks/${id}/claim.fang.json`, { order_id: id, agent: 'fang', claimed_at: now });
  if (!opts.gaveUp) return null;
  return writeChannelFile(
    `tasks/${id}/giveup.fang.json`,
    signFields('giveup', { order_id: id, agent: 'fang', run: 'phone-run-0001', reason: 'the run lost its machine', attempts: 2, at: now }, 'fang', fang),
  );
}

async function stateOf(page: Page, id: string): Promise<string | null> {
  const res = await page.request.get(`/api/orders/${encodeURIComponent(id)}`);
  return res.ok() ? ((await res.json()) as OrderResponse).card.state : null;
}

/** Opens the key panel from the header and imports ops's key, by tap (the fields are typed into). */
async function signInByTap(page: Page, testInfo?: TestInfo, scheme?: Scheme) {
  await tap(nav(page).getByRole('button', { name: 'Sign in as operator' }));
  const panel = page.getByRole('dialog', { name: 'Operator key' });
  await dialogFits(page, panel, panel.getByRole('button', { name: 'Import' }));
  if (testInfo && scheme) await shot(page, testInfo, `key-${scheme}`);
  const name = panel.getByLabel('Operator name');
  await tap(name);
  await name.fill('ops');
  const seed = panel.getByLabel('Seed (64 hex digits)');
  await tap(seed);
  await seed.fill(KEYS.ops.seed);
  await tap(panel.getByRole('button', { name: 'Import' }));
  await expect(panel.getByRole('status')).toHaveText('signed in as ops — operator of this channel ✓');
  await tap(panel.getByRole('button', { name: 'Close' }).first()); // the ×, top right
  await expect(panel).toBeHidden();
  await expect(nav(page).getByRole('button', { name: /signed in as ops/ })).toHaveText('ops ✓');
}

for (const scheme of SCHEMES) {
  test.describe(scheme, () => {
    test.beforeEach(async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
    });

    // Light runs the whole of it; dark (the same DOM, other colours) up to its two screenshots.
    const whole = scheme === 'light';
    test(`the board: one lane at a time, the lanes as tabs with /api/board's counts${whole ? ', the lane in the URL' : ''} (${scheme})`, async ({ page }, testInfo) => {
      await page.goto('/');
      await expect(page.getByRole('tablist', { name: 'Lanes' })).toBeVisible();
      // Its cards or, when other specs have emptied it, its empty line.
      await expect(lane(page, 'attention').locator('[data-order], [data-lane-empty]').first()).toBeVisible();
      if (scheme === 'dark') expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(255, 255, 255)');

      // Six tabs in lane order, Needs attention first and selected, each named with its count as /api/board has it.
      await expect(async () => {
        const api = (await (await page.request.get('/api/board')).json()) as BoardResponse;
        const count = new Map(api.lanes.map((l) => [l.lane, l.count]));
        const tabs = page.getByRole('tab');
        await expect(tabs).toHaveText(LANES.map((l) => new RegExp(`^${TITLE[l]}`)), { timeout: 500 });
        for (const l of LANES) {
          const n = count.get(l) ?? -1;
          await expect(tab(page, l)).toHaveAccessibleName(`${TITLE[l]}, ${n} ${n === 1 ? 'order' : 'orders'}`, { timeout: 500 });
          await expect(tab(page, l).locator('[data-tab-count]')).toHaveAttribute('data-tab-count', String(n), { timeout: 500 });
        }
      }).toPass({ timeout: 60_000 });
      await expect(tab(page, 'attention')).toHaveAttribute('aria-selected', 'true');

      // One lane shown, the whole width; no sideways scroll; every tab on screen.
      const shown = () => page.locator('section[data-lane]:visible').evaluateAll((els) => els.map((e) => e.getAttribute('data-lane')));
      await expect.poll(shown).toEqual(['attention']);
      await expect(page.getByRole('tabpanel', { name: /^Needs attention,/ })).toBeVisible();
      expect((await lane(page, 'attention').boundingBox())!.width).toBeGreaterThan(W - 40);
      await noSideScroll(page);
      for (const l of LANES) await tapTarget(tab(page, l));

      // The header fits: the four links and "Sign in as operator" on screen, tappable.
      for (const name of ['Board', 'Agents', 'Activity', 'Problems']) await tapTarget(nav(page).getByRole('link', { name: new RegExp(`^${name}`) }));
      await tapTarget(nav(page).getByRole('button', { name: 'Sign in as operator' }));
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, testInfo, `board-${scheme}`);

      // A tap shows that lane, and the URL keeps it (a reload comes back to it).
      await tab(page, 'stale').tap();
      await expect(page).toHaveURL(/[?&]lane=stale(&|$)/);
      await expect(tab(page, 'stale')).toHaveAttribute('aria-selected', 'true');
      await expect(tab(page, 'attention')).toHaveAttribute('aria-selected', 'false');
      await expect(lane(page, 'stale')).toBeVisible();
      await expect(lane(page, 'attention')).toBeHidden();
      await expect(lane(page, 'stale').locator('[data-order], [data-lane-empty]').first()).toBeVisible();
      await shot(page, testInfo, `board-stale-${scheme}`);
      if (!whole) return;
      await page.reload();
      await expect(tab(page, 'stale')).toHaveAttribute('aria-selected', 'true');
      await expect.poll(shown).toEqual(['stale']);

      await tab(page, 'done').tap();
      await expect(page).toHaveURL(/[?&]lane=done(&|$)/);
      await expect.poll(shown).toEqual(['done']);
      await expect(lane(page, 'done').locator('[data-order]').first()).toBeVisible();
      await noSideScroll(page);

      // Keyboard on the tabs: arrows move and select, Home goes back to Needs attention (no parameter).
      await tab(page, 'done').focus();
      await page.keyboard.press('ArrowRight');
      await expect(tab(page, 'attention')).toBeFocused();
      await expect(tab(page, 'attention')).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press('ArrowLeft');
      await expect(tab(page, 'done')).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press('Home');
      await expect(tab(page, 'attention')).toHaveAttribute('aria-selected', 'true');
      await expect(page).not.toHaveURL(/lane=/);
      await expect.poll(shown).toEqual(['attention']);

      // Needs attention empty (a search nothing matches): still the first tab, selected, and it says so.
      await page.goto('/?q=phone-no-such-order');
      await expect(tab(page, 'attention')).toHaveAccessibleName('Needs attention, 0 orders');
      await expect(tab(page, 'attention')).toHaveAttribute('aria-selected', 'true');
      await expect(page.getByRole('tab').first()).toHaveAccessibleName('Needs attention, 0 orders');
      await expect(lane(page, 'attention').locator('[data-lane-empty]')).toHaveText('Nothing needs you among the orders that match the filters.');
      await noSideScroll(page);
    });

    // The two flows run once each, in one scheme each (the board above runs in both).
    if (scheme === FLOW_SCHEME.alert)
    test(`from an alert's link to Done, by tap: sign in, acknowledge the give-up (${scheme})`, async ({ page }, testInfo) => {
      const id = `phone-gu-${scheme}`;
      writeClaimed(id, { gaveUp: true });
      await expect.poll(() => stateOf(page, id)).toBe('gave_up');

      // The alert's link.
      await page.goto(`/orders/${id}`);
      await expect(page.getByRole('heading', { level: 1, name: id })).toBeVisible();
      await expect(page.getByText('fang gave up').first()).toBeVisible();
      await noSideScroll(page);
      await shot(page, testInfo, `order-${scheme}`);

      await signInByTap(page, testInfo, scheme);

      await tap(page.getByRole('button', { name: 'Acknowledge the give-up…' }));
      const dialog = page.getByRole('dialog', { name: `Acknowledge the give-up on ${id}` });
      const sign = dialog.getByRole('button', { name: 'Sign and acknowledge' });
      await dialogFits(page, dialog, sign);
      const note = dialog.getByLabel('Note (optional)');
      await tap(note);
      await note.fill('seen at 3am, will re-issue');
      await sign.scrollIntoViewIfNeeded();
      await shot(page, testInfo, `ack-${scheme}`);
      await tap(sign);
      await expect(dialog).toBeHidden();
      await expect(page.locator('[data-toast="ok"]')).toContainText(`written: tasks/${id}/ack.ops.json, ledger.ops.jsonl`);
      await expect(page.getByRole('button', { name: `Reopen ${id}…` })).toBeVisible();

      // Back to the board: the order is in Done, closed.
      await tap(nav(page).getByRole('link', { name: 'Board', exact: true }));
      await tap(tab(page, 'done'));
      await expect(lane(page, 'done').locator(`[data-order="${id}"][data-state="closed"]`)).toBeVisible();
      await expect(page).toHaveURL(/[?&]lane=done(&|$)/);
      await noSideScroll(page);
      await lane(page, 'done').locator(`[data-order="${id}"]`).evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(page, testInfo, `done-${scheme}`);
    });

    if (scheme === FLOW_SCHEME.dialogs)
    test(`every action dialog fits the screen and is worked by tap (${scheme})`, async ({ page }, testInfo) => {
      const [a, b] = [`phone-st-${scheme}-1`, `phone-st-${scheme}-2`];
      writeClaimed(a);
      writeClaimed(b);
      const gaveUp = `phone-gu2-${scheme}`;
      writeClaimed(gaveUp, { gaveUp: true });
      // A closed order of our own to reopen: a give-up acknowledged by ops.
      const closed = `phone-closed-${scheme}`;
      const digest = writeClaimed(closed, { gaveUp: true })!;
      writeChannelFile(
        `tasks/${closed}/ack.ops.json`,
        signFields('ack', { order_id: closed, operator: 'ops', target: `giveup:${digest}`, note: 'acknowledged', at: new Date().toISOString() }, 'ops', ops),
      );
      await expect.poll(() => stateOf(page, closed)).toBe('closed');
      for (const id of [a, b]) await expect.poll(() => stateOf(page, id)).toBe('claimed');
      await expect.poll(() => stateOf(page, gaveUp)).toBe('gave_up');
      await letClaimsGoStale(server);
      await expect.poll(() => stateOf(page, b)).toBe('stale');

      await page.goto('/?lane=stale');
      await signInByTap(page);
      const stale = lane(page, 'stale');
      await expect(stale.locator(`[data-order="${a}"]`)).toBeVisible();

      const cancel = async (dialog: Locator) => {
        await tap(dialog.getByRole('button', { name: 'Cancel' }));
        await expect(dialog).toBeHidden();
      };
      const menuItem = async (id: string, item: RegExp) => {
        await tap(page.locator('section[data-lane]:visible').getByRole('button', { name: `Actions on ${id}` }));
        const menu = page.getByRole('menu', { name: `Actions on ${id}` });
        await onScreen(menu);
        await tap(menu.getByRole('menuitem', { name: item }));
      };

      // Re-queue, from a card's menu.
      await menuItem(a, /^Re-queue/);
      const requeue = page.getByRole('dialog', { name: `Re-queue ${a}` });
      await dialogFits(page, requeue, requeue.getByRole('button', { name: 'Sign and re-queue' }));
      await shot(page, testInfo, `requeue-${scheme}`);
      await cancel(requeue);

      // Supersede, from the menu of a give-up's card in Needs attention.
      await tap(tab(page, 'attention'));
      await expect(lane(page, 'attention').locator(`[data-order="${gaveUp}"]`)).toBeVisible();
      await menuItem(gaveUp, /Supersede|again/);
      const supersede = page.getByRole('dialog', { name: new RegExp(`^(Supersede with a new order for|Do) ${gaveUp}`) });
      await dialogFits(page, supersede, supersede.getByRole('button', { name: /^Sign and/ }));
      await shot(page, testInfo, `supersede-${scheme}`);
      await cancel(supersede);

      // Bulk: two ticked by tap, the bar's button, the dialog.
      await tap(tab(page, 'stale'));
      for (const id of [a, b]) await stale.getByRole('checkbox', { name: `select ${id}` }).tap();
      await expect(stale.locator('[data-selection-bar]')).toContainText('2 selected');
      await tap(stale.getByRole('button', { name: /^Re-queue 2 selected/ }));
      const bulk = page.getByRole('dialog', { name: 'Re-queue 2 selected orders' });
      await dialogFits(page, bulk, bulk.getByRole('button', { name: 'Sign and re-queue 2' }));
      await shot(page, testInfo, `bulk-${scheme}`);
      await cancel(bulk);
      await tap(stale.getByRole('button', { name: 'Clear' }));

      // Reopen, from an order page.
      await page.goto(`/orders/${closed}`);
      await tap(page.getByRole('button', { name: `Reopen ${closed}…` }));
      const reopen = page.getByRole('dialog', { name: `Reopen ${closed}` });
      await dialogFits(page, reopen, reopen.getByRole('button', { name: 'Sign and reopen' }));
      await shot(page, testInfo, `reopen-${scheme}`);
      await cancel(reopen);

      // Retire, from an agent page (not signed: wisp stays).
      await page.goto('/agents/wisp');
      await noSideScroll(page);
      await tap(page.getByRole('button', { name: 'Retire wisp…' }));
      const retire = page.getByRole('dialog', { name: 'Retire wisp' });
      await dialogFits(page, retire, retire.getByRole('button', { name: /^Sign and retire wisp/ }));
      await shot(page, testInfo, `retire-${scheme}`);
      await cancel(retire);
    });
  });
}

test.describe('a virtualized lane in the one-lane view', () => {
  const N = 100;
  const ids = Array.from({ length: N }, (_, i) => `phone-q-${String(i).padStart(3, '0')}`);
  test.afterAll(() => {
    for (const id of ids) fs.rmSync(path.join(server.channel, 'tasks', id), { recursive: true, force: true });
  });

  test('a lane of more than 80 cards scrolls inside its panel, shown again after another tab', async ({ page }, testInfo) => {
    const queueCount = async () => ((await (await page.request.get('/api/board')).json()) as BoardResponse).lanes.find((l) => l.lane === 'queue')?.count ?? 0;
    const before = await queueCount();
    for (const id of ids) writeOrder(id);
    // All of them indexed before the board is opened (one arriving later would change the lane under the test).
    await expect.poll(queueCount).toBe(before + N);

    await page.goto('/');
    await tab(page, 'queue').tap();
    const queue = lane(page, 'queue');
    await expect(queue.locator('[data-order]').first()).toBeVisible();
    // "Load more" twice: past 80 cards the lane renders only what is on screen.
    for (let i = 0; i < 2; i++) await tap(queue.getByRole('button', { name: /^Load more/ }));
    const list = queue.locator('ol.relative');
    await expect(list).toBeVisible();

    const scroller = queue.locator('ol.relative').locator('..');
    const box = (await scroller.boundingBox())!;
    expect(box.height).toBeGreaterThan(300);
    // Scrolled by a finger's wheel until the lane's last card (later pages load near the end).
    await expect(async () => {
      await page.mouse.move(box.x + box.width / 2, Math.min(box.y + box.height / 2, H - 10));
      await page.mouse.wheel(0, 4000);
      await expect(queue.locator(`[data-order="${ids[N - 1]}"]`)).toBeInViewport({ timeout: 500 });
    }).toPass({ timeout: 60_000 });
    const rendered = await queue.locator('li[data-card-index]').count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(N);
    await noSideScroll(page);

    // Another tab and back: the lane's panel is where it was left (at its end), its rows drawn there.
    /** The cards drawn inside the panel's visible part. */
    const inPanel = () =>
      scroller.evaluate((sc) => {
        const r = sc.getBoundingClientRect();
        return [...sc.querySelectorAll('li[data-card-index]')]
          .filter((li) => {
            const b = li.getBoundingClientRect();
            return b.height > 0 && b.bottom > r.top + 1 && b.top < r.bottom - 1;
          })
          .map((li) => li.querySelector('[data-order]')?.getAttribute('data-order'));
      });
    await tab(page, 'stale').tap();
    await expect(queue).toBeHidden();
    await tab(page, 'queue').tap();
    await expect(queue).toBeVisible();
    await expect.poll(async () => (await inPanel()).includes(ids[N - 1])).toBe(true);
    expect((await inPanel()).length).toBeGreaterThan(2);
    await scroller.evaluate((sc) => sc.scrollIntoView({ block: 'end' }));
    await shot(page, testInfo, 'queue-virtual-light');

    // An order on the lane's first page leaves it (fang claims it): the lane keeps the cards it
    // had loaded, and the panel stays where it was, its rows drawn there.
    const first = ((await (await page.request.get('/api/board')).json()) as BoardResponse).lanes.find((l) => l.lane === 'queue')!.cards.find((c) => ids.includes(c.order_id));
    expect(first, 'one of the 100 is on the first page').toBeDefined();
    writeChannelFile(`tasks/${first!.order_id}/claim.fang.json`, { order_id: first!.order_id, agent: 'fang', claimed_at: new Date().toISOString() });
    await expect.poll(queueCount).toBe(before + N - 1);
    await expect(queue.locator(`[data-order="${first!.order_id}"]`)).toHaveCount(0);
    await expect(list).toBeVisible();
    await expect.poll(async () => (await inPanel()).includes(ids[N - 1])).toBe(true);
    expect((await inPanel()).length).toBeGreaterThan(2);

    // Scrolled back up by the wheel, it draws the rows it comes to.
    const b2 = (await scroller.boundingBox())!;
    await page.mouse.move(b2.x + b2.width / 2, b2.y + b2.height / 2);
    await page.mouse.wheel(0, -3000);
    await expect.poll(async () => (await inPanel()).includes(ids[N - 1])).toBe(false);
    expect((await inPanel()).length).toBeGreaterThan(2);

    // The lane shrinks to one page (fang claims all but five of them): it shows what is left,
    // none of the later pages it had loaded.
    const left = ids.filter((id) => id !== first!.order_id).slice(0, 5);
    for (const id of ids) if (id !== first!.order_id && !left.includes(id)) writeChannelFile(`tasks/${id}/claim.fang.json`, { order_id: id, agent: 'fang', claimed_at: new Date().toISOString() });
    await expect.poll(queueCount).toBe(before + 5);
    expect(before + 5, 'the lane is one page now (PAGE_SIZE 30)').toBeLessThanOrEqual(30);
    await expect.poll(async () => (await queue.locator('[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('data-order')))).filter((id) => id?.startsWith('phone-q-')).sort()).toEqual(left);
  });
});
