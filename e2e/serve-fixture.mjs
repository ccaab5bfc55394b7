// Playwright's webServer: lays out the fixture channel afresh (e2e/fixture.ts) and serves it
// with `claimboard serve` on 127.0.0.1:3123, replacing this process (exec-style) so that
// Playwright's stop signal reaches the server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(os.tmpdir(), `claimboard-e2e-${createHash('sha256').update(root).digest('hex').slice(0, 10)}`);
const vectors = path.resolve(root, 'conformance/vectors');
fs.rmSync(dir, { recursive: true, force: true });
const channel = path.join(dir, 'channel');
for (const v of ['10-review-states', '11-give-up-ack-reopen', '20-dependencies']) {
  fs.cpSync(path.join(vectors, v, 'channel'), channel, { recursive: true, force: true });
}
const child = spawn(process.execPath, [path.join(root, 'bin/claimboard.mjs'), 'serve', channel, '--port', '3123', '--db', path.join(dir, 'index.sqlite')], { stdio: 'inherit', cwd: root });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 1));
