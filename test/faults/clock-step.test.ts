/**
 * Fault: this machine's wall clock steps back, and forward, by an hour. The
 * boundary where claimboard reads time is faked: the indexer's `clock` (Date.now by default) is
 * the real clock plus the step, and `ctimeSkew` adds the step to the ctimes of files the fleet
 * writes meanwhile, as the kernel would have stamped them on the stepped clock (the real kernel's
 * ctimes here are on the real clock; the machine's own clock is not touched).
 *
 * What holds (docs/channel-format.md "Which clock each age uses"): the indexer sees each step
 * (the wall clock against the boot clock), keeps it, and puts "now" and every arrival on one
 * steady timeline, the clock as it read before the step: no card turns stale or fresh by the
 * step alone, an age never goes negative, and staleness after the step is decided by the time
 * that really passed. The steps are kept in the index: a restart on the same boot keeps them,
 * and a step made while no indexer ran is seen at the next start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory, openWriter } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';
import { bootClockMs, indexNowMs } from '../../lib/index/steady-clock';
import { VECTORS_DIR } from '../support/vectors';
import { folderSnapshot } from '../support/folder';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import * as q from '../../lib/index/read/queries';
import { until } from '../support/until';

const HOUR = 3_600_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-clock-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Vector 03 (t1 claimed by fang with a heartbeat) copied: every file arrives now. */
function channel(name: string): string {
  const root = path.join(tmp, name);
  fs.cpSync(path.join(VECTORS_DIR, '03-claimed-fresh', 'channel'), root, { recursive: true });
  return root;
}

/** The fleet's next heartbeat of t1 (ferry's heartbeats are unsigned). */
function beat(root: string, n: number): void {
  const p = path.join(root, 'tasks', 't1', 'heartbeat.fang.json');
  const hb = { order_id: 't1', agent: 'fang', run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4242, at: `2026-11-20T09:${String(6 + n).padStart(2, '0')}:00Z` };
  fs.writeFileSync(p, JSON.stringify(hb, null, 2));
}

/** A faked wall clock: the real one plus `step`, with the ctimes the kernel would write on it. */
function fakeClock() {
  const c = { step: 0, now: () => Date.now() + c.step, skew: () => c.step };
  return c;
}

function t1(db: ReturnType<typeof openMemory>, wallMs: number) {
  const now = indexNowMs(db, wallMs);
  const o = q.order(db, 't1', now);
  const hb = o?.card.heartbeat ?? null;
  return { state: o?.card.state, age: hb ? now - hb.arrival_ms : null };
}

/** The real Indexer on `root` under a faked clock, in memory, its log lines kept. */
async function indexed(root: string, staleAfterMs = 300_000) {
  const clock = fakeClock();
  const db = openMemory();
  const lines: string[] = [];
  const ix = new Indexer({ root, db, staleAfterMs, watch: false, rescanMs: 100, clock: clock.now, bootClock: bootClockMs, ctimeSkew: clock.skew, verify: nodeVerify, log: (l) => lines.push(l) });
  await ix.start();
  return { clock, db, lines, ix };
}

