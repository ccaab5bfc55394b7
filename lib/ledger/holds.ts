/**
 * Holds: who held which order, from when to when, and how each hold ended, read from an order's
 * folder. One hold per claim file: it starts when the claim arrived here and ends when the record
 * that ended it arrived here (a release, the agent's result, its give-up, a supersede), both on
 * this machine's arrival clock, the one clock every agent's holds share. The writers' own
 * timestamps ride along to be shown beside them, never to place or order anything.
 *
 * The fleet history (GET /api/holds, `claimboard holds`, /history) lists these rows; an agent's
 * page lists its ended ones as its "Held before".
 */
import type { OrderView } from './channel';
import type { Arrived, Card } from './card';
import { isRetireRelease } from './retire-release';
import { ranAfterOwnRelease } from './state';
import { decisionTarget, namesTarget } from './targets';
import { compareTimestamps, type Timestamp } from './time';

/** How a hold ended, in the order the pages list them; `held` while it goes on. */
export const HOLD_ENDINGS = ['held', 'finished', 'released_self', 'requeued', 'retired', 'gave_up', 'superseded', 'lost'] as const;
export type HoldEnding = (typeof HOLD_ENDINGS)[number];

/** One hold: an agent's claim on an order and how it ended (GET /api/holds rows carry it). */
export interface Hold {
  readonly order_id: string;
  readonly agent: string;
  readonly project_id: string;
  /** The run of the agent's latest heartbeat on the order, or null when none arrived. */
  readonly run: string | null;
  /** When the claim arrived here: ms, this machine's clock. */
  readonly claimed_ms: number;
  /** The claim's `claimed_at`, the agent's own clock, as written. */
  readonly claimed_at: string;
  /** When the record that ended it arrived here (ms, this machine's clock); null while held. */
  readonly ended_ms: number | null;
  /** That record's own timestamp, its writer's clock, as written; null when there is none. */
  readonly ended_at: string | null;
  readonly ending: HoldEnding;
  /** Who ended it: the agent, the releaser, the operator who superseded; for `lost`, who holds the order; null while held. */
  readonly ended_by: string | null;
  /** The ending in the writer's words: the release's or give-up's reason, "revision 2", the supersede's order and reason. */
  readonly reason: string;
  /** When the agent's latest heartbeat on the order arrived here (ms, this machine's clock), or null. */
  readonly beat_ms: number | null;
  /** That heartbeat's own `at`, the agent's clock, or null. */
  readonly beat_at: string | null;
  /** Whether the agent delivered a result on the order (any revision), whatever ended the hold. */
  readonly delivered: boolean;
}

interface EndingEvent {
  readonly ending: Exclude<HoldEnding, 'held' | 'lost'>;
  readonly ms: number;
  readonly at: Timestamp;
  readonly by: string;
  readonly reason: string;
  /** Breaks a tie of arrivals: a release, then a result, a give-up, a supersede. */
  readonly rank: number;
}

/**
 * How `agent`'s hold on the order ended, by this machine's arrival clock: of the records that end
 * a hold, the first to arrive here (at or after the claim; one that arrived before it counts from
 * the claim's arrival), ties in the order release, result, give-up, supersede:
 *
 * - a release naming the agent: by itself (`released_self`), a retire's (`retired`), or anyone
 *   else's (`requeued`); except the release an assignee wrote of itself and ran on after (its
 *   heartbeat, or its claim, dated after it on its own clock: ferry's startup routine);
 * - its result at its highest revision (`finished`), unless that revision was sent back (it owes
 *   the next one) or an operator reopened it;
 * - its give-up (`gave_up`), unless an operator reopened it;
 * - a supersede of the order (`superseded`).
 *
 * With none: `held` while it holds the order (ferry's holder), else `lost` to the holder, ended
 * when the holder's claim arrived if that was after this one's, else at once.
 */
function endingOf(view: Pick<OrderView, 'folder'>, card: Pick<Card, 'holder'>, claim: Arrived<{ agent: string; claimed_at: Timestamp }>): Pick<Hold, 'ended_ms' | 'ended_at' | 'ending' | 'ended_by' | 'reason'> {
  const f = view.folder;
  const agent = claim.record.agent;
  const reopened = (target: string) => f.reopens.some((r) => namesTarget(r.record.target, target));
  const events: EndingEvent[] = [];
  const heartbeat = f.heartbeats.find((h) => h.record.agent === agent);
  for (const r of f.releases) {
    const rel = r.record;
    if (rel.released !== agent) continue;
    const self = rel.releaser === agent;
    if (self && card.holder === agent && f.order.record.assigned_to === agent && ranAfterOwnRelease(r, heartbeat, f.claims.find((c) => c.record.agent === agent))) continue;
    events.push({ ending: self ? 'released_self' : isRetireRelease(rel) ? 'retired' : 'requeued', ms: r.arrivalMs, at: rel.at, by: rel.releaser, reason: rel.reason, rank: 0 });
  }
  let top: (typeof f.results)[number] | undefined;
  for (const r of f.results) if (r.record.agent === agent && (!top || r.record.revision > top.record.revision)) top = r;
  if (top) {
    const rev = top.record.revision;
    const sentBack = f.reviews.some((r) => r.record.revision === rev && !r.record.accepted);
    if (!sentBack && !reopened(decisionTarget({ kind: 'result', revision: rev })) && !reopened(decisionTarget({ kind: 'review', revision: rev }))) {
      events.push({ ending: 'finished', ms: top.arrivalMs, at: top.record.submitted_at, by: agent, reason: `revision ${rev}`, rank: 1 });
    }
  }
  for (const g of f.giveups) {
    if (g.record.agent !== agent || reopened(decisionTarget({ kind: 'giveup', digest: g.record.file_digest }))) continue;
    events.push({ ending: 'gave_up', ms: g.arrivalMs, at: g.record.at, by: agent, reason: g.record.reason, rank: 2 });
  }
  for (const s of f.supersedes) {
    events.push({ ending: 'superseded', ms: s.arrivalMs, at: s.record.at, by: s.record.operator, reason: s.record.reason ? `by ${s.record.by}: ${s.record.reason}` : `by ${s.record.by}`, rank: 3 });
  }
  const from = claim.arrivalMs;
  let first: EndingEvent | undefined;
  for (const e of events) {
    const d = first ? Math.max(e.ms, from) - Math.max(first.ms, from) : -1;
    if (!first || d < 0 || (d === 0 && e.rank < first.rank)) first = e;
  }
  if (first) return { ended_ms: Math.max(first.ms, from), ended_at: first.at.text, ending: first.ending, ended_by: first.by, reason: first.reason };
  if (card.holder === agent) return { ended_ms: null, ended_at: null, ending: 'held', ended_by: null, reason: '' };
  const theirs = card.holder ? f.claims.find((c) => c.record.agent === card.holder) : undefined;
  return {
    ended_ms: Math.max(from, theirs?.arrivalMs ?? from),
    ended_at: theirs && theirs.arrivalMs > from ? theirs.record.claimed_at.text : null,
    ending: 'lost',
    ended_by: card.holder,
    reason: card.holder ? `${card.holder} holds it` : 'nobody holds it',
  };
}

