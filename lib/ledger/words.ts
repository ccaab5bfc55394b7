/**
 * Words of a card that belong to no one flag: names as a list, and the line saying where ferry
 * reads the order otherwise. The flags' own words are in flags/, beside their rules.
 */
import type { OrderState } from './card';
import { FERRY_STATE_LABEL, type FerryState } from './ferry-states';

export { words } from './flags/rule';

/** The order page's line where claimboard's state differs from ferry's (only extension records make it differ). */
export function ferryDifference(ferry: FerryState, state: OrderState, holder: string | null): string {
  const f = `ferry reads this as ${FERRY_STATE_LABEL[ferry]}${holder ? ` (${holder})` : ''}`;
  switch (state) {
    case 'gave_up':
      return `${f}; claimboard shows gave up because ${holder} wrote a signed give-up, a claimboard record ferry does not read`;
    case 'closed':
      return `${f}; claimboard shows closed because an operator acknowledged ${holder}'s give-up (a claimboard record ferry does not read)`;
    case 'open':
    case 'blocked':
    case 'offered':
    case 'claimed':
    case 'stale':
    case 'changes_requested':
    case 'awaiting_review':
    case 'accepted':
    case 'done':
      return `${f}; claimboard shows ${state.replace('_', ' ')} because an operator reopened it (a claimboard record ferry does not read: ferry has no reopen)`;
  }
}
