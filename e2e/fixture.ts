/**
 * The channel the end-to-end server serves: vectors 10, 11 and 20 of conformance/vectors merged
 * into one folder (their order ids do not collide and they share the roster), freshly copied
 * when the server starts, so every file arrives then. Expected lanes, from each vector's
 * expect.json: attention g1, c; running rc, g3; review ra; queue a, b, d; done rb, g2, e.
 */
import path from 'node:path';
import { e2eRun, fixtureDir } from './run.mjs';

/** Where the fixture lives: this run's folder (e2e/run.mjs), so the server and the tests agree. */
export const FIXTURE_DIR = fixtureDir('main');
export const FIXTURE_CHANNEL = path.join(FIXTURE_DIR, 'channel');
export const FIXTURE_VECTORS = ['10-review-states', '11-give-up-ack-reopen', '20-dependencies'];
export const E2E_PORT = e2eRun().ports.main;
export const E2E_URL = `http://127.0.0.1:${E2E_PORT}`;

export const EXPECTED_LANES: Record<string, string[]> = {
  attention: ['c', 'g1'],
  stale: [],
  running: ['g3', 'rc'],
  review: ['ra'],
  queue: ['a', 'b', 'd'],
  done: ['e', 'g2', 'rb'],
};
