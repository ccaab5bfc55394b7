/**
 * The numbers beside the fleet history: per agent and fleet-wide, over the holds of a window
 * (lib/ledger/holds.ts). Every instant and duration is on this machine's arrival clock; a writer's
 * own timestamp never enters a number. Pure.
 */
import type { HoldEnding, HoldRow, Silence } from './holds';

/** A window of the history: [from_ms, to_ms), this machine's clock (lib/query/window.ts picks it). */
export interface HistoryWindow {
  readonly from_ms: number;
  readonly to_ms: number;
}

/** One agent's holds in a window. */
export interface AgentNumbers {
  readonly agent: string;
  /** Orders it held at some moment of the window. */
  readonly orders: number;
  /** Holds of it that ended in the window, by how (`held`: still held at the window's end). */
  readonly endings: Readonly<Record<HoldEnding, number>>;
  /** How long it held orders within the window, summed over its holds, ms. */
  readonly held_ms: number;
  /** How long those holds were silent within the window (their silences), ms. */
  readonly silent_ms: number;
}

/** What the fleet's stale claims came to. */
export interface StaleNumbers {
  /** Holds that turned stale in the window: a silence reached stale_after. */
  readonly went_stale: number;
  /** Of those, ended by another's act after turning stale: a re-queue, a retire or a supersede. */
  readonly acted: number;
  /** ...whose run came back by itself (a silence the index saw end with a heartbeat). */
  readonly recovered: number;
  /** ...ended by the agent itself (its own release, result or give-up). */
  readonly ended_by_agent: number;
  /** ...still held and silent now. */
  readonly waiting: number;
  /** From turning stale to the act, ms: the median and the longest of `acted`; null when none. */
  readonly until_act_p50_ms: number | null;
  readonly until_act_max_ms: number | null;
  /** The longest of `waiting` so far, ms, or null. */
  readonly longest_wait_ms: number | null;
}

/** Fleet-wide numbers of a window. */
export interface FleetNumbers {
  /** Holds overlapping the window. */
  readonly holds: number;
  readonly stale: StaleNumbers;
  /** Orders with results by more than one agent among the window's holds: work done twice. */
  readonly twice: { readonly orders: number; readonly order_ids: readonly string[] };
}

/** What the numbers read of a hold. */
export type CountedHold = Pick<HoldRow, 'order_id' | 'agent' | 'claimed_ms' | 'ended_ms' | 'ending' | 'delivered' | 'silences'>;

/** How much of [from, to] lies within the window, ms. */
export function overlapMs(from: number, to: number, w: HistoryWindow): number {
  return Math.max(0, Math.min(to, w.to_ms) - Math.max(from, w.from_ms));
}

/** Whether a hold overlaps the window at all: claimed before its end, and not ended before its start (while held, it runs to now). */
export function inWindow(h: Pick<HoldRow, 'claimed_ms' | 'ended_ms'>, w: HistoryWindow): boolean {
  return h.claimed_ms < w.to_ms && (h.ended_ms === null || h.ended_ms >= w.from_ms);
}

const NO_ENDINGS: Record<HoldEnding, number> = { held: 0, finished: 0, released_self: 0, requeued: 0, retired: 0, gave_up: 0, superseded: 0, lost: 0 };

/** Per agent, the holds of `rows` in the window (each row counted where it overlaps), by agent name. */
export function agentNumbers(rows: readonly CountedHold[], w: HistoryWindow, nowMs: number): AgentNumbers[] {
  const t = new HoldTally(w, nowMs, 0);
  for (const h of rows) t.add(h);
  return t.agents();
}

/** The endings that are another's act on a hold: a re-queue, a retire, a supersede. */
const ACTED: ReadonlySet<HoldEnding> = new Set(['requeued', 'retired', 'superseded']);

/**
 * How a hold's silence that reached stale_after came out: the claim turned stale when the silence
 * had lasted `staleAfterMs` (from_ms + staleAfterMs, this machine's clock). The last silence of a
 * hold ended by another's act was ended by that act (`acted`, after `ms`); by the agent's own
 * record, `ended_by_agent`; the last silence of a hold still held, `waiting` (for `ms` so far); a
 * silence the index saw end with a heartbeat, `recovered`.
 */
