/**
 * The state rule: an order's holder, its state, and how fresh its run is, from its folder alone
 * (C/lib.rs `read_task`, `released`, `holder`, `Task::state_at`; claimboard's give-up, ack and
 * reopen on top). `blocked` is decided later, with the states of the order's dependencies
 * (derive.ts resolveDependencies).
 *
 * Clocks: staleness compares arrivals on this machine with this machine's clock (`nowMs`); a
 * claim's `claimed_at` is compared only with other claims, as ferry's deterministic tie-break on
 * every machine; a release's `at` only with a heartbeat or claim of the same writer.
 */
import { compareTimestamps } from './time';
import { decisionTarget, namesTarget } from './targets';
import type { Arrived, DeriveContext, OrderFolder, OrderState, StaleReason } from './card';
import type { ClaimRecord, HeartbeatRecord, ReleaseRecord } from './records';
import type { FerryState } from './ferry-states';

export function pick<R>(list: readonly Arrived<R>[], pred: (r: R) => boolean): Arrived<R> | undefined {
  return list.find((a) => pred(a.record));
}

/**
 * The holder of an order: `assigned_to` when set; otherwise the active
 * (not released) claim with the smallest `(claimed_at, agent)`, writer clocks compared as
 * ferryman's deterministic tie-break. Returns null when there is none.
 */
export function holderOf(folder: OrderFolder, released: ReadonlySet<string>): string | null {
  const assigned = folder.order.record.assigned_to;
  if (assigned) return assigned;
  let best: ClaimRecord | null = null;
  for (const { record: c } of folder.claims) {
    if (released.has(c.agent)) continue;
    if (!best) {
      best = c;
      continue;
    }
    const byTime = compareTimestamps(c.claimed_at, best.claimed_at);
    if (byTime < 0 || (byTime === 0 && c.agent < best.agent)) best = c;
  }
  return best ? best.agent : null;
}

/**
 * Staleness of the holder's run on this machine's clock. `claim` is the
 * holder's claim (its arrival is the reference when there is no heartbeat). Returns null
 * when fresh, else the reason and `since` (ms, local).
 */
export function staleness(
  holder: string,
  heartbeat: Arrived<HeartbeatRecord> | undefined,
  claim: Arrived<ClaimRecord> | undefined,
  ctx: DeriveContext,
): { readonly reason: StaleReason; readonly sinceMs: number } | null {
  const ref = heartbeat?.arrivalMs ?? claim?.arrivalMs;
  if (ref === undefined) return null;
  if (ctx.nowMs - ref <= ctx.staleAfterMs) return null;
  const sinceMs = ref + ctx.staleAfterMs;
  if (!heartbeat) return { reason: 'no_heartbeat', sinceMs };
  const last = ctx.lastArrivalByAgent.get(holder) ?? ref;
  if (ctx.nowMs - last > ctx.staleAfterMs) return { reason: 'agent_silent', sinceMs };
  return { reason: 'heartbeat_lapsed', sinceMs };
}

/**
 * Whether an agent ran on after releasing its own claim (ferry's worker at startup releases an
 * order addressed to it, then claims and runs it anyway): its heartbeat, or without one its
 * claim, is dated after its own release. One writer's clock against itself (the same machine),
 * never another's.
 */
export function ranAfterOwnRelease(own: Arrived<ReleaseRecord>, heartbeat: Arrived<HeartbeatRecord> | undefined, claim: Arrived<ClaimRecord> | undefined): boolean {
  return heartbeat ? compareTimestamps(heartbeat.record.at, own.record.at) > 0 : claim !== undefined && compareTimestamps(claim.record.claimed_at, own.record.at) > 0;
}

/** True when a heartbeat's file arrived within `stale_after` of now. */
export function isFresh(arrivalMs: number, ctx: DeriveContext): boolean {
  return ctx.nowMs - arrivalMs <= ctx.staleAfterMs;
}


/** What the state rule decides, and what it read to decide it (the flags read it too). */
export interface StateFacts {
  readonly holder: string | null;
  /** Agents whose claim a release names (by anyone). */
  readonly released: ReadonlySet<string>;
  /** An agent's claim when no release names it. */
  readonly activeClaim: (agent: string) => Arrived<ClaimRecord> | undefined;
  /** The latest release of an agent by itself (its own clock orders its own files). */
  readonly ownRelease: (agent: string) => Arrived<ReleaseRecord> | undefined;
  /** Whether an operator's reopen names `target`. */
  readonly reopened: (target: string) => boolean;
  /** The highest valid result revision, or null. */
  readonly latest: number | null;
  /** Whether an operator reopened the latest result or its review. */
  readonly rReopened: boolean;
  readonly state: OrderState;
  readonly reason?: string;
  readonly sinceMs?: number;
  readonly target?: string;
  readonly holderFresh: boolean | null;
  readonly holderHeartbeat: Arrived<HeartbeatRecord> | undefined;
  readonly runLane?: 'running' | 'stale';
  readonly runNote?: string;
}

/**
 * The state rule. ferry's holder is the assignee, else the earliest unreleased claim; with no
 * result it is Claimed (an unreleased claim of the holder) or Offered; with one, the latest
 * revision's review decides, else AwaitingReview or Done. A changes-requested order, or an
 * assignee running an order ferry reads Offered, has a run lane of its own (Card.run_lane).
 */
