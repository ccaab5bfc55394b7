/**
 * What the attention flags read besides the state: computed once per order, from its folder, the
 * rest of the channel (DeriveContext) and the state rule's verdict. Pure.
 */
import { compareTimestamps } from '../time';
import { UNFINISHED, type Arrived, type DeriveContext, type OrderFolder } from '../card';
import type { AckRecord, HeartbeatRecord, OrderRecord, ReleaseRecord, SupersedeRecord } from '../records';
import { isFresh, type StateFacts } from '../state';
import { decisionTarget, namesTarget } from '../targets';
import { isRetireRelease } from '../retire-release';

export interface OrderFacts extends StateFacts {
  readonly folder: OrderFolder;
  readonly ctx: DeriveContext;
  readonly order: OrderRecord;
  readonly assignee: string | null;
  /** The state says the work is still to be done (or being done). */
  readonly unfinished: boolean;
  /** Agents other than the holder with a fresh heartbeat here, sorted. */
  readonly otherRuns: readonly string[];
  /**
   * Agents other than the holder with a result at the latest revision, none reviewed or reopened;
   * else those whose result at an earlier revision, never sent back, the holder did again (their
   * claim released or absent). Sorted.
   */
  readonly lateResults: readonly string[];
  /** The revision of `lateResults`. */
  readonly lateRevision: number;
  readonly holderHasLatest: boolean;
  /** What an ack of the late results names, when there are some. */
  readonly lateTarget?: string;
  /** An operator's ack naming `lateTarget`. */
  readonly lateAck?: Arrived<AckRecord>;
  /** Dependencies that are not orders of this channel. */
  readonly missing: readonly string[];
  /** Releases of the assignee's claim by others. */
  readonly byOthers: readonly Arrived<ReleaseRecord>[];
  /** A `ferry channel retire` release of the assignee in this folder. */
  readonly retiredHere?: Arrived<ReleaseRecord>;
  /** The holder is a name that is retired (a retirement, a retire release of the assignee here, or one elsewhere whose run is not live here). */
  readonly retiredHolder: boolean;
  /** The supersede that moved this order's work to a new order (the smallest `by`). */
  readonly supersede?: SupersedeRecord;
}

export function factsOf(folder: OrderFolder, ctx: DeriveContext, isOrder: (id: string) => boolean, s: StateFacts): OrderFacts {
  const order = folder.order.record;
  const { holder, latest, state } = s;
  // A heartbeat its own writer released after writing it (same clock: `release.at >= heartbeat.at`)
  // is what a dead run leaves behind (ferry's "worker died mid-run" keeps the file), not a live run.
  const leftover = (h: Arrived<HeartbeatRecord>) =>
    folder.releases.some(
      (r) => r.record.released === h.record.agent && r.record.releaser === h.record.agent && compareTimestamps(r.record.at, h.record.at) >= 0,
    );
  // Only while the work is still to be done: a second run of a finished order is waste, and a
  // result it writes later is flagged as a late result then (a dead loser's heartbeat stays for ever).
  const otherRuns =
    holder && UNFINISHED.has(state)
      ? [...new Set(folder.heartbeats.filter((h) => h.record.agent !== holder && isFresh(h.arrivalMs, ctx) && !leftover(h)).map((h) => h.record.agent))].sort()
      : [];
  // A result decides the state when it is at the latest revision with no review yet; one by an
  // agent that does not hold the order is work the fleet did not hand out (ferry counts it all the same).
  // Where the holder has its own result at latest, R is the holder's and another agent's at that
  // revision is the same work done twice: still a person's to look at.
  const reviewedLatest = latest !== null && folder.reviews.some((r) => r.record.revision === latest);
  const holderHasLatest = latest !== null && holder !== null && folder.results.some((r) => r.record.revision === latest && r.record.agent === holder);
  // A reopened latest result is an operator's decision on that revision already: no alarm about it.
  const lateResults =
    latest === null || reviewedLatest || s.rReopened
      ? []
      : [...new Set(folder.results.filter((r) => r.record.revision === latest && r.record.agent !== holder).map((r) => r.record.agent))].sort();
  // Work done twice: the holder's result is the latest, and another agent's at an earlier revision
  // was never sent back, while that agent's claim is released (a retire, a re-queue) or absent: the
  // order was handed out again and redone. No clock is read: which files exist decides.
  const redone =
    lateResults.length === 0 && holderHasLatest && !s.rReopened
      ? folder.results.filter(
          (r) =>
            r.record.agent !== holder &&
            r.record.revision < (latest ?? 0) &&
            !folder.reviews.some((v) => v.record.revision === r.record.revision) &&
            (s.released.has(r.record.agent) || !folder.claims.some((c) => c.record.agent === r.record.agent)),
        )
      : [];
  const lateRevision = lateResults.length > 0 ? (latest ?? 0) : Math.max(0, ...redone.map((r) => r.record.revision));
  const late = lateResults.length > 0 ? lateResults : [...new Set(redone.filter((r) => r.record.revision === lateRevision).map((r) => r.record.agent))].sort();
  const lateTarget = late.length > 0 ? decisionTarget({ kind: 'late', revision: lateRevision, agents: late, holder, twice: holderHasLatest }) : undefined;
  const lateAck = lateTarget ? folder.acks.find((a) => namesTarget(a.record.target, lateTarget)) : undefined;

  // Releases of an assignee: its own (ferry's restart "orphaned at startup", a dead run) are
  // routine; a retire's (reason "retired", by another) retires the name here; any other by another
  // is an operator's re-queue that ferry does not honour for an addressed order.
  const assignee = order.assigned_to;
  const byOthers = assignee === null ? [] : folder.releases.filter((r) => r.record.released === assignee && r.record.releaser !== assignee);
  const retiredHere = byOthers.find((r) => isRetireRelease(r.record));
  const retiredHolder =
    holder !== null &&
    (ctx.retired.has(holder) || (retiredHere !== undefined && holder === assignee) || (ctx.ferryRetired?.has(holder) === true && s.holderFresh !== true));
  const supersede = [...folder.supersedes].sort((a, b) => (a.record.by < b.record.by ? -1 : 1))[0]?.record;
  return {
    ...s,
    folder,
    ctx,
    order,
    assignee,
    unfinished: UNFINISHED.has(state),
    otherRuns,
    lateResults: late,
    lateRevision,
    holderHasLatest,
    ...(lateTarget !== undefined ? { lateTarget } : {}),
    ...(lateAck !== undefined ? { lateAck } : {}),
    missing: order.depends_on.filter((d) => !isOrder(d)),
    byOthers,
    ...(retiredHere !== undefined ? { retiredHere } : {}),
    retiredHolder,
    ...(supersede !== undefined ? { supersede } : {}),
  };
}
