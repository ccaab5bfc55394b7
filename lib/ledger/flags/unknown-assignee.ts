import type { FlagRule } from './rule';

/**
 * Unknown assignee: an addressed order ferry reads Offered whose assignee no roster knows (no
 * roster entry or reservation, no fleet-roster entry, not the master or a grant), not retired and
 * not superseded. A reserved name that has not come online yet is known, and fine.
 */
export const unknownAssignee: FlagRule = {
  flag: 'unknown_assignee',
  label: 'addressed to nobody',
  glossary: 'the order is addressed to a name no roster knows (a typo?): ferry offers it to that name only, so it waits for ever',
  rule: 'raised while an addressed order reads Offered, is not superseded, and its assignee is in no roster entry, reservation, fleet roster, master declaration or grant',
  ferry: 'C/lib.rs `holder` (an addressed order\'s holder is its assignee), `work_for` (offers it to the assignee only)',
  clocks: 'none',
  raise: (f) => {
    const a = f.assignee;
    if (a === null || f.state !== 'offered' || f.retiredHolder || f.supersede || !f.ctx.known || f.ctx.known.has(a)) return null;
    return { text: `offered to ${a}, whom no roster knows: ferry offers it to ${a} only and to nobody else, so it waits for ever; supersede it with a new order` };
  },
};
