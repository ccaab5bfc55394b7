import { type FlagRule, words } from './rule';

/**
 * No worker left: an open, unheld order every worker of the roster has released itself from,
 * with no supersede.
 */
export const noWorkerLeft: FlagRule = {
  flag: 'no_worker_left',
  label: 'no worker left',
  glossary: 'every worker released its own claim on the order: ferry lets none of them claim it again',
  rule: 'raised while an open order has no holder, is not superseded, and every worker of the roster has released its own claim on it',
  ferry: 'C/lib.rs `released` (a released claim never counts again), `claim_order` (never rewrites a claim), `work_for`',
  clocks: 'none',
  raise: (f) => {
    const workers = f.ctx.workers;
    if (f.holder !== null || !workers || workers.size === 0 || f.state !== 'open' || f.supersede) return null;
    const selfReleased = new Set(f.folder.releases.filter((r) => r.record.releaser === r.record.released).map((r) => r.record.released));
    if (![...workers].every((w) => selfReleased.has(w))) return null;
    return {
      text: `every worker of the roster (${words([...workers].sort())}) released its own claim on it: ferry never lets an agent claim an order again once its claim is released, so no worker will take it; supersede it with a new order`,
    };
  },
};
