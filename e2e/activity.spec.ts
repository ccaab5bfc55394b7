/**
 * Operator activity in the browser, on the actions fixture (e2e/actions-fixture.ts:
 * vectors 06 + 11 + 15). The spec adds two orders of its own and a second operator,
 * lead, who released act-2 (a record and a ledger line signed with lead's key, written as another
 * machine's claimboard would); ops acknowledges fang's give-up on act-1 through the board. /activity then lists both
 * with the right operator and reason, verified; the folder's own acknowledgement of g2 shows
 * partly written (no ledger line); filtering by operator and by order narrows the rows (in the URL); a row's
 * order link opens that order's timeline; a line forged into lead's ledger shows, not verified. Screenshots (light and dark, wide and narrow):
 * test-results/activity-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { naclPublicKey, naclSign } from '../lib/ledger/nacl-verify';
import { signFields, signLedgerLineAfter } from '../lib/ledger/sign';
import { sha256HexOfText } from '../lib/ledger/canonical';
import { actionsServer, KEYS } from './actions-fixture';
import { serveThisFile } from './fixture-server';

const server = actionsServer();
serveThisFile(server);

/** lead's seed: any 32 bytes; its public key goes into the roster. */
const LEAD_SEED = sha256HexOfText('e2e activity: lead');

