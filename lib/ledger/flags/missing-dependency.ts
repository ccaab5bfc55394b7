import { type FlagRule, words } from './rule';

/** The card line of `missing_dependency` (derive.ts withChannelFacts says it again when the channel changes). */
export const missingText = (missing: readonly string[]): string =>
  `depends on ${words(missing)}, not ${missing.length > 1 ? 'orders' : 'an order'} of this channel: ferry never offers it`;

/** Missing dependency: a `depends_on` id names no order of this channel. */
export const missingDependency: FlagRule = {
  flag: 'missing_dependency',
  label: 'missing dependency',
  glossary: 'the order depends on an id that is not an order of this channel: ferry never offers it',
  rule: 'raised while a depends_on id of the order names no order of the channel',
  ferry: 'C/lib.rs `work_for` (an order is offered only when each dependency is Done or Accepted)',
  clocks: 'none',
  raise: (f) => (f.missing.length > 0 ? { text: missingText(f.missing) } : null),
};
