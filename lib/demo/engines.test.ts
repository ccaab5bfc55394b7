/**
 * The demo's runs as real processes: with realProcesses, each fleet run's
 * heartbeat names a living child of this process while it runs; a run that died with its worker
 * names a pid that is gone here; once the fleet stops, none of its processes is left. The runs
 * the demo's story wrote (made-up pids) are started again here when the fleet adopts them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelStateOf } from '../index/channel-state';
import { DemoEngines } from './engines';
import { startFleet } from './fleet';
import type { FleetEvent } from './fleet-options';
import { readDemoManifest } from './manifest';
import { writeDemoChannel } from './scenario';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-engines-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Whether a process with this pid exists here (kill(pid, 0); EPERM: it exists, not ours). */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
async function until(f: () => boolean, ms = 60_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (f()) return true;
    await sleep(20);
  }
  return f();
}

describe('DemoEngines', () => {
  it('a started run has a living process; ended, its pid is gone', async () => {
    const e = new DemoEngines();
    const pid = e.start('o/fang');
    expect(pid).not.toBeNull();
    expect(exists(pid ?? 0)).toBe(true);
    e.end('o/fang');
    expect(await until(() => !exists(pid ?? 0))).toBe(true);
  });

  it("the story's runs the fleet adopts start again here: a new run id, its heartbeat naming a living process, never the story's made-up pid", async () => {
    const dir = path.join(tmp, 'channel');
    writeDemoChannel(dir);
    const story = readDemoManifest(dir).runs;
    // ingest-api-1035's double run: fang and kestrel, both kept going until stopped (scenario.ts).
    expect(story.filter((r) => r.order_id === 'ingest-api-1035' && r.fate === 'linger').map((r) => r.agent).sort()).toEqual(['fang', 'kestrel']);
    const events: FleetEvent[] = [];
    // stale_after 60 s: a heartbeat every 6 s, runs of 30 s and more; none ends in this test.
    const fleet = startFleet(dir, { staleAfterMs: 60_000, tickMs: 50, seed: 7, realProcesses: true, onEvent: (ev) => events.push(ev) });
    try {
      const adoptedBy = (r: (typeof story)[number]) => events.some((ev) => ev.kind === 'heartbeat' && ev.order_id === r.order_id && ev.agent === r.agent);
      expect(await until(() => story.filter((r) => r.fate === 'linger').every(adoptedBy), 60_000)).toBe(true);
      const adopted = story.filter(adoptedBy);
      for (const r of adopted) {
        const hb = JSON.parse(fs.readFileSync(path.join(dir, 'tasks', r.order_id, `heartbeat.${r.agent}.json`), 'utf8')) as { run: string; pid: number };
        expect(hb.run, `${r.order_id}/${r.agent}`).not.toBe(r.run);
        expect(hb.pid, `${r.order_id}/${r.agent}`).not.toBe(r.pid);
        expect(exists(hb.pid), `${r.order_id}/${r.agent}: pid ${hb.pid} runs here`).toBe(true);
      }
    } finally {
      await fleet.stop();
    }
  });

  it('the fleet: running runs name living processes, a dead run a pid gone here, none left after stop', async () => {
    const dir = path.join(tmp, 'channel');
    writeDemoChannel(dir);
    const manifestPids = new Set(channelStateOf(dir, { staleAfterMs: 1000 }).orders.flatMap((c) => (c.heartbeat ? [c.heartbeat.pid] : [])));
    const events: FleetEvent[] = [];
    const staleAfterMs = 1000;
    const fleet = startFleet(dir, { staleAfterMs, tickMs: 50, seed: 7, realProcesses: true, restartAfterMs: 600_000, dieChance: 1, onEvent: (ev) => events.push(ev) });
    const fleetPids = new Set<number>();
    try {
      const start = Date.now();
      // Every run of a worker that may die dies (dieChance 1; few workers may: the others hold the
      // story's runs), so the first death comes with the first such run, in seconds at this
      // threshold (runs of 0.3 to 1.5 s). At the default quarter it took 2-14 s here alone, and
      // more than 45 s once in CI beside other test files. The wait ends at the first death.
      while (Date.now() - start < 45_000 && !events.some((ev) => ev.kind === 'die')) await sleep(100);
      // A dead worker does not restart here (restartAfterMs 10 min), so its dead runs keep their heartbeats.
      const s = channelStateOf(dir, { staleAfterMs });
      const died = new Set(events.filter((ev) => ev.kind === 'die').map((ev) => ev.order_id));
      expect(died.size).toBeGreaterThan(0);
      // A worker that dies takes every run it had with it (fleet.ts), not only the one its event names.
      const deadWorkers = new Set(events.filter((ev) => ev.kind === 'die').map((ev) => ev.agent));
      // A heartbeat stays fresh for stale_after after its run ended, and a run started again (a
      // result sent back, then adopted) beats only a heartbeat interval later: the heartbeat on the
      // card is the living run's when the order's last event is a heartbeat of its holder.
      const lastOf = new Map<string, FleetEvent>();
      for (const ev of events) if (ev.order_id) lastOf.set(ev.order_id, ev);
      // The living runs first, with nothing awaited since the folder was read: the fleet's ticks run
      // on this thread, and its processes die only by its hand.
      const deadRuns: number[] = [];
      for (const c of s.orders) {
        if (!c.heartbeat || manifestPids.has(c.heartbeat.pid)) continue; // the story's own runs: made-up pids
        fleetPids.add(c.heartbeat.pid);
        if (died.has(c.order_id)) deadRuns.push(c.heartbeat.pid);
        else if (c.lane === 'running' && c.holder_fresh && c.holder !== null && !deadWorkers.has(c.holder) && lastOf.get(c.order_id)?.kind === 'heartbeat' && lastOf.get(c.order_id)?.agent === c.holder) {
          expect(exists(c.heartbeat.pid), `${c.order_id} runs`).toBe(true);
        }
      }
      for (const pid of deadRuns) expect(await until(() => !exists(pid)), `pid ${pid} of a run that died`).toBe(true);
    } finally {
      await fleet.stop();
    }
    expect(fleetPids.size).toBeGreaterThan(0);
    for (const pid of fleetPids) expect(await until(() => !exists(pid)), `pid ${pid} after stop`).toBe(true);
  });
});
