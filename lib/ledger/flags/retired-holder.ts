import type { FlagRule } from './rule';

/**
 * Retired holder: the unfinished order's holder is a retired name (a retirement record, a
 * `ferry channel retire` release of the assignee in this folder, or such a release anywhere, as
 * a file or as a line of the retirer's ledger, while its run is not live here), and no supersede
 * moved the work.
 */
export const retiredHolder: FlagRule = {
  flag: 'retired_holder',
  label: 'retired holder',
  glossary: 'the order is held by (or addressed to) a retired name: nobody will finish it',
  rule: 'raised while the order is unfinished, not superseded, and its holder is retired: by a retirement record, by a retire release of the assignee in its folder, or by a retire release (a file, or a retirer\'s ledger line) anywhere while no heartbeat of it is fresh here',
  ferry: 'C/lib.rs `holder` (the assignee holds an addressed order for ever), O/agent.rs retire (releases; ferry keeps no retired state)',
  clocks: 'freshness of the holder\'s heartbeat: its arrival on this machine against this machine\'s clock',
  raise: (f) => {
    if (!f.retiredHolder || f.holder === null || !f.unfinished || f.supersede) return null;
    const h = f.holder;
    // A retire whose release file here a later retire by the same machine overwrote: only the retirer's ledger says it.
    const forgotten = f.released.has(h) ? undefined : f.ctx.ledger?.retires.get(f.order.id)?.find((r) => r.agent === h);
    const how = f.ctx.retired.has(h)
      ? 'retired'
      : f.retiredHere
        ? `retired by ${f.retiredHere.record.releaser}`
        : forgotten
          ? `retired by ${forgotten.by} (its ledger says it released ${h}'s claim here, but a later retire overwrote that release file, so ferry reads the claim as held)`
          : 'released elsewhere by ferry channel retire';
    return {
      text:
        h === f.assignee
          ? `addressed to ${f.holder}, ${how}: ferry offers it to ${f.holder} for ever and to nobody else; supersede it with a new order`
          : `held by ${f.holder}, ${how}: nobody will finish it; re-queue it`,
    };
  },
};
