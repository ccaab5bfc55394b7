/**
 * The rulebook's version, which an index stores beside the cards it derived (lib/index meta
 * `rulebook`): an index whose cards another rulebook derived derives every order again when it
 * opens, so that no lane, flag or reason of an older rulebook outlives an upgrade.
 *
 * Derived from the rulebook itself: every flag in card order with its words, the states, the
 * lanes and ferry's states table, so a change of any of them changes the version with no one
 * remembering to. What the words cannot show (a rule's code, a card's fields) is RULES_REVISION,
 * which lib/ledger/rulebook-version.test.ts makes a change of any derived card bump.
 */
import { ATTENTION_FLAGS, LANES, ORDER_STATES } from './card';
import { FERRY_STATES } from './ferry-states';
import { RULEBOOK, type FlagRule } from './flags';
import { sha256HexOfText } from './canonical';

/** Bumped whenever deriveOrder's cards change (the test pins the cards it derives to this number). */
export const RULES_REVISION = 1;

/** `<revision>.<first 16 hex digits of the SHA-256 of the rules' words>`, with the states, lanes and ferry's table. */
export function versionOf(revision: number, rules: readonly FlagRule[]): string {
  const words = JSON.stringify({
    flags: rules.map((r) => [r.flag, r.label, r.glossary, r.rule, r.ferry, r.clocks]),
    order: ATTENTION_FLAGS,
    states: ORDER_STATES,
    lanes: LANES,
    ferry: FERRY_STATES,
  });
  return `${revision}.${sha256HexOfText(words).slice(0, 16)}`;
}

/** The version of this rulebook. */
export const RULEBOOK_VERSION = versionOf(RULES_REVISION, RULEBOOK);
