import { defineConfig, devices } from '@playwright/test';

/**
 * End-to-end tests against the production build (`next build` first; scripts/test.sh does),
 * driven by Debian's Chromium. Playwright's own browser download is never used. Each spec file
 * starts its own `claimboard serve` on a port the kernel picks (e2e/fixture-server.ts), so spec
 * files share nothing and run on three workers at once (a test spends much of its time waiting
 * for the page and the server, not on a core). A file's tests run in order on its one server:
 * spread over the workers, each worker started a server of its own, which cost more CPU than the
 * spreading gained (the three longest files: 57, 46 and 43 s alone in order, 66, 59 and 44 s
 * spread, with a third more CPU). No test is retried: a test that fails once has failed.
 */
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Bounds far beyond any run on a loaded 2-core machine: they only end a test that hangs.
  timeout: 600_000,
  expect: { timeout: 60_000 },
  workers: 3,
  fullyParallel: false,
  reporter: [['list']],
  use: {
    ...devices['Desktop Chrome'],
    // Recording a trace costs every test about a fifth more CPU (DOM snapshots and screencast
    // frames for each action), failed or not; a failure keeps its screenshot and the call log.
    // To look into one: `npx playwright test <spec> --trace on`.
    trace: 'off',
    screenshot: 'only-on-failure',
    // The live dot's three pings (components/shell/Nav.tsx) repaint the page 60 times a second for
    // 3 s after every load: in headless Chromium about a CPU-second a page, a sixth of the suite's
    // CPU. Reduced motion hides them, as it does for anyone who asks for it; nothing else moves.
    reducedMotion: 'reduce',
    // A test's page is the previous test's, reset by Playwright (other pages closed, about:blank,
    // cookies, storage of every origin, cache, routes, emulation and viewport back to the options):
    // a new context opens a browser window with a renderer of its own, about 3 CPU-s more than
    // loading the board again in a page that exists (4.1 against 1.2 CPU-s of the whole machine,
    // measured). A new context still comes when a test asks for other options than the last one
    // (a phone's isMobile, another spec file's baseURL). The whole end-to-end step: 658 CPU-s and
    // 332 s with a context per test, 533 and 270 s reused.
    reuseContext: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
});
