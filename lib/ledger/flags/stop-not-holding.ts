import { interruptsOf, runningState, runShown, unseenWords } from './interrupts';
import { type FlagRule, words } from './rule';

/**
 * Stop did not hold: a kill or pause on an order whose result is in (done, accepted, awaiting
 * review), or one acknowledged while the order is still to be done: ferry cannot withdraw an order.
 */
export const stopNotHolding: FlagRule = {
  flag: 'stop_not_holding',
  label: 'stop did not hold',
  glossary: 'a kill or pause that did not stop the work: ferry has no way to withdraw an order',
  rule: 'raised when a kill or pause is on an order with a result in (done, accepted, awaiting review), or is acknowledged while the order is unfinished; the acknowledgement is of an earlier interrupt of the same issuer when the worker\'s ledger says it acted on another kind, or when the issuer\'s ledger has more than one interrupt on the order and it arrived here before the interrupt file, and may be when it arrived after',
  ferry: 'C/interrupt.rs (a kill or pause deletes the worker\'s own claim, for that pass only), C/lib.rs `work_for`',
  clocks: 'the arrival order of an acknowledgement and an interrupt file on this machine; the issuer\'s and the worker\'s ledger lines are read, never their times',
  raise: (f) => {
    for (const i of interruptsOf(f)) {
      if (!i.stops) continue;
      const it = i.file.record;
      const { said } = i;
      if (!f.unfinished) {
        // Done all the same: the kill held for one pass only, or came while a run was going (ferry
        // reads interrupts only when a run starts). The result stands; a person should know.
        if (f.state !== 'done' && f.state !== 'accepted' && f.state !== 'awaiting_review') continue;
        if (i.ackedBy.length === 0) return { text: `${said} was never read: the run that finished had started before it (ferry reads interrupts only when a run starts), so the result stands` };
        const unseen = unseenWords(f, i, i.ackedBy);
        return {
          text: unseen
            ? `${unseen}; the work was done: the result stands`
            : `${said}: ${words(i.ackedBy)} acknowledged an interrupt of ${it.issued_by}'s (ferry reads one acknowledgement per issuer as having seen any of its interrupts), but the work was done anyway: the result stands`,
        };
      }
      if (i.ackedBy.length === 0) continue;
      // "Running" only where a file shows a run: an unreleased claim, or a heartbeat of the next revision's run.
      const next = runShown(f)
        ? `${f.holder} is running it again`
        : runningState(f.state) || f.assignee === null
          ? f.assignee === null && f.holder === null
            ? 'ferry offers it to every worker again'
            : `${f.holder ?? f.assignee} will run it again at its next start`
          : `ferry still offers it to ${f.assignee}, who will run it again at its next start`;
      const unseen = unseenWords(f, i, i.ackedBy);
      return { text: unseen ? `${unseen}: ${next}` : `${said} was acknowledged by ${words(i.ackedBy)}, but ferry has no way to withdraw an order: ${next}` };
    }
    return null;
  },
};
