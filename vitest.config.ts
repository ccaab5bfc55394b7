import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slow-first-sequencer';

export default defineConfig({
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('.', import.meta.url)),
      // `server-only` throws outside Next's react-server condition; tests run server code directly.
      'server-only': fileURLToPath(new URL('./test/support/server-only-stub.ts', import.meta.url)),
    },
  },
  test: {
    include: ['lib/**/*.test.ts', 'test/**/*.test.ts', 'bin/**/*.test.ts', 'app/**/*.test.ts', 'components/**/*.test.ts', 'deploy/**/*.test.ts'],
    exclude: ['e2e/**', '.next/**', 'node_modules/**'],
    // Bounds far beyond any run on a loaded 2-core machine: they only end a test that hangs.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Four workers on two cores: most files spend their time waiting on child processes, timers
    // and the disk, not on a core.
    maxWorkers: 4,
    sequence: { sequencer: SlowestFirst },
  },
});
