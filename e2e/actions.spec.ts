/**
 * Operator actions in the browser, against the actions fixture (e2e/actions-fixture.ts: a fresh
 * copy of vectors 06 + 11 + 15 on the test clock, where a claim goes stale when a test lets time pass): the operator key (paste, key file,
 * demo key, remember, forget), re-queue, acknowledge (a give-up, a late result), reopen, retire,
 * bulk re-queue with a refusal and a retry, and a non-operator key explained. Each test acts on its own orders, so
 * they do not depend on each other's order; re-running needs a fresh server (Playwright starts one).
 * Screenshots: test-results/actions-dialog.png, actions-refusal.png, actions-not-operator.png,
 * actions-retire.png, actions-bulk.png, actions-ack-late.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { naclSign } from '../lib/ledger/nacl-verify';
import { signFields } from '../lib/ledger/sign';
import { actionsServer, KEYS, letClaimsGoStale } from './actions-fixture';
import { serveThisFile } from './fixture-server';

const server = actionsServer();
serveThisFile(server);
// Its tests run in order on the one server; each acts on its own orders, so none depends on
// another's writes.

const lane = (page: Page, name: string) => page.locator(`section[data-lane="${name}"]`);
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const file = path.join(testInfo.project.outputDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** Opens the key panel from the nav and imports `name`'s seed by pasting it. */
async function importKey(page: Page, name: string, seed: string, opts: { remember?: boolean; expectStatus?: string | RegExp } = {}) {
  await nav(page).getByRole('button', { name: /Sign in as operator|Operator key/ }).click();
  const panel = page.getByRole('dialog', { name: 'Operator key' });
  await expect(panel).toBeVisible();
  await panel.getByLabel('Operator name').fill(name);
  await panel.getByLabel('Seed (64 hex digits)').fill(seed);
  if (opts.remember) await panel.getByLabel(/Remember on this device/).check();
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.getByRole('status')).toContainText(opts.expectStatus ?? `signed in as ${name} — operator of this channel ✓`);
  return panel;
}

async function signInAsOps(page: Page, opts: { remember?: boolean } = {}) {
  const panel = await importKey(page, 'ops', KEYS.ops.seed, opts);
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(nav(page).getByRole('button', { name: 'Operator key: signed in as ops — operator of this channel ✓' })).toBeVisible();
}

/** Writes a file the way Syncthing does: a dotted temp name, then a rename. */
function writeChannelFile(rel: string, content: unknown) {
  const abs = path.join(server.channel, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(content, null, 2) + '\n');
  fs.renameSync(tmp, abs);
}

/**
 * A heartbeat of `agent` on `order` arriving now, as a live run's does: its claim is fresh for the
 * fixture's stale threshold on the server's clock (an hour: longer than any run), unless the test
 * lets time pass.
 */
function heartbeat(order: string, agent: string): void {
  writeChannelFile(`tasks/${order}/heartbeat.${agent}.json`, { order_id: order, agent, run: 'e2e-run-0001', pid: 4242, at: new Date().toISOString() });
}

