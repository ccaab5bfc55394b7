/**
 * The channel the ferry end-to-end server serves (e2e/serve-ferry-fixture.mjs): a fresh copy of
 * conformance/ferry/alpha (written by the real ferry) with one operator of our own, `cbops`, whose
 * key the tests hold, added to its roster. At start: a-wisp-offered is addressed to wisp, which a
 * `ferry channel retire` released (Needs attention, retired_holder); a-killed and a-paused were
 * stopped and acknowledged, but ferry offers them to fang again (stop_not_holding).
 */
import path from 'node:path';
import { e2eRun, fixtureDir } from './run.mjs';

/** Keep in step with e2e/serve-ferry-fixture.mjs. */
export const FERRY_E2E_DIR = fixtureDir('ferry');
export const FERRY_E2E_CHANNEL = path.join(FERRY_E2E_DIR, 'channel');
export const FERRY_E2E_PORT = e2eRun().ports.ferry;
export const FERRY_E2E_URL = `http://127.0.0.1:${FERRY_E2E_PORT}`;
/** cbops's seed (hex); its public key is in the copy's agents/cbops.json. Keep in step with the server script. */
export const CBOPS_SEED = 'c0'.repeat(32);
