/**
 * The worker pool ends a run as a whole: a cold pass whose storing fails, or whose
 * own pass on this thread throws, must not leave workers reading and results arriving after it
 * rejected, and a failure in the caller's hands must reject the run, not end the process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_AT_MOST, keptThreads, runPassesInWorkers, type WorkerSetup } from './worker-pool';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

/** `n` order folders, each an order.json that is not an order (a problem row each: enough to pass). */
function channel(n: number): { setup: WorkerSetup; dirs: string[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-pool-'));
  const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-pool-spill-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }), () => fs.rmSync(spillDir, { recursive: true, force: true }));
  const dirs: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = `o${String(i).padStart(5, '0')}`;
    fs.mkdirSync(path.join(root, 'tasks', d), { recursive: true });
    fs.writeFileSync(path.join(root, 'tasks', d, 'order.json'), '{}');
    dirs.push(d);
  }
  const setup: WorkerSetup = { root, agents: [], fleetAgents: [], pins: [], operators: [], retired: [], ferryRetired: [], nowMs: Date.now(), staleAfterMs: 300_000, clockSteps: [], spillDir };
  return { setup, dirs };
}

describe('runPassesInWorkers ends the run at the first failure', () => {
  it('a result the caller cannot take (storing failed) rejects the run with that error, and no later result is handed on', async () => {
    // 2,000 folders are 10 chunks of 200: both workers are handed 4 at their start, so results
    // are still coming when the first one fails.
    const { setup, dirs } = channel(2000);
    let taken = 0;
    const run = runPassesInWorkers(
      dirs,
      2,
      setup,
      () => {
        taken++;
        throw new Error('disk full (test)');
      },
      () => {},
    );
    await expect(run).rejects.toThrow('disk full (test)');
    expect(taken).toBe(1);
    // The other worker's results already on their way are dropped, not stored after the failure.
    await sleep(500);
    expect(taken).toBe(1);
  });

  it("this thread's own pass throwing rejects the run and ends the workers: their results stop", async () => {
    // 4,000 folders: the worker is handed 4 chunks of 200 at its start, this thread the rest, 50
    // at a time, slowly (5 ms a folder, 16 s in all): a worker's results arrive meanwhile.
    const { setup, dirs } = channel(4000);
    let taken = 0;
    let mine = 0;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const run = runPassesInWorkers(
      dirs,
      1,
      setup,
      () => {
        taken++;
      },
      () => {},
      // Fails once a worker's results came in (this thread's own results are counted apart).
      (d) => {
        Atomics.wait(pause, 0, 0, 5);
        if (taken > mine) throw new Error('this thread failed (test)');
        mine++;
        return { dir: d, files: [], card: null, problems: [], holds: [], beats: [], next_ms: null, deferred: 0 };
      },
    );
    await expect(run).rejects.toThrow('this thread failed (test)');
    const fromWorkers = taken - mine;
    expect(fromWorkers).toBeGreaterThan(0);
    // The worker still had chunks in hand: not ended, it would hand a chunk over within a second.
    await sleep(2000);
    expect(taken - mine).toBe(fromWorkers);
  });
});

describe('the worker threads of one run are kept for the next', () => {
  it('a run that ends well hands its threads back (KEPT_AT_MOST at most), the next run takes them; a run that fails ends them', async () => {
    // One thread more than are kept, each handed 4 chunks of 200 at its start.
    const n = KEPT_AT_MOST + 1;
    const { setup, dirs } = channel(800 * n);
    await runPassesInWorkers(dirs, n, setup, () => {}, () => {});
    expect(keptThreads()).toBe(KEPT_AT_MOST); // the one more was ended
    let taken = 0;
    const second = runPassesInWorkers(dirs, n, setup, () => taken++, () => {});
    expect(keptThreads()).toBe(0); // every kept thread taken by the second run
    await second;
    expect(taken).toBe(800 * n);
    expect(keptThreads()).toBe(KEPT_AT_MOST);
    const failing = runPassesInWorkers(dirs, n, setup, () => {
      throw new Error('disk full (test)');
    }, () => {});
    await expect(failing).rejects.toThrow('disk full (test)');
    expect(keptThreads()).toBe(0); // ended, not kept: they may still have held chunks
  });
});
