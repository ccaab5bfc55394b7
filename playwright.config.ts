import { defineConfig, devices } from '@playwright/test';

/**
 * End-to-end tests against the production build (`next build` first; scripts/test.sh does),
 * driven by Debian's Chromium. Playwright's own browser download is never used.
 */
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  forbidOnly: !!process.env.CI,
  // In CI a failed test runs once more; one that then passes is named FLAKY in the summary
  // (scripts/test.sh), as a unit test file that fails once is (scripts/run-vitest.mjs).
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  fullyParallel: false,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  use: {
    ...devices['Desktop Chrome'],
    baseURL: 'http://127.0.0.1:3123',
    trace: 'retain-on-first-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
  webServer: [
    {
      // `claimboard serve` on a fresh copy of a few conformance vectors (e2e/fixture.ts).
      command: 'node e2e/serve-fixture.mjs',
      url: 'http://127.0.0.1:3123/api/board',
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { NEXT_TELEMETRY_DISABLED: '1' },
    },
    {
      // Operator actions (e2e/actions.spec.ts): vectors 06 + 11, stale after 2 s, on 3124 (e2e/actions-fixture.ts).
      command: 'node e2e/serve-actions-fixture.mjs',
      url: 'http://127.0.0.1:3124/api/board',
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { NEXT_TELEMETRY_DISABLED: '1' },
    },
    {
      // Supersede (e2e/supersede.spec.ts): a copy of conformance/ferry/alpha with an operator of ours, on 3125 (e2e/ferry-fixture.ts).
      command: 'node e2e/serve-ferry-fixture.mjs',
      url: 'http://127.0.0.1:3125/api/board',
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { NEXT_TELEMETRY_DISABLED: '1' },
    },
  ],
});
