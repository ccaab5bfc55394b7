/**
 * Words for the names of docs/channel-format.md as the pages show them. Exhaustive maps
 * (`Record<Union, ...>`), so a new state, flag or lane fails to compile until it has words.
 */
import { ATTENTION_FLAGS } from '../ledger/card';
import type { AttentionFlag, Lane, OrderState } from '../ledger/derive';
import type { ProblemCode } from '../ledger/channel';
import { FLAGS } from '../ledger/flags';
import type { HoldEnding } from '../ledger/holds';
import { parseDecisionTarget } from '../ledger/targets';

export const LANE_TITLE: Record<Lane, string> = {
  attention: 'Needs attention',
  stale: 'Stale',
  running: 'Running',
  review: 'Review',
  queue: 'Queue',
  done: 'Done',
};

/**
 * What waits for a person, counted in words: "2 need attention", "1 stale"; a count of 0 says
 * nothing (the board's summary and each channel of a hub's line).
 */
export function waitingWords(attention: number, stale: number): string[] {
  const words: string[] = [];
  if (attention > 0) words.push(`${attention.toLocaleString('en')} ${attention === 1 ? 'needs' : 'need'} attention`);
  if (stale > 0) words.push(`${stale.toLocaleString('en')} stale`);
  return words;
}

/** What each lane holds, one line (lane header tooltip and empty lane). */
export const LANE_HINT: Record<Lane, string> = {
  attention: 'flagged orders: a human should look',
  stale: 'claimed, but the run stopped writing',
  running: 'claimed with a fresh heartbeat, or a sent-back revision being run',
  review: 'a result awaits review',
  queue: 'open, offered, blocked on dependencies, or sent back and waiting for its worker',
  done: 'done, accepted, or closed',
};

export const STATE_LABEL: Record<OrderState, string> = {
  open: 'open',
  blocked: 'blocked',
  offered: 'offered',
  claimed: 'claimed',
  stale: 'stale',
  gave_up: 'gave up',
  closed: 'closed',
  changes_requested: 'changes requested',
  awaiting_review: 'awaiting review',
  accepted: 'accepted',
  done: 'done',
};

/** ferry's own state words, as `ferry channel tasks` prints them (a card's `ferry.state`): the one table, lib/ledger/ferry-states.ts. */
export { FERRY_STATE_LABEL } from '../ledger/ferry-states';

/** How a hold ended (lib/ledger/holds.ts), as the fleet history's legend and rows say it. */
export const HOLD_ENDING_LABEL: Record<HoldEnding, string> = {
  held: 'still held',
  finished: 'finished (a result)',
  released_self: 'released by itself',
  requeued: 'released by another (re-queue)',
  retired: 'released by a retire',
  gave_up: 'gave up',
  superseded: 'superseded',
  lost: 'lost to another holder',
};

/** How a hold ended, as a badge's tone (an agent's "Held before"). */
export const HOLD_ENDING_TONE: Record<HoldEnding, Tone> = {
  held: 'active',
  finished: 'done',
  released_self: 'neutral',
  requeued: 'warn',
  retired: 'warn',
  gave_up: 'danger',
  superseded: 'review',
  lost: 'neutral',
};

/** Each flag's badge, beside its rule (lib/ledger/flags). */
export const FLAG_LABEL: Record<AttentionFlag, string> = Object.fromEntries(ATTENTION_FLAGS.map((f) => [f, FLAGS[f].label])) as Record<AttentionFlag, string>;

export const PROBLEM_LABEL: Record<ProblemCode, string> = {
  symlink: 'a symlink (not followed)',
  too_large: 'larger than 1 MiB (not parsed)',
  sync_conflict: 'a Syncthing conflict copy',
  invalid: 'unreadable, not strict JSON, or the wrong shape',
  name_mismatch: 'its name does not match its fields',
  unsigned: 'a signed kind without a signature',
  unknown_signer: 'signed by a name with no key in the roster',
  invalid_signature: 'the signature does not verify',
  unauthorized_signer: 'signed by someone who may not sign it',
  key_changed: 'the folder carries a different key than the pinned one',
  ledger_broken: 'the ledger chain breaks here',
};

/** Tone of a state badge: how urgently it reads. */
export type Tone = 'danger' | 'warn' | 'active' | 'review' | 'neutral' | 'done';

export const STATE_TONE: Record<OrderState, Tone> = {
  gave_up: 'danger',
  stale: 'warn',
  claimed: 'active',
  changes_requested: 'active',
  awaiting_review: 'review',
  open: 'neutral',
  offered: 'neutral',
  blocked: 'neutral',
  done: 'done',
  accepted: 'done',
  closed: 'done',
};

export const LANE_TONE: Record<Lane, Tone> = {
  attention: 'danger',
  stale: 'warn',
  running: 'active',
  review: 'review',
  queue: 'neutral',
  done: 'done',
};

/**
 * What an operator decision on the order's current state names (Card.target), in words: "gave up
 * (file dc2bb0a1)", "the result at revision 2", "revision 2's review", "late results by wisp at
 * revision 1". The raw target is for a tooltip; unknown forms come back as they are.
 */
export function targetWords(target: string, holder: string | null): string {
  const t = parseDecisionTarget(target);
  if (!t) return target;
  switch (t.kind) {
    case 'giveup':
      return `${holder ? `${holder}'s` : 'the'} give-up (file ${t.digest.slice(0, 8)})`;
    case 'result':
      return `the result at revision ${t.revision}`;
    case 'review':
      return `the review of revision ${t.revision}`;
    case 'late':
      return `late results by ${t.agents.join(', ')} at revision ${t.revision}`;
  }
}
