import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slow-first-sequencer.ts';

const INCLUDE = ['lib/**/*.test.ts', 'test/**/*.test.ts', 'bin/**/*.test.ts', 'app/**/*.test.ts', 'components/**/*.test.ts', 'deploy/**/*.test.ts'];
const EXCLUDE = ['e2e/**', '.next/**', 'node_modules/**'];
/** The test files that replace modules (vi.mock, vi.resetModules), each in a module graph of its own. */
export const ISOLATED = ['test/faults/index-replaced.test.ts', 'lib/index/disk/verifier.test.ts'];
/** The tests that start the real `claimboard serve`: they need the production build (`npm test` runs them after it). */
const SERVE = [
  'test/support/soak/soak.test.ts',
  'test/faults/sigstop.test.ts',
  'test/faults/inotify.test.ts',
  'test/faults/burst.test.ts',
  'test/faults/sigterm.test.ts',
  'bin/web.test.ts',
  'bin/serve-attacks.test.ts',
  'bin/serve-priority.test.ts',
  'bin/serve-hub-real.test.ts',
];
/** The tests that need the real ferry's worker (test/support/ferry-kit.ts): `scripts/test.sh --shared` runs them. */
const FERRY = ['lib/reaper/reap-ferry.test.ts'];

const resolve = {
  alias: {
    '@': fileURLToPath(new URL('.', import.meta.url)),
    // `server-only` throws outside Next's react-server condition; tests run server code directly.
    'server-only': fileURLToPath(new URL('./test/support/server-only-stub.ts', import.meta.url)),
  },
};
// Bounds far beyond any run on a loaded 2-core machine: they only end a test that hangs.
const timeouts = { testTimeout: 600_000, hookTimeout: 600_000 };

export default defineConfig({
  resolve,
  test: {
    // Four workers on two cores: most files spend their time waiting on child processes, timers
    // and the disk, not on a core.
    maxWorkers: 4,
    sequence: { sequencer: SlowestFirst },
    // The unit project's worker runs its files one after another in one module graph (each file
    // importing the app afresh cost more than a third of the suite's CPU). The files that replace
    // modules (vi.mock, vi.resetModules) need a graph of their own: they run isolated, as do the
    // few that start processes of their own. `npm test` runs `--project unit --project isolated`,
    // then `--project serve` after the build; `vitest run` alone runs them all.
    projects: [
      { resolve, test: { ...timeouts, name: 'unit', include: INCLUDE, exclude: [...EXCLUDE, ...ISOLATED, ...SERVE, ...FERRY], isolate: false } },
      { resolve, test: { ...timeouts, name: 'isolated', include: ISOLATED, exclude: EXCLUDE } },
      { resolve, test: { ...timeouts, name: 'serve', include: SERVE, exclude: EXCLUDE } },
      { resolve, test: { ...timeouts, name: 'ferry', include: FERRY, exclude: EXCLUDE } },
    ],
  },
});
