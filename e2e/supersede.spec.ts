/**
 * Supersede in the browser, on a channel the real ferry wrote (e2e/ferry-fixture.ts: a copy of
 * conformance/ferry/alpha with an operator `cbops` of ours): a-wisp-offered is addressed to wisp,
 * retired by `ferry channel retire`, so ferry offers it to wisp for ever. The operator supersedes
 * it with a new order addressed to nebra: the new order is offered to nebra, the old card leaves
 * Needs attention, and the two pages link each other. Also: a payload a browser cannot copy
 * exactly is refused by the server, verbatim; a reopen offers "Supersede instead"; the order page
 * says what ferry reads (an interrupt's acknowledgement, a reopen ferry does not read).
 * Screenshots: test-results/supersede-board-before.png, supersede-dialog.png,
 * supersede-board-after.png, supersede-old-order.png, supersede-new-order.png,
 * supersede-refusal.png, supersede-killed-order.png, supersede-ferry-note.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { naclSign } from '../lib/ledger/nacl-verify';
import { signingPayload } from '../lib/ledger/payloads';
import { shapeRecord, type SignedRecord } from '../lib/ledger/records';
import { CBOPS_SEED, ferryServer } from './ferry-fixture';
import { serveThisFile } from './fixture-server';

const server = ferryServer();
serveThisFile(server);

const lane = (page: Page, name: string) => page.locator(`section[data-lane="${name}"]`);
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

async function shot(page: Page, testInfo: TestInfo, name: string, fullPage = false) {
  const file = path.join(testInfo.project.outputDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

async function signInAsCbops(page: Page) {
  await nav(page).getByRole('button', { name: /Sign in as operator|Operator key/ }).click();
  const panel = page.getByRole('dialog', { name: 'Operator key' });
  await panel.getByLabel('Operator name').fill('cbops');
  await panel.getByLabel('Seed (64 hex digits)').fill(CBOPS_SEED);
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.getByRole('status')).toContainText('signed in as cbops — operator of this channel ✓');
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
}

const readJson = (rel: string) => JSON.parse(fs.readFileSync(path.join(server.channel, rel), 'utf8')) as Record<string, unknown>;

test('supersede a-wisp-offered (addressed to the retired wisp) with a new order for nebra: offered to nebra, out of Needs attention, both pages linked', async ({ page }, testInfo) => {
  await page.goto('/');
  const attention = lane(page, 'attention');
  const old = attention.locator('[data-order="a-wisp-offered"]');
  await expect(old).toBeVisible();
  await expect(old.locator('[data-flag="retired_holder"]')).toHaveText('retired holder');
  // ferry's own alarms render with their labels.
  await expect(attention.locator('[data-order="a-killed"] [data-flag="stop_not_holding"]')).toHaveText('stop did not hold');
  await signInAsCbops(page);
  await shot(page, testInfo, 'supersede-board-before');

  await old.getByRole('button', { name: 'Actions on a-wisp-offered' }).click();
  await page.getByRole('menuitem', { name: 'Supersede with a new order…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Supersede with a new order for a-wisp-offered' });
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('[data-decision]')).toContainText('You see a-wisp-offered offered addressed to wisp · ferry reads it as Offered (wisp)');
  const id = dialog.getByLabel('New order id');
  await expect(id).toHaveValue('a-wisp-offered-2');
  await expect(dialog.locator('[data-id-check]')).toHaveText('no order has this id yet');
  const to = dialog.getByLabel('Address it to');
  await expect(to).toHaveValue(''); // any worker, until chosen
  const options = await to.locator('option').allTextContents();
  expect(options[0]).toBe('any worker (the first to claim it)');
  expect(options).toContain('nebra (worker)');
  expect(options.some((o) => o.startsWith('wisp'))).toBe(false); // retired here
  await to.selectOption('nebra');
  await expect(dialog.locator('[data-copies]')).toHaveText('It copies from a-wisp-offered: project alpha · its payload · no review · no dependencies.');
  await expect(dialog.locator('[data-path]')).toHaveText(['tasks/a-wisp-offered-2/order.json', 'tasks/a-wisp-offered/supersede.cbops.json', 'ledger.cbops.jsonl']);
  await expect(dialog).toContainText('ferry runs a-wisp-offered-2 like any order, offered to nebra alone.');
  await expect(dialog).toContainText('ferry cannot withdraw an order: it keeps reading a-wisp-offered as before');
  const sign = dialog.getByRole('button', { name: 'Sign and issue a-wisp-offered-2' });
  await expect(sign).toBeDisabled(); // a reason is required
  await dialog.getByLabel('Why supersede it? (required)').fill('wisp is gone for good; nebra takes its work');
  await expect(sign).toBeEnabled();
  await shot(page, testInfo, 'supersede-dialog');
  await sign.click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('[data-toast="ok"]')).toContainText('written: tasks/a-wisp-offered-2/order.json, tasks/a-wisp-offered/supersede.cbops.json, ledger.cbops.jsonl');

  // What was written: a ferry order signed by cbops, the old task and project, addressed to nebra.
  expect(readJson('tasks/a-wisp-offered-2/order.json')).toMatchObject({
    id: 'a-wisp-offered-2',
    project_id: 'alpha',
    issued_by: 'cbops',
    assigned_to: 'nebra',
    payload: { task: 'Answer the soak report' },
    requires_review: false,
    requires_approval: false,
    supersedes: 'a-wisp-offered',
    signed_by: 'cbops',
  });
  expect(readJson('tasks/a-wisp-offered/supersede.cbops.json')).toMatchObject({ order_id: 'a-wisp-offered', operator: 'cbops', by: 'a-wisp-offered-2', reason: 'wisp is gone for good; nebra takes its work' });

  // The board: the old card left Needs attention; the new order waits for nebra in Queue.
  const queue = lane(page, 'queue');
  const neu = queue.locator('[data-order="a-wisp-offered-2"]');
  await expect(neu).toBeVisible();
  await expect(neu).toContainText('offered to nebra, who has not claimed it');
  await expect(neu.locator('[data-supersedes="a-wisp-offered"]')).toHaveText('supersedes a-wisp-offered');
  await expect(attention.locator('[data-order="a-wisp-offered"]')).toHaveCount(0);
  await expect(queue.locator('[data-order="a-wisp-offered"] [data-superseded-by="a-wisp-offered-2"]')).toHaveText('superseded by a-wisp-offered-2');
  await page.locator('[data-toast="ok"]').getByRole('button', { name: 'Dismiss' }).click();
  await neu.scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'supersede-board-after');

  // The old order's page links the new one, says what ferry still does, and tells the story.
  await page.goto('/orders/a-wisp-offered');
  const by = page.locator('[data-superseded-by="a-wisp-offered-2"]');
  await expect(by).toHaveText(/^Superseded by a-wisp-offered-2\s*offered\s*addressed to nebra\s*— the fleet does its work there$/);
  await expect(page.locator('[data-notes]')).toHaveText('superseded by a-wisp-offered-2 (cbops: wisp is gone for good; nebra takes its work); ferry still reads this order as before');
  await expect(page.locator('[data-ferry-state]')).toHaveText('Offered (wisp)');
  await expect(page.locator('[data-order-actions]')).toHaveCount(0); // nothing left to do here
  const story = page.getByRole('list', { name: 'timeline' });
  await expect(story.locator('li[data-kind="supersede"]')).toContainText('cbops superseded it by a-wisp-offered-2: wisp is gone for good; nebra takes its work');
  await shot(page, testInfo, 'supersede-old-order', true);

  // ...and the new one links back.
  await by.getByRole('link', { name: 'a-wisp-offered-2' }).click();
  await expect(page).toHaveURL(/\/orders\/a-wisp-offered-2$/);
  const back = page.locator('[data-supersedes="a-wisp-offered"]');
  await expect(back).toHaveText(/^Supersedes a-wisp-offered\s*offered\s*addressed to wisp\s*— issued to do its work$/);
  await expect(page.locator('dt', { hasText: /^assigned to$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('nebra');
  await expect(page.getByRole('list', { name: 'timeline' }).locator('li[data-kind="order"]')).toContainText("cbops issued a-wisp-offered-2 to nebra, to do a-wisp-offered's work");
  await shot(page, testInfo, 'supersede-new-order', true);
  await back.getByRole('link', { name: 'a-wisp-offered' }).click();
  await expect(page).toHaveURL(/\/orders\/a-wisp-offered$/);
});

test('a payload a browser cannot copy exactly: the dialog says so, the server refuses, verbatim, and nothing is written', async ({ page }, testInfo) => {
  // An order of cbops addressed to nebra (offered: supersede is allowed) whose payload holds a
  // number beyond double precision: signed over the exact text, as ferry signs it.
  const text = `{"id":"big-1","project_id":"alpha","issued_by":"cbops","assigned_to":"nebra","created_at":"2026-12-01T09:00:00Z","payload":{"seq":12345678901234567890},"requires_review":false,"requires_approval":false}`;
  const shaped = shapeRecord('order', new TextEncoder().encode(text));
  if (!shaped.ok) throw new Error(shaped.detail);
  const signature = naclSign(CBOPS_SEED, signingPayload(shaped.record as SignedRecord));
  fs.mkdirSync(path.join(server.channel, 'tasks/big-1'), { recursive: true });
  fs.writeFileSync(path.join(server.channel, 'tasks/big-1/order.json'), `${text.slice(0, -1)},"signed_by":"cbops","signature":"${signature}"}\n`);

  await page.goto('/orders/big-1');
  await expect(page.getByRole('heading', { name: 'big-1' })).toBeVisible();
  await signInAsCbops(page);
  await page.getByRole('button', { name: 'Supersede with a new order…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Supersede with a new order for big-1' });
  await expect(dialog.locator('[data-payload-inexact]')).toContainText('Its payload cannot be copied exactly in a browser.');
  await dialog.getByLabel('Why supersede it? (required)').fill('try it anyway');
  await expect(dialog.getByLabel('New order id')).toHaveValue('big-2'); // big-1's next number
  await dialog.getByRole('button', { name: 'Sign and issue big-2' }).click();
  const refusal = dialog.locator('[data-refusal="400"]');
  await expect(refusal).toContainText('The server refused it (400); nothing was written.');
  await expect(refusal.locator('[data-refusal-message]')).toHaveText("the new order must carry big-1's project and task unchanged (its payload could not be copied exactly)");
  await shot(page, testInfo, 'supersede-refusal');
  expect(fs.existsSync(path.join(server.channel, 'tasks/big-2'))).toBe(false);
  expect(fs.existsSync(path.join(server.channel, 'tasks/big-1/supersede.cbops.json'))).toBe(false);
});

test('reopen says ferry has no reopen and offers "Supersede instead": a new order to do a-done again', async ({ page }) => {
  await page.goto('/orders/a-done');
  await signInAsCbops(page);
  await page.getByRole('button', { name: 'Reopen a-done…' }).click();
  const reopen = page.getByRole('dialog', { name: 'Reopen a-done' });
  await expect(reopen).toContainText('ferry has no reopen: its workers keep reading the order as finished.');
  await reopen.locator('[data-supersede-instead]').getByRole('button', { name: 'Supersede instead…' }).click();
  await expect(reopen).toBeHidden();
  const dialog = page.getByRole('dialog', { name: 'Do a-done again in ferry' });
  await expect(dialog.getByLabel('New order id')).toHaveValue('a-done-2');
  await expect(dialog.locator('[data-path]').first()).toHaveText('tasks/a-done-2/order.json');
  // The order page offers the same directly.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('button', { name: 'Do it again in ferry: supersede with a new order…' })).toBeEnabled();
});

test('the order page says what ferry reads: a kill acknowledged (and not holding) on the timeline; a reopen ferry does not read', async ({ page }, testInfo) => {
  await page.goto('/orders/a-killed');
  await expect(page.locator('header [data-flag="stop_not_holding"]')).toHaveText('stop did not hold');
  const story = page.getByRole('list', { name: 'timeline' });
  await expect(story.locator('li[data-kind="interrupt_ack"]')).toContainText('fang acknowledged ops\'s kill (“Not wanted after all.”) when its run started');
  await expect(story.locator('li[data-kind="interrupt_ack"]')).toContainText('interrupt seen');
  await expect(page.locator('[data-ferry-state]')).toHaveText('Offered (fang)');
  await signInAsCbops(page);
  await expect(page.getByRole('button', { name: 'Supersede with a new order…' })).toBeEnabled();
  await shot(page, testInfo, 'supersede-killed-order', true);

  // Reopen a-steered: the board shows it running again; ferry still reads it Done, and the page says so.
  await page.goto('/orders/a-steered');
  await page.getByRole('button', { name: 'Reopen a-steered…' }).click();
  const reopen = page.getByRole('dialog', { name: 'Reopen a-steered' });
  await expect(reopen.locator('[data-decision]')).toContainText('ferry reads it as Done (fang)');
  await reopen.getByLabel(/Why reopen it/).fill('the steer was not followed');
  await reopen.getByRole('button', { name: 'Sign and reopen' }).click();
  await expect(reopen).toBeHidden();
  await expect(page.locator('[data-ferry-note]')).toContainText('ferry reads this as Done (fang); claimboard shows claimed because an operator reopened it');
  await expect(page.locator('dt', { hasText: /^ferry reads$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('Done (fang) (claimboard differs: see above)');
  await shot(page, testInfo, 'supersede-ferry-note');
});