export function stateRule(folder: OrderFolder, ctx: DeriveContext): StateFacts {
  const order = folder.order.record;
  const released = new Set(folder.releases.map((r) => r.record.released));
  const holder = holderOf(folder, released);
  const activeClaim = (agent: string) =>
    released.has(agent) ? undefined : pick(folder.claims, (c) => c.agent === agent);

  // latest: the highest revision. Which result at it is R (the holder's, else the
  // smallest agent's) decides nothing here: a reopen names R by its revision (`result:<latest>`).
  let latest: number | null = null;
  for (const { record: r } of folder.results) if (latest === null || r.revision > latest) latest = r.revision;
  const reopened = (target: string) => folder.reopens.some((r) => namesTarget(r.record.target, target));
  const rReopened = latest !== null && (reopened(decisionTarget({ kind: 'result', revision: latest })) || reopened(decisionTarget({ kind: 'review', revision: latest })));

  let state: OrderState;
  let reason: string | undefined;
  let sinceMs: number | undefined;
  let target: string | undefined;
  let holderFresh: boolean | null = null;
  const holderHeartbeat = holder ? pick(folder.heartbeats, (h) => h.agent === holder) : undefined;
  let runLane: 'running' | 'stale' | undefined;
  let runNote: string | undefined;
  // The latest release of an agent by itself (its own clock orders its own files).
  const ownRelease = (agent: string) =>
    folder.releases
      .filter((r) => r.record.released === agent && r.record.releaser === agent)
      .reduce<Arrived<ReleaseRecord> | undefined>((a, r) => (!a || compareTimestamps(r.record.at, a.record.at) > 0 ? r : a), undefined);
  const runOf = (agent: string, claim: Arrived<ClaimRecord> | undefined) => {
    const stale = staleness(agent, holderHeartbeat, claim, ctx);
    holderFresh = stale === null;
    runLane = stale ? 'stale' : 'running';
    if (stale) {
      reason = stale.reason;
      sinceMs = stale.sinceMs;
    }
  };

  if (holder === null) {
    state = 'open'; // `blocked` is decided by resolveDependencies
  } else if (latest === null || rReopened) {
    const claim = activeClaim(holder);
    const giveup = pick(folder.giveups, (g) => g.agent === holder);
    const giveupTarget = giveup ? decisionTarget({ kind: 'giveup', digest: giveup.record.file_digest }) : null;
    if (!claim) {
      state = 'offered';
      // ferry's worker releases an order addressed to itself at startup, then claims and runs it
      // anyway (holder() is the assignee); its claim never counts again, so ferry reads Offered. A
      // heartbeat (or, before one, a claim) written after that release is that run.
      const own = order.assigned_to === holder ? ownRelease(holder) : undefined;
      const c = pick(folder.claims, (x) => x.agent === holder);
      const hb = holderHeartbeat;
      if (own && ranAfterOwnRelease(own, hb, c)) {
        runOf(holder, c);
        runNote = `${holder} released itself ("${own.record.reason}") and claimed it after: ferry reads it Offered (a released claim never counts again), yet ${holder} ${runLane === 'stale' ? 'ran it, and that run stopped' : 'runs it'}`;
      }
    } else if (giveup && giveupTarget && !reopened(giveupTarget)) {
      target = giveupTarget;
      if (folder.acks.some((a) => namesTarget(a.record.target, giveupTarget))) {
        state = 'closed';
      } else {
        state = 'gave_up';
        reason = giveup.record.reason;
      }
    } else {
      const stale = staleness(holder, holderHeartbeat, claim, ctx);
      holderFresh = stale === null;
      if (stale) {
        state = 'stale';
        reason = stale.reason;
        sinceMs = stale.sinceMs;
      } else {
        state = 'claimed';
      }
    }
  } else {
    const review = pick(folder.reviews, (r) => r.revision === latest);
    if (review) {
      state = review.record.accepted ? 'accepted' : 'changes_requested';
      if (review.record.accepted) target = decisionTarget({ kind: 'review', revision: latest });
      // A run of the next revision leaves its heartbeat until it ends; one its writer released is over.
      const own = holder ? ownRelease(holder) : undefined;
      if (!review.record.accepted && holder && holderHeartbeat && !(own && compareTimestamps(own.record.at, holderHeartbeat.record.at) >= 0)) {
        runOf(holder, pick(folder.claims, (x) => x.agent === holder));
      }
    } else if (order.requires_review) {
      state = 'awaiting_review';
    } else {
      state = 'done';
      target = decisionTarget({ kind: 'result', revision: latest });
    }
  }
  if (holder !== null && holderFresh === null && holderHeartbeat && activeClaim(holder)) {
    holderFresh = isFresh(holderHeartbeat.arrivalMs, ctx);
  }
  return {
    holder,
    released,
    activeClaim,
    ownRelease,
    reopened,
    latest,
    rReopened,
    state,
    ...(reason !== undefined ? { reason } : {}),
    ...(sinceMs !== undefined ? { sinceMs } : {}),
    ...(target !== undefined ? { target } : {}),
    holderFresh,
    holderHeartbeat,
    ...(runLane !== undefined ? { runLane } : {}),
    ...(runNote !== undefined ? { runNote } : {}),
  };
}

/** ferry's own verdict (C/lib.rs `Task::state_at`), its Stale folded into Claimed. */
export function ferryStateOf(folder: OrderFolder, s: StateFacts): FerryState {
  if (s.holder === null) return 'open';
  if (s.latest === null) return s.activeClaim(s.holder) ? 'claimed' : 'offered';
  const review = pick(folder.reviews, (r) => r.revision === s.latest);
  if (review) return review.record.accepted ? 'accepted' : 'changes_requested';
  return folder.order.record.requires_review ? 'awaiting_review' : 'done';
}
