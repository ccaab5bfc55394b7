/**
 * The channel the actions end-to-end server serves (e2e/serve-actions-fixture.mjs): vectors
 * 06-stale-no-heartbeat, 11-give-up-ack-reopen and 15-late-result of conformance/vectors merged into one folder,
 * freshly copied when the server starts, served with `--stale-after 3600` on the test clock
 * (e2e/test-clock.ts): nothing turns stale while a test runs unless it lets time pass
 * (`letTimePass`). At start: ichabod-1650 claimed by fang with no heartbeat (stale once time
 * passes); g1 gave up (fang); g2 closed (wisp's give-up acknowledged); g3 claimed by nebra;
 * t1 open with a late result (fang's, after ops re-queued fang).
 * Operator: ops (roster role `operator`); keys in conformance/vectors/keys.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { e2eRun, fixtureDir } from './run.mjs';
import { letTimePass } from './test-clock';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Keep in step with e2e/serve-actions-fixture.mjs. */
export const ACTIONS_DIR = fixtureDir('actions');
export const ACTIONS_CHANNEL = path.join(ACTIONS_DIR, 'channel');
export const ACTIONS_PORT = e2eRun().ports.actions;
export const ACTIONS_URL = `http://127.0.0.1:${ACTIONS_PORT}`;
export const STALE_AFTER_S = 3600;

/** Lets the stale threshold and a second pass on the server's clock: every claim and heartbeat on the board so far is stale after it. */
export async function letClaimsGoStale(): Promise<void> {
  await letTimePass({ url: ACTIONS_URL, file: path.join(ACTIONS_DIR, 'clock'), channel: ACTIONS_CHANNEL }, (STALE_AFTER_S + 1) * 1000);
}

export interface VectorKey {
  readonly public_key: string;
  readonly seed: string;
}
/** The vectors' keys (ops is the operator; fang, wisp, nebra are workers). */
export const KEYS = JSON.parse(fs.readFileSync(path.resolve(ROOT, 'conformance/vectors/keys.json'), 'utf8')) as Record<'ops' | 'fang' | 'wisp' | 'nebra', VectorKey>;
