/**
 * The unit suite's order: its slowest files first (measured; the longest a little over a minute
 * on a loaded 2-core machine), then the rest as vitest orders them. Four workers share two cores:
 * a slow file started last would run alone at the end while the other workers sit idle. vitest
 * orders by the durations it cached from earlier runs, and a fresh clone has none.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first. A file not in the list keeps vitest's order, after these. */
export const SLOWEST_FILES = [
  'lib/index/crash.test.ts',
  'test/sync/syncthing.test.ts',
  'lib/alerts/alerts.test.ts',
  'test/fuzz/fuzz.test.ts',
  'lib/index/scale.test.ts',
  'lib/index/indexer.test.ts',
  'bin/cli.test.ts',
  'test/faults/stale-run-lane.test.ts',
  'lib/reaper/reap.test.ts',
  'lib/demo/fleet.test.ts',
  'lib/demo/scenario.test.ts',
  'lib/index/workers/worker-pool.test.ts',
  'lib/demo/engines.test.ts',
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FILES.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i < 0 ? SLOWEST_FILES.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
