import { interruptsOf, runningState } from './interrupts';
import { type FlagRule, words } from './rule';

/**
 * Stop did not hold: a kill or pause on an order whose result is in (done, accepted, awaiting
 * review), or one acknowledged while the order is still to be done: ferry cannot withdraw an order.
 */
export const stopNotHolding: FlagRule = {
  flag: 'stop_not_holding',
  label: 'stop did not hold',
  glossary: 'a kill or pause that did not stop the work: ferry has no way to withdraw an order',
  rule: 'raised when a kill or pause is on an order with a result in (done, accepted, awaiting review), or is acknowledged while the order is unfinished',
  ferry: 'C/interrupt.rs (a kill or pause deletes the worker\'s own claim, for that pass only), C/lib.rs `work_for`',
  clocks: 'none',
  fallback: () => 'a kill or pause was acknowledged, but ferry will run it again',
  raise: (f) => {
    for (const i of interruptsOf(f)) {
      if (!i.stops) continue;
      const it = i.file.record;
      const said = `${it.issued_by}'s ${i.verb} ("${it.note}")`;
      if (!f.unfinished) {
        // Done all the same: the kill held for one pass only, or came while a run was going (ferry
        // reads interrupts only when a run starts). The result stands; a person should know.
        if (f.state !== 'done' && f.state !== 'accepted' && f.state !== 'awaiting_review') continue;
        return {
          text:
            i.ackedBy.length > 0
              ? `${said} was acknowledged by ${words(i.ackedBy)}, but the work was done anyway (ferry ran it again on a later pass): the result stands`
              : `${said} was never read: the run that finished had started before it (ferry reads interrupts only when a run starts), so the result stands`,
        };
      }
      if (i.ackedBy.length === 0) continue;
      const next = runningState(f.state)
        ? `${f.holder} is running it again`
        : f.assignee !== null
          ? `ferry still offers it to ${f.assignee}, whose next poll runs it again`
          : 'ferry offers it to every worker again';
      return { text: `${said} was acknowledged by ${words(i.ackedBy)}, but ferry has no way to withdraw an order: ${next}` };
    }
    return null;
  },
};