export function staleOutcome(
  h: Pick<HoldRow, 'ended_ms' | 'ending' | 'silences'>,
  s: Silence,
  nowMs: number,
  staleAfterMs: number,
): { kind: 'acted' | 'recovered' | 'ended_by_agent' | 'waiting'; ms: number } {
  const staleAt = s.from_ms + staleAfterMs;
  const last = h.silences[h.silences.length - 1] === s && (h.ended_ms === null ? s.to_ms >= nowMs : s.to_ms === h.ended_ms);
  if (!last) return { kind: 'recovered', ms: s.to_ms - staleAt };
  if (h.ended_ms === null) return { kind: 'waiting', ms: nowMs - staleAt };
  return ACTED.has(h.ending) ? { kind: 'acted', ms: h.ended_ms - staleAt } : { kind: 'ended_by_agent', ms: h.ended_ms - staleAt };
}

/** The median of ascending numbers (the lower middle for an even count), or null. */
function median(sorted: readonly number[]): number | null {
  return sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
}

/** Fleet-wide numbers of the holds of `rows` in the window; a claim's turning stale counts when it falls within the window. */
export function fleetNumbers(rows: readonly CountedHold[], w: HistoryWindow, nowMs: number, staleAfterMs: number): FleetNumbers {
  const t = new HoldTally(w, nowMs, staleAfterMs);
  for (const h of rows) t.add(h);
  return t.fleet();
}

/**
 * agentNumbers and fleetNumbers together, a hold at a time: the read side adds every hold of a
 * window as it reads it, keeping no row (a 30-day window of a large fleet is many).
 */
export class HoldTally {
  private readonly by = new Map<string, { orders: Set<string>; endings: Record<HoldEnding, number>; held: number; silent: number }>();
  private holds = 0;
  private readonly counts = { went_stale: 0, acted: 0, recovered: 0, ended_by_agent: 0, waiting: 0 };
  private readonly untilAct: number[] = [];
  private longestWait: number | null = null;
  /** The first agent that delivered on each order, and the orders more than one did. */
  private readonly deliveredBy = new Map<string, string>();
  private readonly twice = new Set<string>();

  constructor(
    private readonly w: HistoryWindow,
    private readonly nowMs: number,
    private readonly staleAfterMs: number,
  ) {}

  add(h: CountedHold): void {
    const w = this.w;
    if (!inWindow(h, w)) return;
    this.holds++;
    let a = this.by.get(h.agent);
    if (!a) this.by.set(h.agent, (a = { orders: new Set(), endings: { ...NO_ENDINGS }, held: 0, silent: 0 }));
    a.orders.add(h.order_id);
    if (h.ended_ms === null || h.ended_ms >= w.to_ms) a.endings.held++;
    else a.endings[h.ending]++;
    a.held += overlapMs(h.claimed_ms, h.ended_ms ?? this.nowMs, w);
    if (h.delivered) {
      const first = this.deliveredBy.get(h.order_id);
      if (first === undefined) this.deliveredBy.set(h.order_id, h.agent);
      else if (first !== h.agent) this.twice.add(h.order_id);
    }
    for (const s of h.silences) {
      a.silent += overlapMs(s.from_ms, s.to_ms, w);
      const staleAt = s.from_ms + this.staleAfterMs;
      if (staleAt < w.from_ms || staleAt >= w.to_ms) continue;
      this.counts.went_stale++;
      const o = staleOutcome(h, s, this.nowMs, this.staleAfterMs);
      this.counts[o.kind]++;
      if (o.kind === 'acted') this.untilAct.push(o.ms);
      if (o.kind === 'waiting') this.longestWait = Math.max(this.longestWait ?? 0, o.ms);
    }
  }

  /** Per agent, by name. */
  agents(): AgentNumbers[] {
    return [...this.by.entries()]
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([agent, a]) => ({ agent, orders: a.orders.size, endings: a.endings, held_ms: a.held, silent_ms: a.silent }));
  }

  /** Fleet-wide. */
  fleet(): FleetNumbers {
    const untilAct = [...this.untilAct].sort((a, b) => a - b);
    const twice = [...this.twice].sort();
    return {
      holds: this.holds,
      stale: { ...this.counts, until_act_p50_ms: median(untilAct), until_act_max_ms: untilAct.length ? (untilAct[untilAct.length - 1] as number) : null, longest_wait_ms: this.longestWait },
      twice: { orders: twice.length, order_ids: twice.slice(0, 50) },
    };
  }
}
