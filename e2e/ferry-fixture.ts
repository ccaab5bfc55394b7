/**
 * The ferry fixture: a fresh copy of conformance/ferry/alpha (written by the real ferry) with one
 * operator of our own, `cbops`, whose key the tests hold, added to its roster; served with a
 * stale threshold far beyond any run, on the test clock. At start: a-wisp-offered is addressed to
 * wisp, which a `ferry channel retire` released (Needs attention, retired_holder); a-killed and
 * a-paused were stopped and acknowledged, but ferry offers them to fang again (stop_not_holding).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureServer, type FixtureServer } from './fixture-server';
import { ROOT } from './own-server';
import { nameChannel } from '../test/support/channel';

/** cbops's seed (hex); its public key goes into the copy's agents/cbops.json. */
export const CBOPS_SEED = 'c0'.repeat(32);

/** cbops's public key (hex): an Ed25519 key from CBOPS_SEED (node:crypto, PKCS#8 prefix + seed). */
function cbopsPublicKey(): string {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(CBOPS_SEED, 'hex')]);
  return createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
}

/** Every file and folder of the copy writable (the committed case keeps ferry's modes). */
function writable(p: string): void {
  const dir = fs.statSync(p).isDirectory();
  fs.chmodSync(p, dir ? 0o755 : 0o644);
  if (dir) for (const e of fs.readdirSync(p)) writable(path.join(p, e));
}

/** A spec file's server on the ferry fixture (call serveThisFile(server) at the top of the file). */
export const ferryServer = (): FixtureServer =>
  fixtureServer({
    prefix: 'cb-e2e-ferry-',
    vectors: [],
    args: ['--stale-after', '86400'],
    prepare: (channel) => {
      fs.cpSync(path.join(ROOT, 'conformance/ferry/alpha/channel'), channel, { recursive: true });
      writable(channel);
      fs.writeFileSync(path.join(channel, 'agents', 'cbops.json'), JSON.stringify({ name: 'cbops', role: 'operator', capabilities: [], public_key: cbopsPublicKey() }, null, 2));
      // A channel that names itself already (lib/ledger/channel-binding.ts): no act of a test is its first.
      nameChannel(channel, 'e2e-ferry-channel');
    },
  });
