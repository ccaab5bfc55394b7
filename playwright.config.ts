import { defineConfig, devices } from '@playwright/test';
import { chooseRun } from './e2e/run.mjs';

/**
 * End-to-end tests against the production build (`next build` first; scripts/test.sh does),
 * driven by Debian's Chromium. Playwright's own browser download is never used. The fixture
 * servers take ports the kernel picks for this run (e2e/run.mjs), and no test is retried: a
 * test that fails once has failed.
 */
const run = chooseRun();
const fixtureServer = (name: keyof typeof run.ports, script: string) => ({
  command: `node ${script}`,
  url: `http://127.0.0.1:${run.ports[name]}/api/board`,
  reuseExistingServer: false,
  timeout: 300_000,
  stdout: 'ignore' as const,
  stderr: 'pipe' as const,
  env: { NEXT_TELEMETRY_DISABLED: '1', CB_E2E_PORTS: process.env.CB_E2E_PORTS ?? '', CB_E2E_DIR: run.dir },
});

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Bounds far beyond any run on a loaded 2-core machine: they only end a test that hangs.
  timeout: 600_000,
  expect: { timeout: 20_000 },
  workers: 1,
  fullyParallel: false,
  reporter: [['list']],
  use: {
    ...devices['Desktop Chrome'],
    baseURL: `http://127.0.0.1:${run.ports.main}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
  webServer: [
    // `claimboard serve` on a fresh copy of a few conformance vectors (e2e/fixture.ts).
    fixtureServer('main', 'e2e/serve-fixture.mjs'),
    // Operator actions (e2e/actions.spec.ts and others): vectors 06 + 11 + 15 (e2e/actions-fixture.ts).
    fixtureServer('actions', 'e2e/serve-actions-fixture.mjs'),
    // Supersede (e2e/supersede.spec.ts): a copy of conformance/ferry/alpha with an operator of ours (e2e/ferry-fixture.ts).
    fixtureServer('ferry', 'e2e/serve-ferry-fixture.mjs'),
  ],
});
