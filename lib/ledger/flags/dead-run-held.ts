import type { FlagRule } from './rule';

/**
 * Dead run held: this machine's reaper found the holder's run dead here and holds it for a
 * person's review. Raised by this machine's reaper state (lib/index/read/local-overlay.ts), never by
 * derivation.
 */
export const deadRunHeld: FlagRule = {
  flag: 'dead_run_held',
  label: 'dead run held',
  glossary: 'this machine\'s reaper found the run\'s process dead here and holds the order for a person',
  rule: 'raised by this machine\'s reaper, not by derivation, while it holds a dead local run for review',
  ferry: 'O/agent.rs `reclaim_own_orphans` (what ferry itself would do at the worker\'s next start)',
  clocks: 'none: a process check on this machine',
};
