import { interruptsOf, runShown, unseenWords } from './interrupts';
import type { FlagRule } from './rule';

/**
 * Interrupt not seen: on an unfinished order, an interrupt (a steer, or a kill or pause nobody
 * acknowledged) that the holder has not seen. Either a run is going that started before it (no
 * acknowledgement by the holder, though it arrived here more than `stale_after` ago), or the
 * holder's acknowledgement is of an earlier interrupt of the same issuer, which ferry takes for
 * this one: the holder will never see it (or, where the arrivals cannot tell, may not have).
 */
export const interruptUnacknowledged: FlagRule = {
  flag: 'interrupt_unacknowledged',
  label: 'interrupt not seen',
  glossary: 'an interrupt the holder has not seen: ferry reads interrupts only when a run starts, and takes one acknowledgement per issuer and agent for any later interrupt of that issuer',
  rule: 'raised while the order is unfinished and an interrupt that is not a kill or pause already acknowledged either has no acknowledgement by the holder while a run is going and arrived here more than stale_after ago, or has an acknowledgement by the holder that is of an earlier interrupt of the same issuer (never seen: the holder\'s ledger says it acted on another kind, or the issuer\'s ledger has more than one interrupt on the order and the acknowledgement arrived here before the interrupt file) or may be (more than one issued, the acknowledgement arrived after)',
  ferry: 'C/interrupt.rs (`pending_interrupts`: read when a run starts, skipped once interrupt.<issuer>.<agent>.acked.json exists)',
  clocks: 'the interrupt\'s arrival on this machine against this machine\'s clock; the arrival order of an acknowledgement and the interrupt file here; the issuer\'s and the worker\'s ledger lines are read, never their times',
  raise: (f) => {
    const holder = f.holder;
    if (holder === null) return null;
    let text: string | undefined;
    const notes: string[] = [];
    for (const i of interruptsOf(f)) {
      // An acknowledged kill or pause is stop_not_holding's.
      if (i.stops && i.ackedBy.length > 0) continue;
      if (i.ackedBy.includes(holder)) {
        const unseen = unseenWords(f, i, [holder]);
        if (unseen === null) continue;
        if (f.unfinished) text ??= `${unseen}: ${holder} will not see it at any later run either`;
        // The work is past it: a fact for whoever reviews the result, not an alarm.
        else if (f.latest !== null) notes.push(`${unseen}: the result was made without it`);
        continue;
      }
      if (!f.unfinished) {
        if (!i.stops && f.latest !== null) notes.push(`${i.said} was never acknowledged by ${holder}: the result was made without it (ferry reads interrupts only when a run starts)`);
        continue;
      }
      // Read when the next run starts: only a run going now carries on without it.
      if (!runShown(f)) continue;
      const it = i.file.record;
      if (f.ctx.nowMs - i.file.arrivalMs > f.ctx.staleAfterMs) {
        text ??= `${i.said} arrived ${Math.round((f.ctx.nowMs - i.file.arrivalMs) / 60000)} min ago and ${holder} has not acknowledged it: ferry reads interrupts only when a run starts, so the run going now continues`;
      } else {
        notes.push(`${it.issued_by}'s ${i.verb} is not acknowledged by ${holder} yet (ferry reads interrupts when a run starts)`);
      }
    }
    return { ...(text !== undefined ? { text } : {}), notes };
  },
};
