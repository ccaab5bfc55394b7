/**
 * What both interrupt flags read (C/interrupt.rs): a worker reads interrupts only when a run
 * starts, acknowledges each with interrupt.<issuer>.<agent>.acked.json, and a kill or pause only
 * deletes its own claim. ferry has three kinds (InterruptAction): kill, pause and steer.
 */
import type { Arrived } from '../card';
import type { InterruptRecord } from '../records';
import type { OrderFacts } from './facts';
import { words } from './rule';

export interface Interrupt {
  readonly file: Arrived<InterruptRecord>;
  readonly verb: 'kill' | 'pause' | 'steer';
  readonly stops: boolean;
  /** Agents with an acknowledgement of this issuer's interrupt, sorted. */
  readonly ackedBy: readonly string[];
  /** How it is named in a card's words: `ops's steer ("Use the v2 API.")`. */
  readonly said: string;
}

export function interruptsOf(f: OrderFacts): Interrupt[] {
  return f.folder.interrupts.map((file) => {
    const it = file.record;
    const acks = f.folder.interruptAcks.filter((a) => a.record.issued_by === it.issued_by);
    const verb = it.action === 'kill' ? 'kill' : it.action === 'pause' ? 'pause' : 'steer';
    return { file, verb, stops: verb !== 'steer', ackedBy: [...new Set(acks.map((a) => a.record.agent))].sort(), said: `${it.issued_by}'s ${verb} ("${it.note}")` };
  });
}

/** A run is (or was last) going: the holder's claim states. */
export const runningState = (state: string): boolean => state === 'claimed' || state === 'stale' || state === 'changes_requested';

/**
 * Whether the files show a run of the order: the holder's unreleased claim (claimed, stale), or
 * the heartbeat of a run ferry's state does not show (run_lane: a sent-back revision being run,
 * an assignee running an order ferry reads Offered).
 */
export const runShown = (f: OrderFacts): boolean => f.state === 'claimed' || f.state === 'stale' || f.runLane !== undefined;

/**
 * Whether the acknowledgements of an interrupt can be of it, without comparing two writers'
 * clocks. ferry keeps one interrupt file per issuer and order, and one acknowledgement per issuer
 * and agent that it takes for any later interrupt of that issuer.
 *
 * - A worker's own ledger says which kind it acted on (ferry writes a line for a kill or a pause):
 *   where every acknowledging worker acted on another kind of this issuer's than the file holds now,
 *   the file was rewritten after they read it: `unseen` (`actedOn`, what they acted on).
 * - Else, with one interrupt issued (the issuer's ledger lines, or no lines to say otherwise) the
 *   acknowledgement is of it, even one that arrived here first (the sync race): `seen`.
 * - With more, an acknowledgement that arrived here before the current interrupt file is of an
 *   earlier one (`unseen`); one that arrived after cannot be told (`unknown`).
 */
export function seenOf(f: OrderFacts, i: Interrupt): { readonly seen: 'seen' | 'unseen' | 'unknown'; readonly issued: number; readonly actedOn?: string } {
  const issuer = i.file.record.issued_by;
  const issued = f.ctx.ledger?.interrupts.get(f.order.id)?.get(issuer) ?? 0;
  const acks = f.folder.interruptAcks.filter((a) => a.record.issued_by === issuer);
  const acted = f.ctx.ledger?.acted.get(f.order.id);
  const other = (agent: string) => (acted?.get(agent) ?? []).find((k) => k.startsWith(`${issuer}:`) && k !== `${issuer}:${i.verb}`);
  const actedOn = acks.length > 0 && acks.every((a) => other(a.record.agent) !== undefined) ? other(acks[0]!.record.agent) : undefined;
  if (actedOn !== undefined) return { seen: 'unseen', issued, actedOn: actedOn.slice(issuer.length + 1) };
  if (issued <= 1) return { seen: 'seen', issued };
  return { seen: acks.every((a) => a.arrivalMs < i.file.arrivalMs) ? 'unseen' : 'unknown', issued };
}

/**
 * The words of an interrupt whose acknowledgement by `agents` may be of an earlier interrupt of the
 * same issuer (seenOf): "was never seen by …" or "may not have been seen by …", with why; null
 * when the acknowledgement is of it.
 */
export function unseenWords(f: OrderFacts, i: Interrupt, agents: readonly string[]): string | null {
  const { seen, issued, actedOn } = seenOf(f, i);
  if (seen === 'seen') return null;
  const issuer = i.file.record.issued_by;
  const ferry = 'ferry keeps only the last in its file and reads one acknowledgement per issuer as having seen any of them';
  if (actedOn !== undefined) {
    return `${i.said} was never seen by ${words(agents)}: ${agents.length > 1 ? 'their ledgers say they' : 'its ledger says it'} acted on a ${actedOn} of ${issuer}'s, so the acknowledgement is of that earlier interrupt (${ferry})`;
  }
  const why = `${issuer}'s ledger has ${issued} interrupts on this order; ${ferry}`;
  return seen === 'unseen'
    ? `${i.said} was never seen by ${words(agents)}: the acknowledgement arrived here before it, so it is of an earlier interrupt (${why})`
    : `${i.said} may not have been seen by ${words(agents)} (${why})`;
}
