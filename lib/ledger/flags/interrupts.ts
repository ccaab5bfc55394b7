/**
 * What both interrupt flags read (C/interrupt.rs): a worker reads interrupts only when a run
 * starts, acknowledges each with interrupt.<issuer>.<agent>.acked.json, and a kill or pause only
 * deletes its own claim.
 */
import type { Arrived } from '../card';
import type { InterruptRecord } from '../records';
import type { OrderFacts } from './facts';

export interface Interrupt {
  readonly file: Arrived<InterruptRecord>;
  readonly verb: 'kill' | 'pause' | 'steer';
  readonly stops: boolean;
  /** Agents with an acknowledgement of this issuer's interrupt, sorted. */
  readonly ackedBy: readonly string[];
}

export function interruptsOf(f: OrderFacts): Interrupt[] {
  return f.folder.interrupts.map((file) => {
    const it = file.record;
    const acks = f.folder.interruptAcks.filter((a) => a.record.issued_by === it.issued_by);
    const verb = it.action === 'kill' ? 'kill' : it.action === 'pause' ? 'pause' : 'steer';
    return { file, verb, stops: verb !== 'steer', ackedBy: [...new Set(acks.map((a) => a.record.agent))].sort() };
  });
}

/** A run is (or was last) going: the holder's claim states. */
export const runningState = (state: string): boolean => state === 'claimed' || state === 'stale' || state === 'changes_requested';

/**
 * Whether the acknowledgements of an interrupt can be of it, without comparing two writers'
 * clocks. ferry keeps one interrupt file per issuer and order, and one acknowledgement per issuer
 * and agent that it takes for any later interrupt of that issuer. With one interrupt issued (the
 * issuer's ledger lines, or no lines to say otherwise) the acknowledgement is of it, even one that
 * arrived here first (the sync race). With more, an acknowledgement that arrived here before the
 * current interrupt file is of an earlier one (`unseen`); one that arrived after cannot be told (`unknown`).
 */
export function seenOf(f: OrderFacts, i: Interrupt): { readonly seen: 'seen' | 'unseen' | 'unknown'; readonly issued: number } {
  const issuer = i.file.record.issued_by;
  const issued = f.ctx.ledger?.interrupts.get(f.order.id)?.get(issuer) ?? 0;
  if (issued <= 1) return { seen: 'seen', issued };
  const acks = f.folder.interruptAcks.filter((a) => a.record.issued_by === issuer);
  return { seen: acks.every((a) => a.arrivalMs < i.file.arrivalMs) ? 'unseen' : 'unknown', issued };
}