/** Every hold of an order's folder: one per claim, in the folder's claim order. */
export function orderHolds(view: Pick<OrderView, 'folder'>, card: Pick<Card, 'holder'>): Hold[] {
  const f = view.folder;
  const o = f.order.record;
  return f.claims.map((claim): Hold => {
    const agent = claim.record.agent;
    const beat = f.heartbeats.find((h) => h.record.agent === agent);
    return {
      order_id: o.id,
      agent,
      project_id: o.project_id,
      run: beat ? beat.record.run : null,
      claimed_ms: claim.arrivalMs,
      claimed_at: claim.record.claimed_at.text,
      ...endingOf(view, card, claim),
      beat_ms: beat ? beat.arrivalMs : null,
      beat_at: beat ? beat.record.at.text : null,
      delivered: f.results.some((r) => r.record.agent === agent),
    };
  });
}

/** A stretch of a hold with nothing of its run arriving here for longer than stale_after: ms, this machine's clock. */
export interface Silence {
  readonly from_ms: number;
  readonly to_ms: number;
}

/**
 * A hold's last silence: from the last sign of its run here (its heartbeat's arrival, or its
 * claim's when no heartbeat came later) to its end (now while held), when that is longer than
 * `staleAfterMs`: the claim went stale then, and stayed so until the hold ended. Arrivals and now
 * on this machine's clock only; the writers' clocks play no part. Null when there is none.
 */
export function lastSilence(h: Pick<Hold, 'claimed_ms' | 'ended_ms' | 'beat_ms'>, nowMs: number, staleAfterMs: number): Silence | null {
  const from = Math.max(h.claimed_ms, h.beat_ms ?? h.claimed_ms);
  const to = h.ended_ms ?? nowMs;
  return to - from > staleAfterMs ? { from_ms: from, to_ms: to } : null;
}

/** A hold as the history lists it: with its silences and how long they lasted in all. */
export interface HoldRow extends Hold {
  /** Its silences, earliest first: those the index saw inside it while it ran, then its last (lastSilence). */
  readonly silences: readonly Silence[];
  /** Their total length, ms. */
  readonly silent_ms: number;
}

/**
 * `hold` with its silences: of `seen` (the spans the index saw with nothing of the agent's runs on
 * the order arriving, lib/index/writer/beat-gaps.ts), those inside the hold and longer than
 * `staleAfterMs`, then its last silence. `nowMs` and every span: this machine's clock.
 */
export function holdRow(hold: Hold, seen: readonly Silence[], nowMs: number, staleAfterMs: number): HoldRow {
  const silences = silencesOf(hold, seen, nowMs, staleAfterMs);
  return { ...hold, silences, silent_ms: silences.reduce((n, g) => n + (g.to_ms - g.from_ms), 0) };
}

/** The silences of holdRow alone (the history's numbers read them of every hold in a window). */
export function silencesOf(hold: Pick<Hold, 'claimed_ms' | 'ended_ms' | 'beat_ms'>, seen: readonly Silence[], nowMs: number, staleAfterMs: number): Silence[] {
  const last = lastSilence(hold, nowMs, staleAfterMs);
  if (seen.length === 0) return last ? [last] : [];
  const end = hold.ended_ms ?? nowMs;
  const inside = seen.filter((g) => g.from_ms >= hold.claimed_ms && g.to_ms <= end && g.to_ms - g.from_ms > staleAfterMs).sort((a, b) => a.from_ms - b.from_ms);
  return last ? [...inside.filter((g) => g.to_ms <= last.from_ms), last] : inside;
}

/**
 * How long `agent`'s run on the order took, ms: from its claim's `claimedAt` to the earliest
 * `submitted_at` of its results, both the agent's own clock (one machine's clock: comparable).
 * Null when it delivered no result, or the difference is negative (a clock set back). The
 * threshold page's run durations read it (the index's holds.run_ms).
 */
export function runDuration(view: Pick<OrderView, 'folder'>, agent: string, claimedAt: Timestamp): number | null {
  let first: Timestamp | null = null;
  for (const r of view.folder.results) {
    if (r.record.agent !== agent) continue;
    if (first === null || compareTimestamps(r.record.submitted_at, first) < 0) first = r.record.submitted_at;
  }
  if (first === null) return null;
  const ms = first.epochMs - claimedAt.epochMs;
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}
