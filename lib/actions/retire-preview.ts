import 'server-only';
/**
 * What a retirement would write and do, as the act itself reads it (applyAction's retire): the
 * folders of the orders the index names as the agent's (its claims and the orders addressed to
 * it), read fresh from disk and put through the act's own rule (retireSteps), so the agent page
 * lists exactly the releases the act writes, and `claimboard retire` prints.
 */
import type { DB } from '../index/db';
import { claimedOrdersOf } from '../index/read/queries';
import { retireSteps, type RetireStep } from '../ledger/actions';
import { deriveSubset } from './apply';
import { serverContext } from './server';
import type { ServedChannel } from '../index/store/meta';

/** The agent's retirement plan with each order's consequence on the `served` channel, or null when the folder cannot be read. */
export function retirePreview(db: DB, agent: string, nowMs: number, served: ServedChannel): RetireStep[] | null {
  try {
    const ctx = serverContext(db, nowMs, served);
    return retireSteps(deriveSubset(ctx, claimedOrdersOf(db, agent)), agent);
  } catch {
    return null;
  }
}
