/**
 * The channel the ferry end-to-end server serves (e2e/serve-ferry-fixture.mjs): a fresh copy of
 * conformance/ferry/alpha (written by the real ferry) with one operator of our own, `cbops`, whose
 * key the tests hold, added to its roster. At start: a-wisp-offered is addressed to wisp, which a
 * `ferry channel retire` released (Needs attention, retired_holder); a-killed and a-paused were
 * stopped and acknowledged, but ferry offers them to fang again (stop_not_holding).
 */
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Keep in step with e2e/serve-ferry-fixture.mjs. */
export const FERRY_E2E_DIR = path.join(os.tmpdir(), `claimboard-e2e-ferry-${createHash('sha256').update(ROOT).digest('hex').slice(0, 10)}`);
export const FERRY_E2E_CHANNEL = path.join(FERRY_E2E_DIR, 'channel');
export const FERRY_E2E_PORT = 3125;
export const FERRY_E2E_URL = `http://127.0.0.1:${FERRY_E2E_PORT}`;
/** cbops's seed (hex); its public key is in the copy's agents/cbops.json. Keep in step with the server script. */
export const CBOPS_SEED = 'c0'.repeat(32);
