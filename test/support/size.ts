/**
 * How big the slow tests run. `npm test` runs each at the smallest size that still proves its
 * claim; CLAIMBOARD_TEST_FULL=1 (`npm run test:full`) runs the full sizes, for a person checking
 * a change to the indexer or the server at scale.
 */
export const FULL_SIZE = process.env.CLAIMBOARD_TEST_FULL === '1';

/** `quick` in `npm test`, `full` under CLAIMBOARD_TEST_FULL=1. */
export function sized<T>(quick: T, full: T): T {
  return FULL_SIZE ? full : quick;
}
