import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelStateOf } from '../index/channel-state';
import { LANES, type Lane } from '../ledger/derive';
import { compareTimestamps } from '../ledger/time';
import { demoKeysDir } from './cast';
import { writeDemoManifest } from './manifest';
import { writeDemoChannel } from './scenario';
import { archiveCandidate } from './archive';
import { startFleet } from './fleet';
import type { FleetEvent } from './fleet-options';
import { ChannelBuilder } from '../../test/support/channel-builder';
import { generateSeed, publicKeyOf, writeKeyFile, type Identity } from './identity';
import { writeAgent, writeClaim, writeHeartbeat, writeInterrupt, writeOrder } from './write';

let tmp: string;
let dir: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-fleet-'));
  dir = path.join(tmp, 'channel');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function listing(d: string): string[] {
  return fs
    .readdirSync(d, { withFileTypes: true, recursive: true })
    .map((e) => path.relative(d, path.join(e.parentPath, e.name)))
    .sort();
}

describe('startFleet', () => {
  it('keeps the channel clean while filling running, done and stale; stops cleanly', async () => {
    writeDemoChannel(dir);
    const events: FleetEvent[] = [];
    const errors: unknown[] = [];
    // Workers heartbeat every staleAfterMs / 10: a tick late by up to 2 s on a loaded machine still
    // leaves a running run fresh, while the story's abandoned runs are stale after 2.5 s.
    const staleAfterMs = 2500;
    const fleet = startFleet(dir, { staleAfterMs, tickMs: 50, seed: 7, onEvent: (e) => events.push(e), onError: (e) => errors.push(e) });
    const seen = new Map<Lane, number>(LANES.map((l) => [l, 0]));
    const start = Date.now();
    let last: ReturnType<typeof channelStateOf> | null = null;
    let wispAhead = -Infinity;
    try {
      // At least 4 s, and on until the fleet has written each kind of record and every lane has
      // been seen (a loaded machine runs fewer ticks a second); bounded far beyond any run.
      const kindsSeen = () => new Set(events.map((e) => e.kind));
      const enough = () => ['heartbeat', 'result', 'claim', 'giveup'].every((k) => kindsSeen().has(k as FleetEvent['kind'])) && LANES.every((l) => (seen.get(l) ?? 0) > 0);
      while (Date.now() - start < 4000 || (!enough() && Date.now() - start < 300_000)) {
        await sleep(200);
        const s = channelStateOf(dir, { staleAfterMs });
        expect(s.problems).toEqual([]);
        for (const [file, r] of Object.entries(s.ledger)) expect(r.intact, file).toBe(true);
        for (const c of s.orders) seen.set(c.lane, (seen.get(c.lane) ?? 0) + 1);
        for (const v of s.views.values()) {
          for (const h of v.folder.heartbeats) if (h.record.agent === 'wisp') wispAhead = Math.max(wispAhead, h.record.at.epochMs - Date.now());
        }
        last = s;
      }
    } finally {
      await fleet.stop();
    }
    expect(errors).toEqual([]);
    for (const lane of LANES) expect(seen.get(lane), lane).toBeGreaterThan(0);
    // at the end: the abandoned runs are stale, finished work is done. (That the fleet's runs run is
    // the lanes seen above: a look reads the whole channel on this thread, and on a loaded machine
    // it can hold the heartbeat ticks up past stale_after, so the last look may see none running.)
    const lanesNow = new Set(last?.orders.map((c) => c.lane));
    for (const lane of ['done', 'stale'] as const) expect(lanesNow.has(lane), lane).toBe(true);
    const stale = last?.orders.filter((c) => c.lane === 'stale').map((c) => c.order_id) ?? [];
    expect(stale).toEqual(expect.arrayContaining(['index-search-502', 'cache-api-1040', 'e2e-web-882', 'backfill-db-309']));
    expect(last?.orders.find((c) => c.order_id === 'e2e-web-882')?.reason).toBe('heartbeat_lapsed');
    expect(last?.orders.find((c) => c.order_id === 'index-search-502')?.reason).toBe('agent_silent');

    const kinds = new Set(events.map((e) => e.kind));
    for (const k of ['heartbeat', 'result', 'claim', 'giveup'] as const) expect(kinds.has(k), k).toBe(true);
    expect(last?.orders.find((c) => c.order_id === 'perf-api-1039')?.state).toBe('gave_up');
    // the story's alarms are still there, and every card in Needs attention says why
    const attention = last?.orders.filter((c) => c.lane === 'attention') ?? [];
    expect(attention.map((c) => c.order_id)).toEqual(
      expect.arrayContaining(['export-csv-1033', 'flaky-test-web-880', 'hotfix-api-1041', 'ingest-api-1035', 'pentest-vpn-79', 'purge-cdn-516']),
    );
    for (const c of attention) expect(c.alerts.map((a) => a.flag), c.order_id).toEqual(c.flags);
    // a finished run leaves no heartbeat behind (ferry removes it when the run ends), unless a later run beat there
    const results = events.map((e, i) => ({ e, i })).filter(({ e }) => e.kind === 'result');
    expect(results.length).toBeGreaterThan(0);
    for (const { e, i } of results) {
      const later = events.slice(i + 1).some((h) => h.kind === 'heartbeat' && h.order_id === e.order_id && h.agent === e.agent);
      if (!later) expect(fs.existsSync(path.join(dir, 'tasks', e.order_id, `heartbeat.${e.agent}.json`)), e.order_id).toBe(false);
    }

    // wisp's clock runs 3 h ahead: the heartbeats it wrote say ~3 h after this machine's now
    expect(wispAhead).toBeGreaterThan(2.9 * 3_600_000);

    // stopped: nothing more is written, and no temp file is left behind
    const before = listing(dir).map((f) => `${f}:${fs.statSync(path.join(dir, f)).ctimeMs}`);
    await sleep(300);
    expect(listing(dir).map((f) => `${f}:${fs.statSync(path.join(dir, f)).ctimeMs}`)).toEqual(before);
    expect(listing(dir).filter((f) => path.basename(f).startsWith('.'))).toEqual([]);
  });

  it("a worker that dies stays down, then its start releases its dead run and its orphans, runs what is addressed to it and honours interrupts", async () => {
    // a small channel: ops and wisp; wisp runs a1 (its run dies), a2 (addressed to wisp, killed) and a3 (addressed, steered) wait
    const keys = demoKeysDir(dir);
    fs.mkdirSync(dir, { recursive: true });
    const ident = (name: string): Identity => {
      const seedHex = generateSeed();
      writeKeyFile(path.join(keys, `${name}.key`), seedHex);
      return { name, seedHex };
    };
    const ops = ident('ops');
    const wisp = ident('wisp');
    writeAgent(dir, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
    writeAgent(dir, { name: 'wisp', role: 'worker', publicKey: publicKeyOf(wisp) });
    for (const [id, to] of [['a1', null], ['a2', 'wisp'], ['a3', 'wisp']] as const) {
      writeOrder(dir, ops, { id, project_id: 'atlas', payload: { task: id }, ...(to ? { assigned_to: to } : {}) });
    }
    writeInterrupt(dir, ops, 'a2', 'kill', 'not wanted');
    writeInterrupt(dir, ops, 'a3', 'steer', 'keep it small');
    const r1 = { run: 'a'.repeat(32), pid: 4001 };
    writeClaim(dir, wisp, 'a1');
    writeHeartbeat(dir, wisp, 'a1', r1);
    writeDemoManifest(dir, {
      version: 1,
      operator: 'ops',
      workers: ['wisp'],
      silent: [],
      retired: [],
      clock_offsets_ms: {},
      runs: [{ order_id: 'a1', agent: 'wisp', ...r1, fate: 'die' }],
      abandoned: [],
      down: {},
    });

    const events: FleetEvent[] = [];
    const staleAfterMs = 500;
    const fleet = startFleet(dir, {
      staleAfterMs,
      tickMs: 20,
      seed: 5,
      maxOrders: 3,
      maxDeaths: 0,
      maxGiveups: 0,
      maxSteers: 0,
      restartAfterMs: 700,
      onEvent: (e) => events.push(e),
      onError: (e) => {
        throw e;
      },
    });
    const card = (id: string) => channelStateOf(dir, { staleAfterMs }).orders.find((c) => c.order_id === id);
    let sawStale = false;
    try {
      for (let i = 0; i < 150 && !(card('a2')?.state === 'done' && card('a3')?.state === 'done'); i++) {
        await sleep(50);
        if (card('a1')?.state === 'stale') sawStale = true;
      }
    } finally {
      await fleet.stop();
    }
    const s = channelStateOf(dir, { staleAfterMs });
    expect(s.problems).toEqual([]);
    for (const [file, r] of Object.entries(s.ledger)) expect(r.intact, file).toBe(true);

    // down: nothing of wisp arrived, so its dead run read stale (agent_silent) before the restart
    expect(sawStale).toBe(true);
    const restart = events.find((e) => e.kind === 'restart');
    expect(restart?.detail).toBe('a1 (worker died mid-run), a2 (orphaned at startup), a3 (orphaned at startup)');
    expect(events.findIndex((e) => e.kind === 'die')).toBeLessThan(events.indexOf(restart as FleetEvent));

    // a1: released by wisp after its last heartbeat, which stays; nobody else may take it (wisp's claim is released for good)
    const read = (o: string, n: string) => JSON.parse(fs.readFileSync(path.join(dir, 'tasks', o, n), 'utf8')) as Record<string, string>;
    const rel = read('a1', 'release.wisp.json');
    expect(rel).toMatchObject({ released: 'wisp', releaser: 'wisp', reason: 'worker died mid-run', signed_by: 'wisp' });
    const hb = s.views.get('a1')?.folder.heartbeats[0]?.record;
    const relRec = s.views.get('a1')?.folder.releases[0]?.record;
    expect(hb && relRec && compareTimestamps(relRec.at, hb.at)).toBeGreaterThan(0);
    expect(fs.readdirSync(path.join(dir, 'tasks', 'a1')).sort()).toEqual(['claim.wisp.json', 'heartbeat.wisp.json', 'order.json', 'release.wisp.json']);
    // wisp is this roster's only worker: no worker is left who may claim it (no_worker_left)
    expect(s.orders.find((c) => c.order_id === 'a1')).toMatchObject({ state: 'open', flags: ['no_worker_left'] });

    // a2: orphan-released, claimed, the kill acknowledged and the claim deleted; ferry has no way
    // to withdraw an addressed order, so wisp's next poll claimed it again and ran it to the end
    expect(read('a2', 'release.wisp.json')).toMatchObject({ reason: 'orphaned at startup' });
    expect(Object.keys(read('a2', 'interrupt.ops.wisp.acked.json'))).toEqual(['acknowledged_at', 'agent', 'issued_by', 'order_id']);
    expect(read('a2', 'interrupt.ops.wisp.acked.json').acknowledged_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?\+00:00$/);
    expect(events.filter((e) => e.kind === 'interrupt').map((e) => `${e.order_id}:${e.detail}`).sort()).toEqual(['a2:kill', 'a3:steer']);
    expect(fs.readFileSync(path.join(dir, 'ledger.wisp.jsonl'), 'utf8')).toContain('"summary":"killed a2 on interrupt from ops"');
    expect(fs.readdirSync(path.join(dir, 'tasks', 'a2')).sort()).toEqual([
      'claim.wisp.json',
      'interrupt.ops.json',
      'interrupt.ops.wisp.acked.json',
      'order.json',
      'release.wisp.json',
      'result.wisp.001.json',
    ]);
    // a3: the steer acknowledged at the run's start, the run went on; its heartbeat removed at the end
    expect(fs.readdirSync(path.join(dir, 'tasks', 'a3')).sort()).toEqual([
      'claim.wisp.json',
      'interrupt.ops.json',
      'interrupt.ops.wisp.acked.json',
      'order.json',
      'release.wisp.json',
      'result.wisp.001.json',
    ]);
    // a2 is done although killed (whether that is flagged is the derivation's call); the steered a3 is plainly done
    expect(s.orders.find((c) => c.order_id === 'a2')).toMatchObject({ state: 'done' });
    expect(s.orders.find((c) => c.order_id === 'a3')).toMatchObject({ state: 'done', flags: [] });
  });

  it('keeps going at the bound: a finished order is archived beside the channel and a new one issued', async () => {
    writeDemoChannel(dir);
    const events: FleetEvent[] = [];
    const fleet = startFleet(dir, {
      staleAfterMs: 200,
      tickMs: 20,
      seed: 3,
      maxOrders: 39,
      archiveAtBound: true,
      maxGiveups: Infinity,
      ackAfterMs: 0,
      onEvent: (e) => events.push(e),
      onError: (e) => {
        throw e;
      },
    });
    try {
      // However slow this machine: up to a minute for the first archive and the issue after it.
      for (let i = 0; i < 600 && !(events.some((e) => e.kind === 'archive') && events.some((e) => e.kind === 'issue')); i++) await sleep(100);
    } finally {
      await fleet.stop();
    }
    const archived = events.filter((e) => e.kind === 'archive').map((e) => e.order_id);
    expect(archived.length).toBeGreaterThan(0);
    for (const id of archived) {
      expect(fs.existsSync(path.join(`${dir}.archive`, 'tasks', id, 'order.json'))).toBe(true);
      expect(fs.existsSync(path.join(dir, 'tasks', id))).toBe(false);
    }
    expect(fs.readdirSync(path.join(dir, 'tasks')).length).toBeLessThanOrEqual(39);
    expect(channelStateOf(dir, { staleAfterMs: 200 }).problems).toEqual([]);
  });

  it('archives only a finished order with no flag, no story run and nothing depending on it, the longest untouched first', () => {
    const b = new ChannelBuilder().roster();
    b.order('d1').claim('d1', 'fang').result('d1', 'fang', 1);
    b.order('d2').claim('d2', 'fang').result('d2', 'fang', 1);
    b.order('d3').claim('d3', 'fang').result('d3', 'fang', 1);
    b.order('needs', { depends_on: ['d3'] });
    b.order('run').claim('run', 'wisp');
    const s = b.derive();
    const touched: Record<string, number> = { d1: 5, d2: 1, d3: 0 };
    expect(archiveCandidate(s, () => false, (id) => touched[id] ?? 9)).toBe('d2');
    expect(archiveCandidate(s, (id) => id === 'd2', (id) => touched[id] ?? 9)).toBe('d1');
    expect(archiveCandidate(s, (id) => id !== 'd3', (id) => touched[id] ?? 9)).toBeNull();
  });

  it('stays bounded by maxOrders and refuses a folder that is not a demo channel', async () => {
    writeDemoChannel(dir);
    const fleet = startFleet(dir, { staleAfterMs: 200, tickMs: 20, seed: 3, maxOrders: 41, onError: (e) => { throw e; } });
    const orders = () => fs.readdirSync(path.join(dir, 'tasks')).length;
    // Until the bound is reached (ticks come slower on a loaded machine; bounded far beyond any
    // run), then a second more in which it would issue past the bound if it did.
    for (const t0 = Date.now(); orders() < 41 && Date.now() - t0 < 300_000; ) await sleep(50);
    await sleep(1000);
    await fleet.stop();
    expect(orders()).toBe(41); // 39 written + 2 issued, then no more
    expect(channelStateOf(dir, { staleAfterMs: 200 }).problems).toEqual([]);
    expect(() => startFleet(path.join(tmp, 'nowhere'))).toThrow();
  });
});
