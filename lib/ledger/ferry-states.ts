/**
 * The one table of ferry's states and claimboard's (ferry-states.json, which
 * scripts/check-ferry.mjs reads too): the word `ferry channel tasks` prints, the state a card
 * keeps as `ferry.state`, and the claimboard states that agree with it.
 */
import table from './ferry-states.json';
import type { OrderState } from './card';

/** ferry's own states (C/lib.rs `TaskState`), its Stale folded into Claimed (ferry decides it by the writer's clock). */
export type FerryState = 'open' | 'offered' | 'claimed' | 'awaiting_review' | 'changes_requested' | 'accepted' | 'done';

interface Row {
  readonly state: FerryState;
  readonly claimboard: readonly OrderState[];
}

/** Each word ferry prints, with its state and the claimboard states that read the same. */
export const FERRY_STATES: Readonly<Record<string, Row>> = Object.fromEntries(
  Object.entries(table).filter(([word]) => word !== '_') as [string, Row][],
);

/** The word ferry prints for a state (the first word of the table with it: Claimed, not Stale). */
export const FERRY_STATE_LABEL: Record<FerryState, string> = Object.fromEntries(
  Object.entries(FERRY_STATES)
    .reverse()
    .map(([word, row]) => [row.state, word]),
) as Record<FerryState, string>;

/** claimboard states that read the same as ferry's printed word (empty for a word ferry does not print). */
export const claimboardStatesOf = (word: string): readonly OrderState[] => (Object.hasOwn(FERRY_STATES, word) ? FERRY_STATES[word]!.claimboard : []);

/** Whether a ferry state and a claimboard state are the same up to the documented differences (Stale by arrival; blocked is Open). */
export function agreesWithFerry(ferry: FerryState, state: OrderState): boolean {
  return claimboardStatesOf(FERRY_STATE_LABEL[ferry]).includes(state);
}
