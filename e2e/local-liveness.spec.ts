/**
 * This machine's verdict on a run's pid, as the board and the order page word it, through
 * the production build on a server of this spec's own (`--local-agent fang --stale-after 3600`
 * on the test clock, started here and stopped by its pid) serving a fresh temp copy of vectors
 * 04-stale-heartbeat-lapsed (t1, t2: claimed by fang, with heartbeats) and 11-give-up-ack-reopen
 * (g3: claimed by nebra, with a heartbeat; g1, g2 given up).
 *
 * Before serve starts, the spec starts two child processes here and rewrites fang's heartbeats to
 * name them, each with a new run id (so the run's first arrival here is after its process started):
 * t1's child keeps running ("alive: pid N is running here (slow, not orphaned)"), t2's is killed and
 * collected ("dead: pid N is gone on this machine"). nebra is not local here: its stale card g3 says
 * nothing about its pid. All three are stale once the spec lets an hour pass (agent_silent): fang's
 * reasons say what the pid check found, nebra's keeps the guess (its machine, its sync or the agent).
 *
 * Last, a hold of t2's dead run is recorded in the reaper's state folder (`--reap-state`, the file
 * the reaper writes, lib/local/reaper-state.ts): the served board moves t2 to Needs attention with
 * "dead run held for review: ..." and `flag:dead_run_held` finds it (the index folds the hold in).
 *
 * Screenshots, light and dark: test-results/local-liveness-{board,order-t1,order-t2,order-g3,held}-{light,dark}.png.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import type { BoardResponse } from '../lib/api/types';
import { startOwnServer, type OwnServer } from './own-server';
import { get } from './http';

const STALE_AFTER_S = 3600;
let URL = '';

let server: OwnServer | null = null;
let dir = '';
let channel = '';
const children: ChildProcess[] = [];
let alivePid = 0;
let deadPid = 0;

async function shot(page: Page, testInfo: TestInfo, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = path.join(testInfo.project.outputDir, `local-liveness-${name}-${scheme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${scheme}`, { path: file, contentType: 'image/png' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A child process of this machine (`sleep`), started. */
async function child(): Promise<ChildProcess & { pid: number }> {
  const c = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(c);
  await new Promise<void>((resolve, reject) => {
    c.once('spawn', () => resolve());
    c.once('error', reject);
  });
  if (c.pid === undefined) throw new Error('no pid');
  return c as ChildProcess & { pid: number };
}

/** Rewrites fang's heartbeat on `order` the way ferry does (a temp name, then a rename), naming `pid` in a new run. */
function beat(channel: string, order: string, pid: number, run: string) {
  const file = path.join(channel, `tasks/${order}/heartbeat.fang.json`);
  const tmp = path.join(channel, `tasks/${order}/.heartbeat.fang.json.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify({ order_id: order, agent: 'fang', run, pid, at: new Date().toISOString() }, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const alive = await child();
  const dead = await child();
  alivePid = alive.pid;
  deadPid = dead.pid;
  const exited = new Promise((r) => dead.once('exit', r));
  dead.kill('SIGKILL');
  await exited; // collected: its pid is gone, not a zombie
  server = await startOwnServer({
    prefix: 'cb-e2e-liveness-',
    vectors: ['04-stale-heartbeat-lapsed', '11-give-up-ack-reopen'],
    args: (d) => ['--stale-after', String(STALE_AFTER_S), '--local-agent', 'fang', '--reap-state', path.join(d, 'state')],
    prepare: (ch) => {
      beat(ch, 't1', alivePid, 'e2e00000000000000000000000000001');
      beat(ch, 't2', deadPid, 'e2e00000000000000000000000000002');
    },
  });
  dir = server.dir;
  channel = server.channel;
  URL = server.url;
  // Every heartbeat is on the board: an hour and a second later, all three are stale.
  await server.letTimePass((STALE_AFTER_S + 1) * 1000);
});

test.afterAll(async () => {
  await server?.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

const card = (page: Page, id: string) => page.locator(`section[data-lane="stale"] [data-order="${id}"]`);

test('the stale cards: dead for the killed run, alive for the living one, nothing for another machine\'s agent', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${URL}/`);
  // Stale since the hour passed (beforeAll).
  for (const id of ['t1', 't2', 'g3']) await expect(card(page, id)).toBeVisible();

  // The stale reason says what the pid check found instead of guessing at a machine or a sync (components/board/why.ts).
  await expect(card(page, 't2')).toContainText("nothing from fang for ");
  await expect(card(page, 't2')).toContainText(": its run's process died on this machine");
  await expect(card(page, 't1')).toContainText(", though its run's process is alive here");
  await expect(card(page, 'g3')).toContainText(': its machine, its sync or the agent is down');
  await expect(card(page, 't2').locator('[data-local]')).toHaveAttribute('data-local', 'dead');
  await expect(card(page, 't2').locator('[data-local]')).toHaveText(`dead: pid ${deadPid} is gone on this machine`);
  await expect(card(page, 't1').locator('[data-local]')).toHaveAttribute('data-local', 'alive');
  await expect(card(page, 't1').locator('[data-local]')).toHaveText(`alive: pid ${alivePid} is running here (slow, not orphaned)`);
  // nebra's run: a pid means nothing on another machine, so the card says nothing of it.
  await expect(card(page, 'g3')).toBeVisible();
  await expect(card(page, 'g3').locator('[data-local]')).toHaveCount(0);
  await expect(card(page, 'g3')).not.toContainText('pid');
  await shot(page, testInfo, 'board');
});

