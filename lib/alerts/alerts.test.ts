/**
 * Alerts end to end: a real Indexer on a temp copy of a conformance channel, the
 * AlertEngine hooked to it as `claimboard serve` hooks it, real HTTP receivers on 127.0.0.1:0,
 * the real action writer for the re-queue. Stale after 1.5 s: ichabod-1650 (vector 06, a claim
 * with no heartbeat, arriving now) goes stale 1.5 s after the copy, where nothing asserted depends
 * on how soon. A test that needs the claim fresh first, or a quiet period not over, runs on a test
 * clock instead (stale after an hour; `testClock`), whatever the machine's speed.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openWriter, type DB } from '../index/db';
import { indexNowMs } from '../index/steady-clock';
import { Indexer } from '../index/indexer';
import { naclSign } from '../ledger/nacl-verify';
import { nodeVerify } from '../index/disk/node-verify';
import { buildAction } from '../ledger/actions';
import { applyAction, deriveSubset, type ApplyContext } from '../actions/apply';
import { ledgerPrevOf } from '../actions/write';
import { TEST_CHANNEL } from '../../test/support/channel';
import { VECTORS_DIR, vectorKeys } from '../../test/support/vectors';
import { HOUR_MS, testClock, type TestClock } from '../../test/support/test-clock';
import { AlertEngine, type AlertTarget } from './engine';
import { alertsStatus } from './status';
import type { AlertPayload } from './payload';

const STALE_AFTER_MS = 1500;
const ORDER = 'ichabod-1650';
const BASE = 'http://127.0.0.1:3999';

let cleanup: (() => void | Promise<void>)[] = [];

/** Lets `ms` pass on the test clock (test/support/test-clock.ts), then wakes the indexer so that it sees it. */
function passAndLook(clock: TestClock, ms: number, run: Running): void {
  clock.pass(ms);
  run.indexer.request(`tasks/${ORDER}`);
}

afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function channelCopy(vector: string): string {
  const dir = path.join(tempDir('cb-alerts-'), 'channel');
  fs.cpSync(path.join(VECTORS_DIR, vector, 'channel'), dir, { recursive: true });
  return dir;
}

interface Receiver {
  readonly url: URL;
  /** Bodies received, with this machine's clock (ms) when each request's body had arrived. */
  readonly got: { body: AlertPayload; atMs: number }[];
  /** Requests not answered yet. */
  open(): number;
}

