import 'server-only';
/**
 * What a retirement would write and do, as the act itself reads it (applyAction's retire): the
 * folders of the orders the index names as the agent's (its claims and the orders addressed to
 * it), read fresh from disk and put through the act's own rule (retireSteps), so the agent page
 * lists exactly the releases the act writes, and `claimboard retire` prints.
 */
import { claimedOrdersOf } from '../index/read/queries';
import { retireSteps, type RetireStep } from '../ledger/actions';
import { deriveSubset } from './apply';
import { serverContext, type ActChannel } from './server';

/** The agent's retirement plan with each order's consequence in channel `ch`, or null when the folder cannot be read. */
export function retirePreview(ch: ActChannel, agent: string, nowMs: number): RetireStep[] | null {
  try {
    const ctx = serverContext(ch, nowMs);
    return retireSteps(deriveSubset(ctx, claimedOrdersOf(ch.db(), agent)), agent);
  } catch {
    return null;
  }
}
