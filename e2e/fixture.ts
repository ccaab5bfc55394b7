/**
 * The channel the end-to-end server serves: vectors 10, 11 and 20 of conformance/vectors merged
 * into one folder (their order ids do not collide and they share the roster), freshly copied
 * when the server starts, so every file arrives then. Expected lanes, from each vector's
 * expect.json: attention g1, c; running rc, g3; review ra; queue a, b, d; done rb, g2, e.
 */
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';

/** Where the fixture lives: a fixed place per checkout, so the server and the tests agree. */
export const FIXTURE_DIR = path.join(os.tmpdir(), `claimboard-e2e-${createHash('sha256').update(path.resolve(import.meta.dirname, '..')).digest('hex').slice(0, 10)}`);
export const FIXTURE_CHANNEL = path.join(FIXTURE_DIR, 'channel');
export const FIXTURE_VECTORS = ['10-review-states', '11-give-up-ack-reopen', '20-dependencies'];
export const E2E_PORT = 3123;

export const EXPECTED_LANES: Record<string, string[]> = {
  attention: ['c', 'g1'],
  stale: [],
  running: ['g3', 'rc'],
  review: ['ra'],
  queue: ['a', 'b', 'd'],
  done: ['e', 'g2', 'rb'],
};