const lane = (page: Page, name: string) => page.locator(`section[data-lane="${name}"]`);
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const file = path.join(testInfo.project.outputDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** Writes a file the way Syncthing does: a dotted temp name, then a rename. */
function writeChannelFile(rel: string, content: string) {
  const abs = path.join(server.channel, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.tmp`);
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, abs);
}
const json = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

/** An order issued by ops and claimed by `agent`, who gave up on it when `giveUp` (Needs attention at once). */
function claimedOrder(id: string, agent: 'fang' | 'wisp', giveUp = false) {
  const now = new Date().toISOString();
  writeChannelFile(
    `tasks/${id}/order.json`,
    json(signFields('order', { id, project_id: 'activity', issued_by: 'ops', created_at: now, payload: { n: id }, requires_review: false, requires_approval: false, depends_on: [] }, 'ops', (p) => naclSign(KEYS.ops.seed, p))),
  );
  writeChannelFile(`tasks/${id}/claim.${agent}.json`, json({ order_id: id, agent, claimed_at: now }));
  if (giveUp) {
    const g = signFields('giveup', { order_id: id, agent, run: 'e2e-activity-run-01', reason: 'tests keep timing out', attempts: 3, at: now }, agent, (p) => naclSign(KEYS[agent].seed, p));
    writeChannelFile(`tasks/${id}/giveup.${agent}.json`, json(g));
  }
}

test('the activity lists the acts performed with their operator and reason; filters; a row leads to the order timeline', async ({ page }, testInfo) => {
  claimedOrder('act-1', 'fang', true);
  claimedOrder('act-2', 'wisp');
  // lead, a second operator, re-queues act-2 from its own machine: its record and its ledger line.
  writeChannelFile('agents/lead.json', json({ name: 'lead', role: 'operator', capabilities: [], public_key: naclPublicKey(LEAD_SEED) }));
  const at = new Date().toISOString();
  const sign = (p: string) => naclSign(LEAD_SEED, p);
  writeChannelFile('tasks/act-2/release.lead.wisp.json', json(signFields('release', { order_id: 'act-2', released: 'wisp', releaser: 'lead', reason: 'requeued: wisp moved to another project', at }, 'lead', sign)));
  writeChannelFile(
    'ledger.lead.jsonl',
    signLedgerLineAfter({ kind: 'release', actor: 'lead', summary: "released wisp's claim on act-2 (requeued: wisp moved to another project)", reference: 'act-2', created_at: at }, '', 'lead', sign) + '\n',
  );

  // ops acknowledges fang's give-up on act-1 on the board.
  await page.goto('/');
  await nav(page).getByRole('button', { name: /Sign in as operator|Operator key/ }).click();
  const panel = page.getByRole('dialog', { name: 'Operator key' });
  await panel.getByLabel('Operator name').fill('ops');
  await panel.getByLabel('Seed (64 hex digits)').fill(KEYS.ops.seed);
  await panel.getByRole('button', { name: 'Import' }).click();
  await expect(panel.getByRole('status')).toContainText('signed in as ops — operator of this channel ✓');
  await page.keyboard.press('Escape');
  const card = lane(page, 'attention').locator('[data-order="act-1"]');
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: 'Actions on act-1' }).click();
  await page.getByRole('menuitem', { name: /Acknowledge give-up/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Acknowledge the give-up on act-1' });
  await dialog.getByLabel('Note (optional)').fill('the tests need a faster runner');
  await dialog.getByRole('button', { name: 'Sign and acknowledge' }).click();
  await expect(page.locator('[data-toast="ok"]')).toContainText('written: tasks/act-1/ack.ops.json, ledger.ops.jsonl');

  // The activity page, from the navigation.
  await nav(page).getByRole('link', { name: 'Activity' }).click();
  await expect(page).toHaveURL(/\/activity$/);
  await expect(page.getByRole('heading', { name: 'Operator activity' })).toBeVisible();
  const ops = page.locator('tr[data-key="tasks/act-1/ack.ops.json"]');
  await expect(ops).toBeVisible();
  await expect(ops).toHaveAttribute('data-operator', 'ops');
  await expect(ops).toHaveAttribute('data-act', 'ack');
  await expect(ops.locator('[data-reason]')).toHaveText('the tests need a faster runner');
  await expect(ops.locator('[data-subject]')).toContainText('act-1');
  await expect(ops.locator('[data-verified="yes"]')).toContainText('✓ record signed');
  await expect(ops.locator('[data-verified="yes"]')).toContainText(/✓ ledger\.ops\.jsonl line \d+ chains and is signed/);
  const lead = page.locator('tr[data-key="tasks/act-2/release.lead.wisp.json"]');
  await expect(lead).toHaveAttribute('data-operator', 'lead');
  await expect(lead.locator('[data-reason]')).toHaveText('wisp moved to another project');
  await expect(lead.locator('[data-verified="yes"]')).toContainText('✓ ledger.lead.jsonl line 1 chains and is signed');
  await expect(lead).toHaveAttribute('data-act', 'requeue');
  // The newest first: ops's acknowledgement arrived after lead's files.
  const keys = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
  expect(keys.indexOf('tasks/act-1/ack.ops.json')).toBeLessThan(keys.indexOf('tasks/act-2/release.lead.wisp.json'));
  // The folder's own acknowledgement of g2 (vector 11) has no ledger line: the act is partly written, said from the files.
  await expect(page.locator('tr[data-key="tasks/g2/ack.ops.json"] [data-partial]')).toHaveText('⚠ partly written: ack written; its ledger line is not in ledger.ops.jsonl');
  await expect(page.locator('[data-ledger="ledger.lead.jsonl"]')).toContainText('intact');

  await page.setViewportSize({ width: 1440, height: 900 });
  await shot(page, testInfo, 'activity-wide-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, testInfo, 'activity-wide-dark');
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, testInfo, 'activity-narrow-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, testInfo, 'activity-narrow-light');
  await page.setViewportSize({ width: 1440, height: 900 });

  // Filter by operator: lead's acts only, in the URL.
  await page.getByLabel('Operator', { exact: true }).selectOption('lead');
  await expect(page).toHaveURL(/\/activity\?operator=lead$/);
  await expect(ops).toHaveCount(0);
  await expect(lead).toBeVisible();
  for (const o of await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-operator')))) expect(o).toBe('lead');
  await page.getByLabel('Operator', { exact: true }).selectOption('ops');
  await expect(ops).toBeVisible();
  await expect(lead).toHaveCount(0);

  // And by order: only act-1's acts.
  await page.getByLabel('Order', { exact: true }).fill('act-1');
  await page.getByLabel('Order', { exact: true }).press('Enter');
  await expect(page).toHaveURL(/\/activity\?operator=ops&order=act-1$/);
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await expect(page.locator('[data-activity-count]')).toHaveText('1 act matches these filters');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, testInfo, 'activity-filtered-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // The row's order link opens the order page at its timeline, which shows the release.
  await ops.locator('[data-subject]').getByRole('link', { name: 'act-1' }).click();
  await expect(page).toHaveURL(/\/orders\/act-1#timeline$/);
  await expect(page.getByRole('heading', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByText(/^ops acknowledged .*: the tests need a faster runner$/)).toBeVisible();

  // A line forged into lead's ledger (it chains, but ops's key signed it) shows, not verified, saying why.
  const ledgerText = fs.readFileSync(path.join(server.channel, 'ledger.lead.jsonl'), 'utf8');
  const forged = signLedgerLineAfter(
    { kind: 'ack', actor: 'lead', summary: 'acknowledged the give-up on g1', reference: 'g1', created_at: new Date().toISOString() },
    sha256HexOfText(ledgerText.trimEnd().split('\n').at(-1) ?? ''),
    'lead',
    (p) => naclSign(KEYS.ops.seed, p),
  );
  writeChannelFile('ledger.lead.jsonl', ledgerText + forged + '\n');
  await page.goto('/activity?operator=lead');
  const line = page.locator('tr[data-key="ledger.lead.jsonl#2"]');
  await expect(line.locator('[data-partial]')).toHaveText('⚠ partly written: ledger line written; its ack record is not in the folder');
  await expect(line.locator('[data-verified="no"]')).toContainText("✗ ledger.lead.jsonl: line 2's signature does not verify against lead's pinned key");
  await expect(line.locator('[data-reason]')).toHaveText('“acknowledged the give-up on g1”');
  await expect(page.locator('[data-ledger="ledger.lead.jsonl"]')).toContainText('broken at line 2');
  await shot(page, testInfo, 'activity-forged-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, testInfo, 'activity-forged-dark');

  // A query the API cannot take is refused, not guessed at.
  const res = await page.request.get('/api/activity?act=dance');
  expect(res.status()).toBe(400);
});