test('the operator key: paste, key file, demo key, remember, forget; a bad seed is refused', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('[data-order]').first()).toBeVisible();
  await nav(page).getByRole('button', { name: 'Sign in as operator' }).click();
  const panel = page.getByRole('dialog', { name: 'Operator key' });
  await expect(panel.getByRole('status')).toContainText('No operator key in this browser');

  // Not a seed: refused, the text not repeated.
  await panel.getByLabel('Operator name').fill('ops');
  await panel.getByLabel('Seed (64 hex digits)').fill('abc123');
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.locator('[data-key-error]')).toHaveText('a seed is 64 hex digits; this has 6');

  // A key file named <name>.key: the name comes from the file name.
  await panel.getByLabel('…or choose a key file').setInputFiles({ name: 'ops.key', mimeType: 'text/plain', buffer: Buffer.from(`${KEYS.ops.seed}\n`) });
  await expect(panel.getByRole('status')).toHaveText('signed in as ops — operator of this channel ✓');
  expect(await page.evaluate(() => [sessionStorage.getItem('claimboard.operator-key') !== null, localStorage.getItem('claimboard.operator-key')])).toEqual([true, null]);

  // Forget: both storages cleared in one click.
  await panel.getByRole('button', { name: 'Forget key' }).click();
  await expect(panel.getByRole('status')).toContainText('No operator key in this browser');
  expect(await page.evaluate(() => [sessionStorage.getItem('claimboard.operator-key'), localStorage.getItem('claimboard.operator-key')])).toEqual([null, null]);

  // A key file with another name: the name is asked.
  await panel.getByLabel('…or choose a key file').setInputFiles({ name: 'seed.txt', mimeType: 'text/plain', buffer: Buffer.from(KEYS.ops.seed) });
  await expect(panel.getByText('seed.txt is not named <name>.key')).toBeVisible();
  await panel.getByLabel('Operator name').fill('ops');
  await panel.getByLabel(/Remember on this device/).check();
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.getByRole('status')).toHaveText('signed in as ops — operator of this channel ✓');
  await expect(panel.getByText('remembered on this device (localStorage)')).toBeVisible();
  expect(await page.evaluate(() => [sessionStorage.getItem('claimboard.operator-key'), localStorage.getItem('claimboard.operator-key') !== null])).toEqual([null, true]);

  // The demo operator key (this fixture serves one, as `npm start` does).
  await panel.getByRole('button', { name: 'Forget key' }).click();
  await panel.getByRole('button', { name: 'Use the demo operator key' }).click();
  await expect(panel.getByRole('status')).toHaveText('signed in as ops — operator of this channel ✓');
  await page.keyboard.press('Escape');
  await expect(nav(page).getByRole('button', { name: /signed in as ops/ })).toHaveText('ops ✓');
});

test('a non-operator key is explained and offers no action', async ({ page }, testInfo) => {
  await page.goto('/');
  const panel = await importKey(page, 'fang', KEYS.fang.seed, { expectStatus: 'Actions are not offered: fang is not an operator of this channel.' });
  await shot(page, testInfo, 'actions-not-operator');
  // ops's name with fang's key: the server would refuse its signatures.
  await panel.getByLabel('Operator name').fill('ops');
  await panel.getByLabel('Seed (64 hex digits)').fill(KEYS.fang.seed);
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.getByRole('status')).toHaveText("Actions are not offered: this key is not ops's pinned key: the server would refuse its signatures.");
  await panel.getByLabel('Operator name').fill('fang');
  await panel.getByLabel('Seed (64 hex digits)').fill(KEYS.fang.seed);
  await panel.getByRole('button', { name: 'Import' }).click();
  await page.keyboard.press('Escape');
  await expect(nav(page).getByRole('button', { name: 'Operator key: fang is not an operator of this channel' })).toHaveText('fang ⚠');

  // The board: no checkboxes; the card menu's items are disabled with the reason.
  const card = lane(page, 'attention').locator('[data-order]').first();
  await expect(card).toBeVisible();
  await expect(page.locator('[data-select]')).toHaveCount(0);
  await card.getByRole('button', { name: /^Actions on / }).click();
  const item = page.getByRole('menuitem').first();
  await expect(item).toHaveAttribute('aria-disabled', 'true');
  await expect(item).toContainText('fang is not an operator of this channel');
  await page.keyboard.press('Escape');

  // An order page and an agent page say why, beside disabled buttons.
  await page.goto('/orders/g1');
  await expect(page.locator('[data-order-actions] [data-gate="not_operator"]')).toHaveText(/Not offered: fang is not an operator of this channel\./);
  await expect(page.locator('[data-order-actions] button:disabled').first()).toBeVisible();
  await page.goto('/agents/wisp');
  await expect(page.getByRole('button', { name: 'Retire wisp…' })).toBeDisabled();
  await expect(page.locator('[data-agent-actions] [data-gate]')).toContainText('fang is not an operator of this channel');
});