describe('the wall clock steps by an hour', () => {
  it('forward: a running card stays running, its age goes on from where it was; a heartbeat written on the stepped clock is 0 s old', async () => {
    const root = channel('forward');
    const written = folderSnapshot(root);
    const { clock, db, lines, ix } = await indexed(root);
    try {
      expect(t1(db, clock.now()).state).toBe('claimed');
      clock.step = HOUR;
      ix.request(null);
      await sleep(500);
      // Before the index followed steps on a steady timeline, t1 read stale here: now − arrival was an hour and more.
      const after = t1(db, clock.now());
      expect(after.state).toBe('claimed');
      expect(after.age).not.toBeNull();
      expect(after.age ?? -1).toBeGreaterThanOrEqual(0);
      expect(after.age ?? Infinity).toBeLessThan(60_000);
      expect(lines.filter((l) => /clock stepped/.test(l))).toEqual([
        "index: this machine's clock stepped forward by 3600 s since the last update; ages stay on the clock as it read before (3600 s stepped in all), deriving all 1 orders again",
      ]);

      // The fleet writes on the stepped clock: its heartbeat arrived just now, never "in the future".
      const wroteAt = clock.now();
      beat(root, 1);
      ix.request(null);
      // Its arrival is the moment it was written, on the steady timeline (however long the index took to see it).
      const arrival = () => {
        const now = clock.now();
        return now - (t1(db, now).age ?? Infinity);
      };
      expect(await until(() => arrival() >= wroteAt - 50, 60_000)).toBe(true);
      const fresh = t1(db, clock.now());
      expect(fresh.state).toBe('claimed');
      expect(fresh.age ?? -1).toBeGreaterThanOrEqual(0);
      expect(folderSnapshot(root)).not.toEqual(written); // the fleet wrote; claimboard did not
    } finally {
      await ix.stop();
    }
  });

  it('back: a stale card stays stale; a heartbeat written on the stepped-back clock makes it running, and its silence stale again after stale_after', async () => {
    const root = channel('back');
    const { clock, db, ix } = await indexed(root, 2_000);
    try {
      // stale_after 2 s: t1's heartbeat (copied now) goes stale by time.
      expect(await until(() => t1(db, clock.now()).state === 'stale', 60_000)).toBe(true);
      clock.step = -HOUR;
      ix.request(null);
      await sleep(500);
      // Before, t1 read claimed here: its arrival was an hour "ahead" of now.
      const after = t1(db, clock.now());
      expect(after.state).toBe('stale');
      expect(after.age ?? -1).toBeGreaterThan(2_000);
      expect(after.age ?? Infinity).toBeLessThan(60_000);

      beat(root, 1);
      ix.request(null);
      expect(await until(() => t1(db, clock.now()).state === 'claimed', 60_000)).toBe(true);
      expect(t1(db, clock.now()).age ?? -1).toBeGreaterThanOrEqual(0);
      // Without another heartbeat: stale 2 s later, by the time that passed (before: an hour and 2 s later).
      expect(await until(() => t1(db, clock.now()).state === 'stale', 60_000)).toBe(true);
    } finally {
      await ix.stop();
    }
  });

  it('back, forward and back again with no file written meanwhile: the board equals a fresh index once the clock is right; the folder is untouched', async () => {
    const root = channel('round');
    const written = folderSnapshot(root);
    const { clock, db, lines, ix } = await indexed(root);
    try {
      for (const step of [-HOUR, HOUR, 0]) {
        clock.step = step;
        ix.request(null);
        await sleep(500);
        expect(t1(db, clock.now()).state).toBe('claimed');
      }
      const fresh = openMemory();
      const fx = new Indexer({ root, db: fresh, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
      await fx.start();
      await fx.stop();
      const want = JSON.stringify(fx.state);
      expect(JSON.parse(want).orders[0].state).toBe('claimed');
      expect(await until(() => JSON.stringify(ix.state) === want, 60_000)).toBe(true);
      expect(lines.filter((l) => /clock stepped/.test(l)).map((l) => l.replace(/ since the last update.*/, ''))).toEqual([
        "index: this machine's clock stepped back by 3600 s",
        "index: this machine's clock stepped forward by 7200 s",
        "index: this machine's clock stepped back by 3600 s",
      ]);
      expect(folderSnapshot(root)).toEqual(written);
    } finally {
      await ix.stop();
    }
  });

  it('the steps are kept in the index: a restart on the stepped clock, and a step made while no indexer ran, leave a running card running', async () => {
    const root = channel('restart');
    const file = path.join(tmp, 'restart.db');
    const clock = fakeClock();
    const run = async (lines: string[]) => {
      const db = openWriter(file);
      const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, rescanMs: 100, clock: clock.now, bootClock: bootClockMs, ctimeSkew: clock.skew, verify: nodeVerify, log: (l) => lines.push(l) });
      await ix.start();
      return { db, ix };
    };
    const first: string[] = [];
    let r = await run(first);
    clock.step = HOUR;
    r.ix.request(null);
    await sleep(500);
    expect(t1(r.db, clock.now()).state).toBe('claimed');
    await r.ix.stop();
    r.db.close();

    // The same boot, the clock still an hour ahead: the step is remembered, t1 is not stale.
    const second: string[] = [];
    r = await run(second);
    expect(t1(r.db, clock.now()).state).toBe('claimed');
    expect(second.filter((l) => /clock stepped/.test(l))).toEqual([]);
    await r.ix.stop();
    r.db.close();

    // Stepped forward another hour while nothing ran: seen at start.
    clock.step = 2 * HOUR;
    const third: string[] = [];
    r = await run(third);
    try {
      expect(t1(r.db, clock.now()).state).toBe('claimed');
      expect(third.filter((l) => /clock stepped/.test(l))).toEqual([
        "index: this machine's clock stepped forward by 3600 s while no indexer ran; ages stay on the clock as it read before (7200 s stepped in all)",
      ]);
    } finally {
      await r.ix.stop();
      r.db.close();
    }
  });
});
