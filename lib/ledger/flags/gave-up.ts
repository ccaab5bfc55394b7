import type { FlagRule } from './rule';

/**
 * Gave up: the holder wrote a signed give-up and no operator has acknowledged or reopened it. A
 * claimboard record ferry does not read (ferry still reads the order as the holder's claim).
 */
export const gaveUp: FlagRule = {
  flag: 'gave_up',
  label: 'gave up',
  glossary: 'the holder wrote a give-up: the work will not be done unless a person re-queues it or closes it',
  rule: 'raised while the holder has a give-up that no operator has acknowledged (closed) or reopened',
  ferry: 'none: a claimboard record; ferry still reads the holder\'s claim (C/lib.rs `holder`)',
  clocks: 'none',
  raise: (f) => (f.state === 'gave_up' ? { text: `${f.holder ?? 'the holder'} gave up: ${f.reason?.trim() || 'no reason given'}; acknowledge it or re-queue it` } : null),
};
