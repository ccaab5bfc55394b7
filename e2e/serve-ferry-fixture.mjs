// Playwright's third webServer (e2e/supersede.spec.ts): lays out a fresh copy of
// conformance/ferry/alpha, a channel the real ferry wrote, adds an operator `cbops` whose seed the
// tests hold, and serves it with `claimboard serve` on 127.0.0.1 at this run's port (e2e/run.mjs),
// on the test clock and with a stale threshold far beyond any run, passing Playwright's stop
// signal to the server. Keep the folder in step with e2e/ferry-fixture.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { e2eRun, fixtureDir, passStop } from './run.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dir = fixtureDir('ferry');
fs.rmSync(dir, { recursive: true, force: true });
const channel = path.join(dir, 'channel');
fs.cpSync(path.join(root, 'conformance/ferry/alpha/channel'), channel, { recursive: true });
const writable = (p) => {
  fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644);
  if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) writable(path.join(p, e));
};
writable(channel);

// cbops: an Ed25519 key from a fixed seed (node:crypto, PKCS#8 prefix + seed), its public key in the roster.
const seed = Buffer.from('c0'.repeat(32), 'hex');
const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
const pub = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
fs.writeFileSync(path.join(channel, 'agents', 'cbops.json'), JSON.stringify({ name: 'cbops', role: 'operator', capabilities: [], public_key: pub }, null, 2));

const child = spawn(
  process.execPath,
  [path.join(root, 'bin/claimboard.mjs'), 'serve', channel, '--port', String(e2eRun().ports.ferry), '--stale-after', '86400', '--db', path.join(dir, 'index.sqlite')],
  { stdio: 'inherit', cwd: root, env: { ...process.env, CLAIMBOARD_TEST_CLOCK_FILE: path.join(dir, 'clock') } },
);
passStop(child);
