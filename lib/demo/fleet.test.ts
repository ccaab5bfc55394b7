import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelStateOf } from '../index/channel-state';
import { parseTimestamp } from '../ledger/time';
import { LANES, type Lane } from '../ledger/derive';
import { writeDemoChannel } from './scenario';
import { startFleet, type FleetEvent } from './fleet';

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
    const staleAfterMs = 1000;
    const fleet = startFleet(dir, { staleAfterMs, tickMs: 50, seed: 7, onEvent: (e) => events.push(e), onError: (e) => errors.push(e) });
    const seen = new Map<Lane, number>(LANES.map((l) => [l, 0]));
    const start = Date.now();
    let last: ReturnType<typeof channelStateOf> | null = null;
    try {
      while (Date.now() - start < 3200) {
        await sleep(200);
        const s = channelStateOf(dir, { staleAfterMs });
        expect(s.problems).toEqual([]);
        for (const [file, r] of Object.entries(s.ledger)) expect(r.intact, file).toBe(true);
        for (const c of s.orders) seen.set(c.lane, (seen.get(c.lane) ?? 0) + 1);
        last = s;
      }
    } finally {
      await fleet.stop();
    }
    expect(errors).toEqual([]);
    for (const lane of LANES) expect(seen.get(lane), lane).toBeGreaterThan(0);
    // at the end: the abandoned runs are stale, the fleet's runs still run, finished work is done
    const lanesNow = new Set(last?.orders.map((c) => c.lane));
    for (const lane of ['running', 'done', 'stale'] as const) expect(lanesNow.has(lane), lane).toBe(true);
    const stale = last?.orders.filter((c) => c.lane === 'stale').map((c) => c.order_id) ?? [];
    expect(stale).toEqual(expect.arrayContaining(['index-search-502', 'cache-api-1040', 'e2e-web-882', 'backfill-db-309']));
    expect(last?.orders.find((c) => c.order_id === 'e2e-web-882')?.reason).toBe('heartbeat_lapsed');
    expect(last?.orders.find((c) => c.order_id === 'index-search-502')?.reason).toBe('agent_silent');

    const kinds = new Set(events.map((e) => e.kind));
    for (const k of ['heartbeat', 'result', 'claim', 'giveup'] as const) expect(kinds.has(k), k).toBe(true);
    expect(last?.orders.find((c) => c.order_id === 'perf-api-1039')?.state).toBe('gave_up');

    // wisp's clock runs 3 h ahead: its heartbeat's `at` is ~3 h after this machine's now
    const hbFile = path.join(dir, 'tasks', 'i18n-web-879', 'heartbeat.wisp.json');
    const at = parseTimestamp((JSON.parse(fs.readFileSync(hbFile, 'utf8')) as { at: string }).at);
    expect(at.ok && at.value.epochMs - Date.now()).toBeGreaterThan(2.9 * 3_600_000);

    // stopped: nothing more is written, and no temp file is left behind
    const before = listing(dir).map((f) => `${f}:${fs.statSync(path.join(dir, f)).ctimeMs}`);
    await sleep(300);
    expect(listing(dir).map((f) => `${f}:${fs.statSync(path.join(dir, f)).ctimeMs}`)).toEqual(before);
    expect(listing(dir).filter((f) => path.basename(f).startsWith('.'))).toEqual([]);
  });

  it('stays bounded by maxOrders and refuses a folder that is not a demo channel', async () => {
    writeDemoChannel(dir);
    const fleet = startFleet(dir, { staleAfterMs: 200, tickMs: 20, seed: 3, maxOrders: 36, onError: (e) => { throw e; } });
    await sleep(2500);
    await fleet.stop();
    expect(fs.readdirSync(path.join(dir, 'tasks')).length).toBe(36); // 34 written + 2 issued, then no more
    expect(channelStateOf(dir, { staleAfterMs: 200 }).problems).toEqual([]);
    expect(() => startFleet(path.join(tmp, 'nowhere'))).toThrow();
  });
});
