/**
 * The operator-actions fixture: vectors 06-stale-no-heartbeat, 11-give-up-ack-reopen and
 * 15-late-result of conformance/vectors merged into one folder, freshly copied when the spec
 * file's server starts, served with `--stale-after 3600` on the test clock (e2e/test-clock.ts):
 * nothing turns stale while a test runs unless it lets time pass (`letClaimsGoStale`). At start:
 * ichabod-1650 claimed by fang with no heartbeat (stale once time passes); g1 gave up (fang); g2
 * closed (wisp's give-up acknowledged); g3 claimed by nebra; t1 open with a late result (fang's,
 * after ops re-queued fang). Operator: ops (roster role `operator`); keys in
 * conformance/vectors/keys.json. The server also gets CLAIMBOARD_DEMO_OPERATOR_KEY (a copy of
 * ops's seed, outside the channel), so the page's "Use the demo operator key" button can be
 * tested as on the demo.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fixtureServer, type FixtureServer } from './fixture-server';
import { nameChannel } from '../test/support/channel';

const ROOT = path.resolve(import.meta.dirname, '..');
export const STALE_AFTER_S = 3600;

export interface VectorKey {
  readonly public_key: string;
  readonly seed: string;
}
/** The vectors' keys (ops is the operator; fang, wisp, nebra are workers). */
export const KEYS = JSON.parse(fs.readFileSync(path.resolve(ROOT, 'conformance/vectors/keys.json'), 'utf8')) as Record<'ops' | 'fang' | 'wisp' | 'nebra', VectorKey>;

/** A spec file's server on the actions fixture (call serveThisFile(server) at the top of the file). */
export const actionsServer = (): FixtureServer =>
  fixtureServer({
    prefix: 'cb-e2e-actions-',
    vectors: ['06-stale-no-heartbeat', '11-give-up-ack-reopen', '15-late-result'],
    args: ['--stale-after', String(STALE_AFTER_S)],
    prepare: (channel, dir) => {
      fs.writeFileSync(path.join(dir, 'ops.key'), `${KEYS.ops.seed}\n`, { mode: 0o600 });
      // A channel that names itself already (lib/ledger/channel-binding.ts): no act of a test is its first.
      nameChannel(channel, 'e2e-actions-channel');
    },
    env: (dir) => ({ CLAIMBOARD_DEMO_OPERATOR_KEY: path.join(dir, 'ops.key') }),
  });

/** Lets the stale threshold and a second pass on the server's clock: every claim and heartbeat on the board so far is stale after it. */
export async function letClaimsGoStale(server: FixtureServer): Promise<void> {
  await server.letTimePass((STALE_AFTER_S + 1) * 1000);
}
