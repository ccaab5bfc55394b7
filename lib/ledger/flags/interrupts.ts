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
