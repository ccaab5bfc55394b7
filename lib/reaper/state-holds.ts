import 'server-only';
/**
 * `claimboard state` as the served board reads the same folder on this machine: the reaper's
 * holds (lib/local/reaper-state.ts) raise `dead_run_held` on the cards they stand against, as
 * the index folds them in for `serve` (lib/index/writer/local-holds.ts). This machine's facts only.
 */
import type { ChannelState } from '../ledger/channel';
import { laneOf, type Alert, type Card } from '../ledger/derive';
import { holdApplies } from '../ledger/liveness';
import { byFlagOrder } from '../ledger/flags';
import { holdText } from '../index/writer/local-holds';
import type { ReaperHold } from '../local/reaper-state';

/** The state with each standing hold's flag on its card (cards without one unchanged). */
export function withReaperHolds(state: ChannelState, holds: readonly ReaperHold[]): ChannelState {
  if (holds.length === 0) return state;
  const hold = (c: Card): Card => {
    const h = holds.find((x) => holdApplies(x, c));
    if (!h || c.flags.includes('dead_run_held')) return c;
    const alerts: Alert[] = [...c.alerts, { flag: 'dead_run_held' as const, text: holdText(h) }].sort(byFlagOrder);
    const flags = alerts.map((a) => a.flag);
    return { ...c, flags, alerts, lane: laneOf(c.state, flags, c.run_lane) };
  };
  return { ...state, orders: state.orders.map(hold) };
}