/** An HTTP receiver on 127.0.0.1: answers 200, answers 500, or never answers (`hang`). */
async function receiver(mode: 'ok' | 'fail' | 'hang'): Promise<Receiver> {
  const got: Receiver['got'] = [];
  let unanswered = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      got.push({ body: JSON.parse(body) as AlertPayload, atMs: Date.now() });
      if (mode === 'hang') {
        unanswered++;
        res.on('close', () => unanswered--);
        return;
      }
      res.writeHead(mode === 'ok' ? 200 : 500, { 'content-type': 'text/plain' });
      res.end(mode === 'ok' ? 'ok' : 'upstream exploded');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/hook/secret-token`), got, open: () => unanswered };
}

interface Running {
  readonly db: DB;
  readonly indexer: Indexer;
  readonly engine: AlertEngine;
  stop(): Promise<void>;
}

/** An indexer and its alert engine on `root` with the index in `dbFile`, wired as bin/serve.ts wires them. */
async function start(
  root: string,
  dbFile: string,
  targets: AlertTarget[],
  over: Partial<ConstructorParameters<typeof AlertEngine>[0]> = {},
  testClock?: TestClock,
): Promise<Running> {
  const db = openWriter(dbFile);
  const staleAfterMs = over.staleAfterMs ?? STALE_AFTER_MS;
  const engine = new AlertEngine({ db, channel: root, staleAfterMs, targets, baseUrl: BASE, timeoutMs: 60_000, backoffMs: 100, maxAttempts: 3, ...over });
  const indexer = new Indexer({
    root,
    db,
    staleAfterMs,
    verify: nodeVerify,
    vanishGraceMs: 0,
    workers: 0,
    onSettled: () => engine.poke(),
    ...(testClock ? { bootClock: testClock.bootClock } : {}),
  });
  await indexer.start();
  engine.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await engine.stop();
    await indexer.stop();
    db.close();
  };
  cleanup.push(stop);
  return { db, indexer, engine, stop };
}

const laneOf = (db: DB, id: string): string | undefined => (db.prepare('SELECT lane FROM cards WHERE order_id = ?').get(id) as { lane: string } | undefined)?.lane;

async function waitFor<T>(what: string, f: () => T | undefined | null | false, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** When the index first holds `id` in `lane` (this machine's clock, ms): polled every 5 ms. */
const whenLane = (db: DB, id: string, lane: string, timeoutMs = 60_000) => waitFor(`${id} in ${lane}`, () => (laneOf(db, id) === lane ? Date.now() : null), timeoutMs);

describe('alerts', () => {
  it('an order going stale produces one alert, in the board\'s words, and only one', async () => {
    const root = channelCopy('06-stale-no-heartbeat');
    const rx = await receiver('ok');
    const clock = testClock();
    const run = await start(root, path.join(tempDir('cb-alerts-db-'), 'index.sqlite'), [{ kind: 'webhook', url: rx.url }], { staleAfterMs: HOUR_MS }, clock);
    expect(laneOf(run.db, ORDER)).toBe('running'); // claimed a moment ago: stale after an hour
    expect(rx.got).toEqual([]);
    passAndLook(clock, 10 * HOUR_MS, run);
    // How soon after the pass is speed (npm run bench), not asserted here: under load it varies.
    await whenLane(run.db, ORDER, 'stale');
    const first = await waitFor('the alert', () => rx.got[0]);
    const card = JSON.parse((run.db.prepare('SELECT card FROM cards WHERE order_id = ?').get(ORDER) as { card: string }).card) as { since: string; since_ms: number };
    expect(first.body).toMatchObject({
      event: 'stale',
      channel: 'channel',
      order_id: ORDER,
      lane: 'stale',
      state: 'stale',
      flags: [],
      reasons: ['no_heartbeat'],
      // The board's state sentence (lib/ui/why.ts): the claim arrived 10 h and the test's own time ago ("10 h" until 11 h).
      reason: 'claimed by fang 10 h ago; no heartbeat was ever written',
      since: card.since,
      url: `${BASE}/orders/${ORDER}`,
      text: `:hourglass: claimboard (channel): order ${ORDER} is stale — claimed by fang 10 h ago; no heartbeat was ever written ${BASE}/orders/${ORDER}`,
    });
    // More passes (the looks run every second, the clock moves): still one alert.
    await sleep(2500);
    expect(rx.got).toHaveLength(1);
    const status = alertsStatus(run.db, indexNowMs(run.db));
    expect(status.status).toBe('ok');
    expect(status.targets).toEqual([
      expect.objectContaining({ kind: 'webhook', label: `http://127.0.0.1:${rx.url.port}/…`, sent: 1, failed: 0, pending: 0, failing: false, last_error: null }),
    ]);
    // Sent on the index's clock, 10 h ahead of the receiver's.
    expect(status.targets[0]?.last_success_ms).toBeGreaterThanOrEqual(first.atMs + 10 * HOUR_MS);
    expect(status.open).toEqual([expect.objectContaining({ key: `stale:${ORDER}:no_heartbeat`, kind: 'stale', order_id: ORDER })]);
    expect(JSON.stringify(status)).not.toContain('secret-token');
  });

  it('a restart re-sends nothing', async () => {
    const root = channelCopy('06-stale-no-heartbeat');
    const dbFile = path.join(tempDir('cb-alerts-db-'), 'index.sqlite');
    const rx = await receiver('ok');
    const one = await start(root, dbFile, [{ kind: 'webhook', url: rx.url }]);
    await waitFor('the alert', () => rx.got[0]);
    await one.engine.idle();
    await one.stop();
    const two = await start(root, dbFile, [{ kind: 'webhook', url: rx.url }]);
    expect(laneOf(two.db, ORDER)).toBe('stale');
    await sleep(2500); // several looks and decisions of the new process
    await two.engine.idle();
    expect(two.engine.evaluationCount).toBeGreaterThan(0);
    expect(rx.got.map((g) => g.body.event)).toEqual(['stale']);
  });

  it('a receiver that hangs or answers 500 delays no board update', async () => {
    const root = channelCopy('06-stale-no-heartbeat');
    const hang = await receiver('hang');
    const fail = await receiver('fail');
    // A request timeout the board's move takes far less than, even on a loaded machine (the
    // receivers' default, a minute, is only there so that a slow answer is never a failure).
    const run = await start(
      root,
      path.join(tempDir('cb-alerts-db-'), 'index.sqlite'),
      [
        { kind: 'webhook', url: hang.url },
        { kind: 'webhook', url: fail.url },
      ],
      { timeoutMs: 10_000 },
    );
    await whenLane(run.db, ORDER, 'stale');
    await waitFor('both receivers asked', () => hang.got.length > 0 && fail.got.length > 0);
    // A heartbeat arrives while one request hangs (10 s timeout) and the other target retries.
    const written = Date.now();
    fs.writeFileSync(
      path.join(root, 'tasks', ORDER, 'heartbeat.fang.json'),
      JSON.stringify({ order_id: ORDER, agent: 'fang', run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4242, at: '2026-11-30T12:00:00Z' }),
    );
    const shown = await whenLane(run.db, ORDER, 'running');
    console.log(`board update with a hanging and a failing receiver: ${shown - written} ms after the write`);
    // Causal, not timed: the board moved while the first request to the hanging receiver was
    // still open (one request received, none answered or timed out), so it waited for nothing.
    expect(hang.got).toHaveLength(1);
    expect(hang.open()).toBe(1);
    // The failing target: three attempts (bounded), then given up, its error shown.
    await waitFor('the 500 target to give up', () => alertsStatus(run.db, Date.now()).targets[1]?.failed === 1);
    const status = alertsStatus(run.db, Date.now());
    expect(status.status).toBe('failing');
    expect(status.targets[1]).toMatchObject({ failed: 1, sent: 0, failing: true, last_error: 'HTTP 500: upstream exploded' });
    // Exactly three attempts at the stale alert; the next message (the heartbeat's `resolved`) may be under way already.
    expect(fail.got.slice(0, 3).map((g) => g.body.event)).toEqual(['stale', 'stale', 'stale']);
    expect(fail.got.filter((g) => g.body.event === 'stale')).toHaveLength(3);
    // The hanging target: its first attempt timed out after 10 s and it keeps trying, in order.
    await waitFor('the hanging attempt to time out', () => alertsStatus(run.db, Date.now()).targets[0]?.last_error);
    expect(alertsStatus(run.db, Date.now()).targets[0]).toMatchObject({ last_error: 'no answer within 10 s', sent: 0, failing: true });
  });

  it("`resolved` follows an operator's re-queue", async () => {
    const root = channelCopy('06-stale-no-heartbeat');
    const rx = await receiver('ok');
    const run = await start(root, path.join(tempDir('cb-alerts-db-'), 'index.sqlite'), [{ kind: 'webhook', url: rx.url }]);
    await waitFor('the stale alert', () => rx.got[0]);
    // The operator's re-queue through the real rules and writer (as the page's POST /api/actions does).
    const ctx: ApplyContext = { root, nowMs: Date.now(), staleAfterMs: STALE_AFTER_MS, operators: [], proposedChannel: TEST_CHANNEL, verify: nodeVerify };
    const card = deriveSubset(ctx, null).orders.find((o) => o.order_id === ORDER);
    if (!card) throw new Error('no card');
    const seed = (vectorKeys() as Record<string, { seed: string }>).ops?.seed ?? '';
    const req = buildAction({ action: 'requeue', card, note: 'fang is gone' }, 'ops', (p) => naclSign(seed, p), new Date().toISOString(), ledgerPrevOf(path.join(root, 'ledger.ops.jsonl')).prev, TEST_CHANNEL);
    const res = applyAction(req, ctx);
    expect(res.status).toBe(201);
    // The web server nudges the indexer with what it wrote (lib/index/nudge.ts).
    for (const p of res.status === 201 ? res.written : []) run.indexer.request(p);
    await waitFor('the resolved alert', () => rx.got[1]);
    expect(rx.got[1]?.body).toMatchObject({
      event: 'resolved',
      resolves: 'stale',
      order_id: ORDER,
      lane: 'queue',
      state: 'open',
      reasons: ['no_heartbeat'],
      reason: 'no longer stale: now in Queue (open)',
      url: `${BASE}/orders/${ORDER}`,
    });
    await sleep(1500);
    expect(rx.got.map((g) => g.body.event)).toEqual(['stale', 'resolved']);
    expect(alertsStatus(run.db, Date.now()).open).toEqual([]);
  });

  it('a quiet period: an order re-queued before it ends pages nobody', async () => {
    const root = channelCopy('06-stale-no-heartbeat');
    const rx = await receiver('ok');
    const clock = testClock();
    // Stale after an hour, and a quiet period of an hour: neither ends within the test's own time, however long it takes.
    const run = await start(root, path.join(tempDir('cb-alerts-db-'), 'index.sqlite'), [{ kind: 'webhook', url: rx.url }], { staleAfterMs: HOUR_MS, afterMs: HOUR_MS }, clock);
    passAndLook(clock, 10 * HOUR_MS, run);
    await whenLane(run.db, ORDER, 'stale');
    await run.engine.idle();
    expect(alertsStatus(run.db, indexNowMs(run.db)).open).toEqual([expect.objectContaining({ key: `stale:${ORDER}:no_heartbeat`, sent_ms: null })]);
    // A heartbeat: back to Running within the quiet period.
    fs.writeFileSync(
      path.join(root, 'tasks', ORDER, 'heartbeat.fang.json'),
      JSON.stringify({ order_id: ORDER, agent: 'fang', run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4242, at: '2026-11-30T12:00:00Z' }),
    );
    await whenLane(run.db, ORDER, 'running');
    await sleep(500);
    await run.engine.idle();
    expect(alertsStatus(run.db, indexNowMs(run.db)).open).toEqual([]);
    expect(rx.got).toEqual([]);
  });

  it('forged records page as channel problems; a problem gone is resolved', async () => {
    const root = channelCopy('17-bad-signatures');
    const rx = await receiver('ok');
    // Stale after 5 min here: t1 and t3's heartbeats stay fresh for the test.
    await start(root, path.join(tempDir('cb-alerts-db-'), 'index.sqlite'), [{ kind: 'webhook', url: rx.url }], { staleAfterMs: 300_000 });
    await waitFor('six alerts', () => rx.got.length >= 6);
    const keyOf = (b: AlertPayload) => `${b.event}:${b.order_id ?? b.path}:${b.reasons.join(',')}`;
    expect(rx.got.map((g) => keyOf(g.body)).sort()).toEqual([
      'attention:t1:bad_record',
      'attention:t2:bad_record',
      'attention:t3:bad_record',
      'problem:tasks/t1/result.fang.001.json:invalid_signature',
      'problem:tasks/t2/release.wisp.fang.json:unauthorized_signer',
      'problem:tasks/t3/result.nebra.001.json:unknown_signer',
    ]);
    const forged = rx.got.find((g) => g.body.path === 'tasks/t1/result.fang.001.json')?.body;
    expect(forged).toMatchObject({ event: 'problem', problem: 'invalid_signature', url: `${BASE}/problems` });
    expect(forged?.reason.startsWith('the signature does not verify: tasks/t1/result.fang.001.json')).toBe(true);
    // The forged result removed: its problem and t1's bad_record go, each resolved once.
    fs.rmSync(path.join(root, 'tasks/t1/result.fang.001.json'));
    await waitFor('two resolved alerts', () => rx.got.length >= 8);
    await sleep(1500);
    expect(rx.got.slice(6).map((g) => `${g.body.event}:${g.body.resolves}:${g.body.order_id ?? g.body.path}`).sort()).toEqual([
      'resolved:attention:t1',
      'resolved:problem:tasks/t1/result.fang.001.json',
    ]);
    expect(rx.got).toHaveLength(8);
  });

  it('a command gets the payload as JSON on its standard input', async () => {
    const root = channelCopy('06-stale-no-heartbeat');
    const out = path.join(tempDir('cb-alerts-cmd-'), 'got.jsonl');
    const run = await start(root, path.join(tempDir('cb-alerts-db-'), 'index.sqlite'), [{ kind: 'command', command: `cat >> '${out}'` }]);
    await whenLane(run.db, ORDER, 'stale');
    const text = await waitFor('the command to run', () => (fs.existsSync(out) && fs.readFileSync(out, 'utf8').endsWith('\n') ? fs.readFileSync(out, 'utf8') : null));
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as AlertPayload);
    expect(lines.map((l) => [l.event, l.order_id])).toEqual([['stale', ORDER]]);
    await run.engine.idle();
    expect(alertsStatus(run.db, Date.now()).targets[0]).toMatchObject({ kind: 'command', label: 'command: cat …', sent: 1 });
  });
});
