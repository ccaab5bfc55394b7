/**
 * The channel the actions end-to-end server serves (e2e/serve-actions-fixture.mjs): vectors
 * 06-stale-no-heartbeat, 11-give-up-ack-reopen and 15-late-result of conformance/vectors merged into one folder,
 * freshly copied when the server starts, served with `--stale-after 2` so a claim with no
 * heartbeat is stale within seconds. At start: ichabod-1650 stale (fang, no heartbeat); g1
 * gave up (fang); g2 closed (wisp's give-up acknowledged); g3 claimed by nebra, stale 2 s later;
 * t1 open with a late result (fang's, after ops re-queued fang).
 * Operator: ops (roster role `operator`); keys in conformance/vectors/keys.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Keep in step with e2e/serve-actions-fixture.mjs. */
export const ACTIONS_DIR = path.join(os.tmpdir(), `claimboard-e2e-actions-${createHash('sha256').update(ROOT).digest('hex').slice(0, 10)}`);
export const ACTIONS_CHANNEL = path.join(ACTIONS_DIR, 'channel');
export const ACTIONS_PORT = 3124;
export const ACTIONS_URL = `http://127.0.0.1:${ACTIONS_PORT}`;
export const STALE_AFTER_S = 2;

export interface VectorKey {
  readonly public_key: string;
  readonly seed: string;
}
/** The vectors' keys (ops is the operator; fang, wisp, nebra are workers). */
export const KEYS = JSON.parse(fs.readFileSync(path.resolve(ROOT, 'conformance/vectors/keys.json'), 'utf8')) as Record<'ops' | 'fang' | 'wisp' | 'nebra', VectorKey>;
