/**
 * The shape of one attention flag in the rulebook: when it is raised (its rule, over an order's
 * facts) and its words, kept beside the rule so the board, the order page, the alerts, the CLI and
 * docs/channel-format.md all read them from one place.
 */
import type { AttentionFlag } from '../card';
import type { OrderFacts } from './facts';

/** What a rule found: the card line when the flag is raised, and notes (facts, not alarms) either way. */
export interface Finding {
  readonly text?: string;
  readonly notes?: readonly string[];
}

export interface FlagRule {
  readonly flag: AttentionFlag;
  /** The badge. */
  readonly label: string;
  /** What the flag means, one sentence (the glossary and docs/channel-format.md). */
  readonly glossary: string;
  /** The rule in a sentence, the ferry code it follows, and the clocks its comparisons use (docs/channel-format.md). */
  readonly rule: string;
  readonly ferry: string;
  readonly clocks: string;
  /** The rule; absent for a flag raised outside derivation. */
  readonly raise?: (f: OrderFacts) => Finding | null;
}

/** "a", "a and b", "a, b and c". */
export const words = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/** The states whose work is finished by a result. */
export const isFinished = (state: string): boolean => state === 'done' || state === 'accepted' || state === 'closed';
