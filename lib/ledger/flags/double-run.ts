import { type FlagRule, words } from './rule';

/**
 * Double run: while the work is unfinished, an agent other than the holder has a heartbeat that
 * arrived here within `stale_after` (and that its own writer has not released since).
 */
export const doubleRun: FlagRule = {
  flag: 'double_run',
  label: 'double run',
  glossary: 'two machines are running one order: one of the runs is wasted work',
  rule: 'raised while the order is unfinished and an agent other than the holder has a fresh heartbeat here not released by its own writer since',
  ferry: 'C/lib.rs `holder` (the earliest unreleased claim holds; the others\' runs go on regardless)',
  clocks: 'freshness: the heartbeat\'s arrival on this machine against this machine\'s clock; "released since": a release and a heartbeat of the same writer',
  raise: (f) =>
    f.otherRuns.length > 0
      ? { text: `${words(f.otherRuns)} ${f.otherRuns.length > 1 ? 'are' : 'is'} also running it (a fresh heartbeat here) while ${f.holder} holds it: two machines are doing one task` }
      : null,
};
