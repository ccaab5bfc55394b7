// Playwright's second webServer (operator actions, e2e/actions.spec.ts): lays out a fresh copy of
// vectors 06-stale-no-heartbeat, 11-give-up-ack-reopen and 15-late-result merged into one folder and serves it
// with `claimboard serve --stale-after 3600` on 127.0.0.1 at this run's port (e2e/run.mjs), on the
// test clock (e2e/test-clock.ts), passing Playwright's stop signal to the server. Keep the folder
// and the threshold in step with e2e/actions-fixture.ts.
//
// The server also gets CLAIMBOARD_DEMO_OPERATOR_KEY (a copy of the vectors' ops seed, outside
// the channel), so the page's "Use the demo operator key" button can be tested as on the demo.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { e2eRun, fixtureDir, passStop } from './run.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dir = fixtureDir('actions');
const vectors = path.resolve(root, 'conformance/vectors');
fs.rmSync(dir, { recursive: true, force: true });
const channel = path.join(dir, 'channel');
for (const v of ['06-stale-no-heartbeat', '11-give-up-ack-reopen', '15-late-result']) {
  fs.cpSync(path.join(vectors, v, 'channel'), channel, { recursive: true, force: true });
}
const keys = JSON.parse(fs.readFileSync(path.join(vectors, 'keys.json'), 'utf8'));
const demoKey = path.join(dir, 'ops.key');
fs.writeFileSync(demoKey, `${keys.ops.seed}\n`, { mode: 0o600 });

const child = spawn(
  process.execPath,
  [path.join(root, 'bin/claimboard.mjs'), 'serve', channel, '--port', String(e2eRun().ports.actions), '--stale-after', '3600', '--db', path.join(dir, 'index.sqlite')],
  { stdio: 'inherit', cwd: root, env: { ...process.env, CLAIMBOARD_DEMO_OPERATOR_KEY: demoKey, CLAIMBOARD_TEST_CLOCK_FILE: path.join(dir, 'clock') } },
);
passStop(child);
