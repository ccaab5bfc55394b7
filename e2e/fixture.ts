/**
 * The main fixture: vectors 10, 11 and 20 of conformance/vectors merged into one folder (their
 * order ids do not collide and they share the roster), freshly copied when the spec file's server
 * starts, so every file arrives then; served with a stale threshold far beyond any run, on the
 * test clock. Expected lanes, from each vector's expect.json: attention g1, c; running g3;
 * review ra; queue a, b, d, rc; done rb, g2, e.
 */
import { fixtureServer } from './fixture-server';

export const FIXTURE_VECTORS = ['10-review-states', '11-give-up-ack-reopen', '20-dependencies'];

/** A spec file's server on the main fixture (call serveThisFile(mainServer()) at the top of the file). */
export const mainServer = () => fixtureServer({ prefix: 'cb-e2e-main-', vectors: FIXTURE_VECTORS, args: ['--stale-after', '86400'] });

export const EXPECTED_LANES: Record<string, string[]> = {
  attention: ['c', 'g1'],
  stale: [],
  running: ['g3'],
  review: ['ra'],
  queue: ['a', 'b', 'd', 'rc'],
  done: ['e', 'g2', 'rb'],
};