for (const [id, verdict, text, reason] of [
  ['t2', 'dead', () => `dead: pid ${deadPid} is gone on this machine`, ": its run's process died on this machine"],
  ['t1', 'alive', () => `alive: pid ${alivePid} is running here (slow, not orphaned)`, ", though its run's process is alive here"],
] as const) {
  test(`the order page of ${id} says ${verdict}`, async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${URL}/orders/${id}`);
    const line = page.locator('[data-local]');
    await expect(line).toHaveAttribute('data-local', verdict);
    await expect(line).toHaveText(text());
    await expect(page.locator('main')).toContainText(reason);
    await shot(page, testInfo, `order-${id}`);
  });
}

test("the order page of another machine's agent says nothing about its pid", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${URL}/orders/g3`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('g3');
  await expect(page.getByText('Stale', { exact: false }).first()).toBeVisible();
  await expect(page.locator('[data-local]')).toHaveCount(0);
  await expect(page.locator('main')).not.toContainText('on this machine');
  await shot(page, testInfo, 'order-g3');
});

test('a hold recorded by the reaper on this machine: t2 moves to Needs attention, held for review, found by flag:dead_run_held', async ({ page }, testInfo) => {
  const heldAt = new Date().toISOString();
  const key = createHash('sha256').update(path.resolve(channel)).digest('hex').slice(0, 16);
  const file = path.join(dir, 'state', 'reaper', `${key}.fang.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const hold = {
    order_id: 't2',
    agent: 'fang',
    run: 'e2e00000000000000000000000000002',
    pid: deadPid,
    verdict: 'dead',
    text: `dead: pid ${deadPid} is gone on this machine`,
    held_at_ms: Date.parse(heldAt),
    held_at: heldAt,
    heartbeat_arrival_ms: fs.statSync(path.join(channel, 'tasks/t2/heartbeat.fang.json')).ctimeMs,
  };
  // Written as the reaper writes it (a dot temp file, then a rename), so no read sees half of it.
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.e2e.tmp`);
  fs.writeFileSync(tmp, JSON.stringify({ version: 1, channel: path.resolve(channel), agent: 'fang', updated_at_ms: Date.parse(heldAt), runs: [], holds: [hold] }), { mode: 0o600 });
  fs.renameSync(tmp, file);

  // The index folds the hold in at its next look (about a second): the API first, then the page.
  // On failure the server's log says what the indexer did (attached).
  try {
    await expect
      .poll(
        async () => {
          const b = (await (await get(`${URL}/api/board`)).json()) as BoardResponse;
          return b.lanes.find((l) => l.lane === 'attention')?.cards.some((c) => c.order_id === 't2') ?? false;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
  } catch (e) {
    await testInfo.attach('serve-stderr', { body: server?.stderr.join('') ?? '', contentType: 'text/plain' });
    throw e;
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${URL}/`);
  const held = page.locator('section[data-lane="attention"] [data-order="t2"]');
  await expect(held).toBeVisible();
  await expect(held).toContainText(`dead run held for review since ${heldAt.slice(0, 16).replace('T', ' ')} UTC: pid ${deadPid} is gone on this machine`);
  // The card says the death once in the hold (the pid line would repeat it); the order page keeps the line.
  await expect(held.locator('[data-local]')).toHaveCount(0);
  await expect(page.locator('section[data-lane="attention"] [data-lane-count]')).toHaveAttribute('data-lane-count', '2');
  await expect(page.locator('section[data-lane="stale"] [data-lane-count]')).toHaveAttribute('data-lane-count', '2');
  await shot(page, testInfo, 'held');

  const r = await get(`${URL}/api/board?q=${encodeURIComponent('flag:dead_run_held')}`);
  const b = (await r.json()) as BoardResponse;
  expect(b.lanes.filter((l) => l.count > 0).map((l) => [l.lane, l.cards.map((c) => c.order_id)])).toEqual([['attention', ['t2']]]);
});
