/**
 * The words of a card (LEDGER.md §7, docs/channel-format.md): the order of its flags, the reasons
 * of `missing_dependency` and `bad_record`, and the line saying where ferry reads it otherwise.
 * Pure; split from derive.ts, which decides the flags.
 */
import type { Alert, AttentionFlag, FerryState, FolderProblem, OrderFolder, OrderState } from './derive';

/** Flags in the order cards list them (the order of LEDGER.md §7, ferry's interrupt flags last). */
export const FLAG_ORDER: readonly AttentionFlag[] = [
  'gave_up',
  'double_run',
  'late_result',
  'retired_holder',
  'released_assignee',
  'bad_record',
  'sync_conflict',
  'missing_dependency',
  'interrupt_unacknowledged',
  'stop_not_holding',
  'no_worker_left',
  'dead_run_held',
];
export const byFlagOrder = (a: Alert, b: Alert) => FLAG_ORDER.indexOf(a.flag) - FLAG_ORDER.indexOf(b.flag);

export const missingText = (missing: readonly string[]): string =>
  `depends on ${words(missing)}, not ${missing.length > 1 ? 'orders' : 'an order'} of this channel: ferry never offers it`;

export const words = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

const FERRY_WORD: Record<FerryState, string> = {
  open: 'Open',
  offered: 'Offered',
  claimed: 'Claimed',
  awaiting_review: 'AwaitingReview',
  changes_requested: 'ChangesRequested',
  accepted: 'Accepted',
  done: 'Done',
};

/** The order page's line where claimboard's state differs from ferry's (only extension records make it differ). */
export function ferryDifference(ferry: FerryState, state: OrderState, holder: string | null): string {
  const f = `ferry reads this as ${FERRY_WORD[ferry]}${holder ? ` (${holder})` : ''}`;
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

/** The words of `bad_record`: what the bad files mean for the fleet, the first two of them. */
export function badRecordText(folder: OrderFolder, holder: string | null, state: OrderState): string {
  const lines: string[] = [];
  // What decides the order first: the order itself, then results, then the rest (by path).
  const rank = (p: FolderProblem) => (p.kind === 'order' ? 0 : p.kind === 'result' ? 1 : 2);
  for (const p of [...folder.problems].sort((a, b) => rank(a) - rank(b))) {
    if (p.problem === 'sync_conflict') continue;
    const name = p.path.slice(p.path.lastIndexOf('/') + 1);
    const sig = p.problem === 'unsigned' || p.problem === 'unknown_signer' || p.problem === 'invalid_signature';
    const why =
      p.problem === 'unsigned' ? 'is unsigned' : p.problem === 'unknown_signer' ? `is signed by ${p.signer ?? 'a name'} with a key the roster does not hold` : 'has a signature that does not verify';
    if (p.kind === 'order' && sig) {
      lines.push(`order.json ${why}: ferry workers refuse to run it, so it waits for ever; issue it again, signed`);
    } else if (p.kind === 'result' && sig) {
      lines.push(
        `${name} ${why}: ferry drops it${state === 'claimed' || state === 'stale' ? `, so the order stays claimed by ${holder} for ever` : ''}`,
      );
    } else if (p.ferry_reads && p.problem === 'unauthorized_signer') {
      lines.push(`${name}: ${p.detail}`);
    } else if (p.ferry_reads) {
      lines.push(`${name} is misplaced (${p.detail}); ferry reads it by its content all the same`);
    } else if (sig) {
      lines.push(`${name} ${why}: ferry ignores it`);
    } else {
      lines.push(`${name}: ${p.detail}`);
    }
  }
  const shown = lines.slice(0, 2);
  if (lines.length > 2) shown.push(`and ${lines.length - 2} more (see Files)`);
  return shown.join('; ') || 'a file in its folder is bad: see Files';
}

