// Playwright's webServer: lays out the fixture channel afresh (e2e/fixture.ts) and serves it
// with `claimboard serve` on 127.0.0.1 at this run's port (e2e/run.mjs), on the test clock and
// with a stale threshold far beyond any run, passing Playwright's stop signal to the server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { e2eRun, fixtureDir, passStop } from './run.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dir = fixtureDir('main');
const vectors = path.resolve(root, 'conformance/vectors');
fs.rmSync(dir, { recursive: true, force: true });
const channel = path.join(dir, 'channel');
for (const v of ['10-review-states', '11-give-up-ack-reopen', '20-dependencies']) {
  fs.cpSync(path.join(vectors, v, 'channel'), channel, { recursive: true, force: true });
}
const child = spawn(
  process.execPath,
  [path.join(root, 'bin/claimboard.mjs'), 'serve', channel, '--port', String(e2eRun().ports.main), '--stale-after', '86400', '--db', path.join(dir, 'index.sqlite')],
  { stdio: 'inherit', cwd: root, env: { ...process.env, CLAIMBOARD_TEST_CLOCK_FILE: path.join(dir, 'clock') } },
);
passStop(child);