test('re-queue the stale ichabod-1650: it moves to Queue; a page that still saw it stale is refused', async ({ context }, testInfo) => {
  await letClaimsGoStale(server);
  const requests: string[] = [];
  context.on('request', (r) => requests.push(`${r.url()} ${r.postData() ?? ''}`));
  const a = await context.newPage();
  await a.goto('/');
  await signInAsOps(a, { remember: true });
  // A second tab of the same operator (the remembered key), looking at the same card.
  const b = await context.newPage();
  await b.goto('/');
  await expect(nav(b).getByRole('button', { name: /signed in as ops/ })).toBeVisible();

  const openRequeue = async (page: Page) => {
    const card = lane(page, 'stale').locator('[data-order="ichabod-1650"]');
    await expect(card).toBeVisible();
    await card.getByRole('button', { name: 'Actions on ichabod-1650' }).click();
    await page.getByRole('menuitem', { name: /Re-queue/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Re-queue ichabod-1650' });
    await expect(dialog).toBeVisible();
    return dialog;
  };

  const db = await openRequeue(b);
  await expect(db).toContainText('You see ichabod-1650 stale held by fang');
  await expect(db.locator('[data-path]')).toHaveText(['tasks/ichabod-1650/release.ops.fang.json', 'ledger.ops.jsonl']);
  await expect(db).toContainText('ferry honours the release: ichabod-1650 is Open again and the next worker that polls claims it.');
  await expect(db.getByRole('button', { name: 'Sign and re-queue' })).toBeDisabled(); // a reason is required
  await db.getByLabel(/Why re-queue it/).fill('no heartbeat since the claim: the run never started');
  await shot(b, testInfo, 'actions-dialog');

  // The first tab re-queues it.
  const da = await openRequeue(a);
  await da.getByLabel(/Why re-queue it/).fill('machine rebooted');
  await da.getByRole('button', { name: 'Sign and re-queue' }).click();
  await expect(da).toBeHidden();
  await expect(a.locator('[data-toast="ok"]')).toContainText('written: tasks/ichabod-1650/release.ops.fang.json, ledger.ops.jsonl');
  await expect(lane(a, 'queue').locator('[data-order="ichabod-1650"]')).toBeVisible();
  await expect(lane(a, 'stale').locator('[data-order="ichabod-1650"]')).toHaveCount(0);
  const release = JSON.parse(fs.readFileSync(path.join(server.channel, 'tasks/ichabod-1650/release.ops.fang.json'), 'utf8')) as Record<string, string>;
  expect(release).toMatchObject({ order_id: 'ichabod-1650', released: 'fang', releaser: 'ops', reason: 'requeued: machine rebooted', signed_by: 'ops' });

  // The second tab signs what it saw: the server refuses it, verbatim, and nothing is written.
  await db.getByRole('button', { name: 'Sign and re-queue' }).click();
  const refusal = db.locator('[data-refusal="409"]');
  await expect(refusal).toContainText('The server refused it (409); nothing was written.');
  await expect(refusal.locator('[data-refusal-message]')).toHaveText('the board changed: ichabod-1650 is now open; you saw stale held by fang');
  await shot(b, testInfo, 'actions-refusal');
  await refusal.getByRole('button', { name: 'Reload the card' }).click();
  await expect(db).toContainText('You see ichabod-1650 open with no holder');
  await expect(db.locator('[data-precheck]')).toContainText('ichabod-1650 has no active claim to release');
  await expect(db.getByRole('button', { name: 'Sign and re-queue' })).toBeDisabled();

  // The seed never left the browser.
  for (const seed of [KEYS.ops.seed, KEYS.ops.seed.toUpperCase()]) expect(requests.filter((r) => r.includes(seed))).toEqual([]);
});

test('acknowledge the give-up on g1: it moves to Done, closed', async ({ page }) => {
  await page.goto('/');
  await signInAsOps(page);
  const card = lane(page, 'attention').locator('[data-order="g1"]');
  await card.getByRole('button', { name: 'Actions on g1' }).click();
  await page.getByRole('menuitem', { name: /Acknowledge give-up/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Acknowledge the give-up on g1' });
  await expect(dialog.locator('[data-path]')).toHaveText(['tasks/g1/ack.ops.json', 'ledger.ops.jsonl']);
  await expect(dialog).toContainText('Board only: ferry does not read give-ups or acknowledgements; in ferry the holder keeps its claim.');
  await dialog.getByLabel('Note (optional)').fill('will re-issue smaller');
  await dialog.getByRole('button', { name: 'Sign and acknowledge' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('[data-toast="ok"]')).toContainText('written: tasks/g1/ack.ops.json, ledger.ops.jsonl');
  await expect(lane(page, 'done').locator('[data-order="g1"][data-state="closed"]')).toBeVisible();
});

test('acknowledge the late result on t1 from its order page: it leaves Needs attention for Queue', async ({ page }, testInfo) => {
  await page.goto('/orders/t1');
  await signInAsOps(page);
  await expect(page.getByText('result by fang, whose claim was released: ferry reads the order as open and will hand it out again; acknowledge it if that is fine').first()).toBeVisible();
  await page.getByRole('button', { name: 'Acknowledge the late result…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Acknowledge the late result on t1' });
  await expect(dialog.locator('[data-path]')).toHaveText(['tasks/t1/ack.ops.json', 'ledger.ops.jsonl']);
  await expect(dialog).toContainText('decision names late:1:fang:open');
  await expect(dialog).toContainText('Board only: ferry does not read acknowledgements. It reads t1 as open and hands it out again.');
  await dialog.getByLabel('Note (optional)').fill('redo it: the result predates the new schema');
  await shot(page, testInfo, 'actions-ack-late');
  await dialog.getByRole('button', { name: 'Sign and acknowledge' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('[data-toast="ok"]')).toContainText('written: tasks/t1/ack.ops.json, ledger.ops.jsonl');
  const ack = JSON.parse(fs.readFileSync(path.join(server.channel, 'tasks/t1/ack.ops.json'), 'utf8')) as Record<string, string>;
  expect(ack).toMatchObject({ order_id: 't1', operator: 'ops', target: 'late:1:fang:open', note: 'redo it: the result predates the new schema', signed_by: 'ops' });
  await page.goto('/');
  await expect(lane(page, 'queue').locator('[data-order="t1"]')).toBeVisible();
  await expect(lane(page, 'attention').locator('[data-order="t1"]')).toHaveCount(0);
  // The timeline says what was acknowledged, in words.
  await page.goto('/orders/t1');
  await expect(page.getByText('ops acknowledged the late result by fang at revision 1 (order open): redo it: the result predates the new schema')).toBeVisible();
});

test('reopen the closed g2 (its target is the give-up): it leaves Done', async ({ page }) => {
  await page.goto('/orders/g2');
  await signInAsOps(page);
  await page.getByRole('button', { name: 'Reopen g2…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reopen g2' });
  await expect(dialog).toContainText('decision names giveup:');
  await expect(dialog.locator('[data-path]')).toHaveText(['tasks/g2/reopen.ops.json', 'ledger.ops.jsonl']);
  await dialog.getByLabel(/Why reopen it/).fill('the give-up was a flaky runner');
  await dialog.getByRole('button', { name: 'Sign and reopen' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('[data-toast="ok"]')).toContainText('written: tasks/g2/reopen.ops.json, ledger.ops.jsonl');
  const reopen = JSON.parse(fs.readFileSync(path.join(server.channel, 'tasks/g2/reopen.ops.json'), 'utf8')) as Record<string, string>;
  expect(reopen.target).toMatch(/^giveup:[0-9a-f]{64}$/);
  // wisp's claim holds again, with no heartbeat: stale once time passes.
  await expect.poll(async () => ((await (await page.request.get('/api/orders/g2')).json()) as { card: { state: string } }).card.state).not.toBe('closed');
  await letClaimsGoStale(server);
  await page.goto('/');
  await expect(lane(page, 'stale').locator('[data-order="g2"]')).toBeVisible();
  await expect(lane(page, 'done').locator('[data-order="g2"]')).toHaveCount(0);
});

test('retire nebra from its agent page while it looks alive: two confirmations; g3 is released to Queue', async ({ page }, testInfo) => {
  heartbeat('g3', 'nebra');
  await page.goto('/agents/nebra');
  await signInAsOps(page);
  await expect(page.locator('[data-agent-actions]')).toContainText('It looks alive');
  await page.getByRole('button', { name: 'Retire nebra…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Retire nebra' });
  await expect(dialog.locator('[data-retire-order]')).toHaveCount(1);
  await expect(dialog.locator('[data-retire-order="g3"]')).toContainText('g3: nebra holds it');
  await expect(dialog.locator('[data-path]')).toHaveText(['retirements/nebra.ops.json', 'tasks/g3/release.ops.nebra.json', 'ledger.ops.jsonl']);
  await dialog.getByLabel(/Why retire nebra/).fill('machine rebuilt as nebra-2');
  const sign = dialog.getByRole('button', { name: 'Sign and retire nebra anyway' });
  await expect(sign).toBeDisabled();
  await dialog.getByLabel('it looks alive: its heartbeat arrived within the stale window — retire anyway').check();
  await expect(sign).toBeDisabled();
  await dialog.getByLabel(/Second confirmation: type nebra/).fill('nebra');
  await expect(sign).toBeEnabled();
  await shot(page, testInfo, 'actions-retire');
  await sign.click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('[data-toast="ok"]')).toContainText('written: retirements/nebra.ops.json, tasks/g3/release.ops.nebra.json, ledger.ops.jsonl');
  await expect(page.getByRole('main').locator('header').getByText('retired', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Retire nebra…' })).toHaveCount(0);
  await page.goto('/');
  await expect(lane(page, 'queue').locator('[data-order="g3"]')).toBeVisible();
});

test('bulk re-queue over a selection: a refusal stops the chain, "retry the ones not applied" signs them again', async ({ page }, testInfo) => {
  // Three more orders of ops, each claimed by fang with no heartbeat: stale once time passes.
  const ids = ['bulk-1', 'bulk-2', 'bulk-3'];
  const now = new Date().toISOString();
  for (const id of ids) {
    writeChannelFile(
      `tasks/${id}/order.json`,
      signFields('order', { id, project_id: 'bulk', issued_by: 'ops', created_at: now, payload: { n: id }, requires_review: false, requires_approval: false, depends_on: [] }, 'ops', (p) =>
        naclSign(KEYS.ops.seed, p),
      ),
    );
    writeChannelFile(`tasks/${id}/claim.fang.json`, { order_id: id, agent: 'fang', claimed_at: now });
  }
  for (const id of ids) await expect.poll(async () => (await page.request.get(`/api/orders/${id}`)).status()).toBe(200);
  await letClaimsGoStale(server);
  await page.goto('/');
  await signInAsOps(page);
  const stale = lane(page, 'stale');
  for (const id of ids) await expect(stale.locator(`[data-order="${id}"]`)).toBeVisible();
  for (const id of ids) await stale.getByRole('checkbox', { name: `select ${id}` }).check();
  await expect(stale.locator('[data-selection-bar]')).toContainText('3 selected');

  // bulk-1's run comes back to life after the selection: the server refuses it, the rest wait.
  heartbeat('bulk-1', 'fang');
  await expect(lane(page, 'running').locator('[data-order="bulk-1"]')).toBeVisible();
  await stale.getByRole('button', { name: 'Re-queue 3 selected' }).click();
  const dialog = page.getByRole('dialog', { name: 'Re-queue 3 selected orders' });
  await expect(dialog.locator('[data-path]')).toHaveText([
    'tasks/bulk-1/release.ops.fang.json',
    'tasks/bulk-2/release.ops.fang.json',
    'tasks/bulk-3/release.ops.fang.json',
    'ledger.ops.jsonl',
  ]);
  await dialog.getByLabel(/Why re-queue them/).fill('fang is being rebuilt');
  await dialog.getByRole('button', { name: 'Sign and re-queue 3' }).click();
  await expect(dialog.getByRole('status')).toHaveText('0 written · 1 refused · 2 not applied');
  await expect(dialog.locator('[data-order-result="bulk-1"]')).toContainText('refused: bulk-1 is now claimed held by fang; you saw stale held by fang');
  await expect(dialog.locator('[data-order-result="bulk-2"]')).toContainText('not applied: the ledger chain stopped at bulk-1; sign again');
  await shot(page, testInfo, 'actions-bulk');
  await dialog.getByRole('button', { name: 'Retry the 2 not applied' }).click();
  await expect(dialog.getByRole('status')).toHaveText('2 written · 1 refused · 0 not applied');
  await expect(dialog.locator('[data-order-result="bulk-3"]')).toContainText('written: tasks/bulk-3/release.ops.fang.json, ledger.ops.jsonl');
  await page.keyboard.press('Escape');
  for (const id of ['bulk-2', 'bulk-3']) await expect(lane(page, 'queue').locator(`[data-order="${id}"]`)).toBeVisible();
  expect(fs.existsSync(path.join(server.channel, 'tasks/bulk-1/release.ops.fang.json'))).toBe(false);
});
