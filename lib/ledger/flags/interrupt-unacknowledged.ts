import { interruptsOf, runningState } from './interrupts';
import type { FlagRule } from './rule';

/**
 * Interrupt not seen: an interrupt on an unfinished order that a run is going on, which the
 * holder has not acknowledged though it arrived here more than `stale_after` ago.
 */
export const interruptUnacknowledged: FlagRule = {
  flag: 'interrupt_unacknowledged',
  label: 'interrupt not seen',
  glossary: 'an interrupt the running holder has not acknowledged: ferry reads interrupts only when a run starts, so the run going now continues',
  rule: 'raised while a run of the unfinished order is going, and an interrupt that is not a kill or pause already acknowledged has no acknowledgement by the holder and arrived here more than stale_after ago',
  ferry: 'C/interrupt.rs (read at the start of a run, acknowledged per issuer and agent)',
  clocks: 'the interrupt\'s arrival on this machine against this machine\'s clock',
  fallback: () => 'an interrupt was not acknowledged by the holder',
  raise: (f) => {
    if (!f.unfinished || f.holder === null || !runningState(f.state)) return null;
    let text: string | undefined;
    const notes: string[] = [];
    for (const i of interruptsOf(f)) {
      if ((i.stops && i.ackedBy.length > 0) || i.ackedBy.includes(f.holder)) continue;
      const it = i.file.record;
      if (f.ctx.nowMs - i.file.arrivalMs > f.ctx.staleAfterMs) {
        text ??= `${it.issued_by}'s ${i.verb} ("${it.note}") arrived ${Math.round((f.ctx.nowMs - i.file.arrivalMs) / 60000)} min ago and ${f.holder} has not acknowledged it: ferry reads interrupts only when a run starts, so the run going now continues`;
      } else {
        notes.push(`${it.issued_by}'s ${i.verb} is not acknowledged by ${f.holder} yet (ferry reads interrupts when a run starts)`);
      }
    }
    return { ...(text !== undefined ? { text } : {}), notes };
  },
};
