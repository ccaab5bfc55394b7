/**
 * The soak, short (`npm run soak` is the long one): the real `claimboard serve` under the
 * simulated fleet (20 workers, about 25 files a second) for 20 s (50 s under
 * CLAIMBOARD_TEST_FULL=1), with 10 event streams
 * and 3 pollers, then the fleet stopped and everything left to settle. It must end with no stream
 * client that missed an update, no write the board never showed, a change-feed row for every
 * order-folder write, and the board equal to a fresh index of the final folder.
 *
 * Not judged here: memory and descriptor growth (a minute says nothing about a leak; the 30-minute
 * figures are in bench/README.md "Soak"). Needs the production build (`.next/BUILD_ID`): skipped,
 * and said, without it; scripts/test.sh runs this file after its `next build` step.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { failuresOf, SoakHarness } from './harness';
import { dashboardBuilt, sleep } from './proc';
import { sized } from '../size';

const RUN_S = sized(20, 50);

const built = dashboardBuilt();
if (!built) console.warn('soak.test.ts: skipped: no production build (.next/BUILD_ID); run `npm run build` first (scripts/test.sh runs this after its build step)');

let h: SoakHarness | null = null;
afterAll(async () => {
  await h?.close();
});

describe.skipIf(!built)('the soak, short', () => {
  it(`${RUN_S} s of a 25 files/s fleet: no missed update, every write shown, the board equal to a fresh index`, async () => {
    // Reruns never hang here: a card stale by its run keeps a stale reason its holder's activity
    // elsewhere changed (lib/index/writer/facts.ts, the soak finding), which this test is not about.
    h = await SoakHarness.start({ workers: 20, streams: 10, pollers: 3, staleAfterS: 10, maxOrders: 150, hangs: { rerun: 0 }, log: (l) => console.log(`soak: ${l}`) });
    await sleep(RUN_S * 1000);
    expect(h.serve?.exited ?? null).toBeNull();
    const v = await h.finish(60);
    console.log(
      `soak (short): ${v.filesPerS.toFixed(1)} files/s ${JSON.stringify(v.writes)}; lag p50 ${v.lag.p50.toFixed(0)} ms p95 ${v.lag.p95.toFixed(0)} ms max ${v.lag.max.toFixed(0)} ms over ${v.lag.n}; ` +
        `feed ${v.feedRows} rows; board ${v.boardOrders} orders ${JSON.stringify(v.laneCounts)}; API p95 board ${v.api.board.p95.toFixed(0)} ms order ${v.api.order.p95.toFixed(0)} ms`,
    );
    // The fleet really wrote (a soak of nothing passes every check): 20 workers heartbeat about
    // once a second each, 20 a second; a quarter of that is a floor any loaded machine meets.
    expect(v.writes.heartbeat ?? 0).toBeGreaterThan(RUN_S * 5);
    expect((v.writes.order ?? 0) + (v.writes.result ?? 0)).toBeGreaterThan(0);
    // Every order-folder write made its order a change-feed row and every stream heard of it;
    // every write a card shows was shown; the board is the folder's (harness.ts failuresOf).
    expect(failuresOf(v)).toEqual([]);
    expect(v.boardOrders).toBeGreaterThan(60);
  });
});
