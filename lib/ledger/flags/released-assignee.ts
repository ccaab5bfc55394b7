import type { FlagRule } from './rule';
import { isRetireRelease } from '../retire-release';

/**
 * Released assignee: someone other than the assignee released its claim on an addressed order
 * (not a retire), ferry reads it Offered to the assignee again, and no supersede moved the work.
 */
export const releasedAssignee: FlagRule = {
  flag: 'released_assignee',
  label: 'released assignee',
  glossary: 'an operator released the assignee\'s claim on an addressed order: ferry offers it to the same assignee again',
  rule: 'raised while an addressed order reads Offered, its assignee is not retired, no supersede moved it, and another released the assignee\'s claim for a reason other than a retire',
  ferry: 'C/lib.rs `holder` (the assignee, whatever is released), `work_for`',
  clocks: 'none',
  raise: (f) => {
    if (f.assignee === null || f.retiredHolder || f.state !== 'offered' || f.supersede) return null;
    const other = f.byOthers.find((r) => !isRetireRelease(r.record));
    if (!other) return null;
    return {
      text: `${other.record.releaser} released ${f.assignee}'s claim, but the order is addressed to ${f.assignee}: ferry keeps offering it to ${f.assignee}, whose next poll runs it again; to move it, supersede it with a new order`,
    };
  },
};
