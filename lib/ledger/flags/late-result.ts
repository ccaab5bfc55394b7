import { type FlagRule, isFinished, words } from './rule';

/**
 * Late result: an agent that does not hold the order has a result at the latest revision, not
 * reviewed or reopened; or (work done twice) the holder's result is the latest and another agent's
 * at an earlier revision was never sent back while that agent's claim is released or absent. Until
 * an operator's ack names exactly these results (Card.late_target), whatever the state.
 */
export const lateResult: FlagRule = {
  flag: 'late_result',
  label: 'late result',
  glossary: 'a result by an agent that does not hold the order: ferry counts it all the same, or hands the order out again',
  rule: 'raised while an agent other than the holder has a result at the latest revision that no review or reopen has decided on, or (work done twice) a result at an earlier revision never sent back while its claim is released or absent and the holder has the latest; until an operator\'s ack names them (late:<revision>:<agents>:<open|held:h|twice:h>)',
  ferry: 'C/lib.rs `read_task` (any valid result counts), `holder`, `released`',
  clocks: 'none: which results, claims, releases and reviews exist, never when',
  raise: (f) => {
    if (!f.lateTarget) return null;
    const who = `${f.lateResults.length > 1 ? 'results' : 'result'} by ${words(f.lateResults)}`;
    if (f.lateAck) {
      const note = f.lateAck.record.note.trim();
      const counts = f.holder === null ? 'ferry hands the order out again' : f.holderHasLatest ? `ferry counts ${f.holder}'s` : 'ferry counts it';
      return { notes: [`${f.lateAck.record.operator} acknowledged the late ${who}${note ? ` ("${note}")` : ''}: ${counts}`] };
    }
    return {
      text:
        f.holder === null
          ? `${who}, whose claim was released: ferry reads the order as open and will hand it out again; acknowledge it if that is fine`
          : f.holderHasLatest && f.lateRevision !== f.latest
            ? `${who} at revision ${f.lateRevision}, whose claim was released, and ${f.holder}'s at revision ${f.latest}: the order was handed out again and the work was done twice; ferry counts ${f.holder}'s; acknowledge it if that is fine`
            : f.holderHasLatest
            ? `${who} at revision ${f.latest} as well as ${f.holder}'s, who holds it: the work was done twice; ferry counts ${f.holder}'s; acknowledge it if that is fine`
            : `${who}, who ${f.lateResults.length > 1 ? 'do' : 'does'} not hold it (${f.holder} does): ferry counts it all the same; acknowledge it if that result stands${isFinished(f.state) ? ', or reopen it' : ''}`,
    };
  },
};
