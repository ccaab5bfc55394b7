/**
 * Derived state of one order: holder, state, staleness, attention flags and lane
 * (LEDGER.md §6, §7).
 *
 * Pure. The clock (`nowMs`) and every file's arrival (`arrivalMs`) are parameters, both on
 * THIS machine's clock, in milliseconds since the Unix epoch. Writer timestamps inside records
 * are never compared with them (LEDGER.md §1.3): they only break ties between claims, exactly
 * as ferryman does on every machine.
 *
 * Over 500 lines on purpose: the derivation of one order (LEDGER.md §6, §7) is one decision read top to bottom; its words are already in words.ts. The seam if it grows: the attention flags.
 */
import { formatLocalInstant, compareTimestamps } from './time';
import { badRecordText, byFlagOrder, ferryDifference, missingText, words } from './words';
import type {
  AckRecord,
  ClaimRecord,
  GiveupRecord,
  HeartbeatRecord,
  InterruptAckRecord,
  InterruptRecord,
  OrderRecord,
  SupersedeRecord,
  ReleaseRecord,
  ReopenRecord,
  ResultRecord,
  RetirementRecord,
  ReviewRecord,
} from './records';

/** Derived order states (LEDGER.md §7), in the order the pages list them. */
export const ORDER_STATES = [
  'open',
  'blocked',
  'offered',
  'claimed',
  'stale',
  'gave_up',
  'closed',
  'changes_requested',
  'awaiting_review',
  'accepted',
  'done',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Board lanes, leftmost first (LEDGER.md §7). */
export const LANES = ['attention', 'stale', 'running', 'review', 'queue', 'done'] as const;
export type Lane = (typeof LANES)[number];

/** Attention flags (LEDGER.md §7), in the order the pages list them; any flag puts the order in the Needs-attention lane. */
export const ATTENTION_FLAGS = [
  'gave_up',
  'double_run',
  'late_result',
  'retired_holder',
  'released_assignee',
  'bad_record',
  'sync_conflict',
  'missing_dependency',
  'interrupt_unacknowledged',
  'stop_not_holding',
  'no_worker_left',
  // Raised by this machine's reaper state (issue 16), never by derivation: lib/index/local-overlay.ts.
  'dead_run_held',
] as const;
export type AttentionFlag = (typeof ATTENTION_FLAGS)[number];

/** Why a claimed order is stale (LEDGER.md §6). */
export type StaleReason = 'no_heartbeat' | 'agent_silent' | 'heartbeat_lapsed';

/** Terminal (sink) states: only a reopen leaves them (LEDGER.md §7). */
export const TERMINAL_STATES: ReadonlySet<OrderState> = new Set<OrderState>(['done', 'accepted', 'closed']);

/** A record together with when its file arrived here (local clock, ms) and its path. */
export interface Arrived<R> {
  readonly record: R;
  readonly arrivalMs: number;
  readonly path: string;
}

/**
 * Everything valid in one order's folder, ready for derivation. Records with problems are
 * absent (LEDGER.md §1.6); `problemCount` and `conflictCount` say how many problem rows the
 * folder has besides.
 */
export interface OrderFolder {
  readonly order: Arrived<OrderRecord>;
  readonly claims: readonly Arrived<ClaimRecord>[];
  readonly heartbeats: readonly Arrived<HeartbeatRecord>[];
  readonly results: readonly Arrived<ResultRecord>[];
  readonly reviews: readonly Arrived<ReviewRecord>[];
  readonly releases: readonly Arrived<ReleaseRecord>[];
  readonly giveups: readonly Arrived<GiveupRecord>[];
  readonly reopens: readonly Arrived<ReopenRecord>[];
  readonly acks: readonly Arrived<AckRecord>[];
  /** ferry's interrupts (kill / pause / steer) and their acknowledgements. */
  readonly interrupts: readonly Arrived<InterruptRecord>[];
  readonly interruptAcks: readonly Arrived<InterruptAckRecord>[];
  /** Valid supersede records (extension): operators who issued a new order for this one's work. */
  readonly supersedes: readonly Arrived<SupersedeRecord>[];
  /** The folder's problem rows, for the words of `bad_record`. */
  readonly problems: readonly FolderProblem[];
  /** Problem rows in this folder other than conflict copies (`bad_record`). */
  readonly problemCount: number;
  /** Syncthing conflict copies in this folder (`sync_conflict`). */
  readonly conflictCount: number;
}

/** One problem row of an order's folder, as derivation sees it (for the words of `bad_record`). */
export interface FolderProblem {
  readonly path: string;
  /** A ProblemCode (lib/ledger/channel.ts). */
  readonly problem: string;
  readonly detail: string;
  /** The record kind the file was read as, or null. */
  readonly kind: string | null;
  /** True when the real ferry still reads the record despite the problem (it counts for state). */
  readonly ferry_reads: boolean;
  /** Who signed it as written (canonical), or null. */
  readonly signer: string | null;
}

/** ferry's own states (C/lib.rs `TaskState`), its Stale folded into Claimed (ferry decides it by the writer's clock). */
export type FerryState = 'open' | 'offered' | 'claimed' | 'awaiting_review' | 'changes_requested' | 'accepted' | 'done';

/** An attention flag with the reason a person reads on the card. */
export interface Alert {
  readonly flag: AttentionFlag;
  readonly text: string;
}

/** What deriving one order needs from the rest of the channel. */
export interface DeriveContext {
  /** This machine's clock, ms since the epoch. */
  readonly nowMs: number;
  /** `stale_after` in ms (LEDGER.md §6; default 300 000). */
  readonly staleAfterMs: number;
  /** Canonical names with a valid retirement (LEDGER.md §4). */
  readonly retired: ReadonlySet<string>;
  /**
   * Names a `ferry channel retire` release (reason `retired`, by another) names in any order's
   * folder (Card.retires). ferry keeps no retired state: such a name is treated as gone only where
   * its run is not live here.
   */
  readonly ferryRetired?: ReadonlySet<string>;
  /**
   * The roster's workers (role `worker`), canonical, not retired: who could still claim an open
   * order. Absent: not known (no `no_worker_left` then).
   */
  readonly workers?: ReadonlySet<string>;
  /** Latest local arrival (ms) of any file written by each agent (LEDGER.md §6 "files of h"). */
  readonly lastArrivalByAgent: ReadonlyMap<string, number>;
}

/** The card of one order (DESIGN.md "Card"): state, lane, holder, flags, and why. */
export interface Card {
  readonly order_id: string;
  readonly state: OrderState;
  readonly lane: Lane;
  /** Canonical holder, or null. */
  readonly holder: string | null;
  readonly flags: readonly AttentionFlag[];
  /** Stale reason (`stale`) or the give-up's reason (`gave_up`). */
  readonly reason?: string;
  /** When the order became stale, RFC 3339 on this machine's clock. */
  readonly since?: string;
  /** `since` in ms (local clock). */
  readonly since_ms?: number;
  /** What an operator's decision on the current state names (LEDGER.md §4 target). */
  readonly target?: string;
  /**
   * What an acknowledgement of the late results names (lateTargetOf), present whenever there are
   * late results; `late_result` is raised until an operator's ack names it (namesTarget).
   */
  readonly late_target?: string;
  /**
   * What each operator's ack and reopen file on this order names now (by operator, the target as
   * written, trimmed and lowercased), or absent when there is none. An operator's next file of that
   * kind replaces it and must name all of it again (lib/ledger/actions.ts ackTargetOf, reopenTargetOf).
   */
  readonly decided?: { readonly acks: Readonly<Record<string, string>>; readonly reopens: Readonly<Record<string, string>> };
  readonly project_id: string;
  readonly assigned_to: string | null;
  readonly issued_by: string;
  /** The order's `created_at` as the issuer's clock wrote it. */
  readonly created_at: string;
  readonly depends_on: readonly string[];
  readonly requires_review: boolean;
  /** Highest valid result revision, or null. */
  readonly latest_revision: number | null;
  /** Whether the holder's heartbeat is fresh (LEDGER.md §6); null when there is no holder claim. */
  readonly holder_fresh: boolean | null;
  /** The holder's heartbeat as seen here, if any: local arrival and writer clock side by side. */
  readonly heartbeat: { readonly arrival_ms: number; readonly at: string; readonly run: string; readonly pid: number } | null;
  /** Dependencies that are not orders of this channel. */
  readonly missing_dependencies: readonly string[];
  /** Agents other than the holder with a fresh heartbeat here (`double_run`). */
  readonly other_runs: readonly string[];
  /** Agents with a valid result that are not the holder (`late_result`). */
  readonly late_results: readonly string[];
  /** ferry's own reading of this order (state, holder as ferry computes them). */
  readonly ferry: { readonly state: FerryState; readonly holder: string | null };
  /** "ferry reads this as …; claimboard shows … because …" when claimboard's state differs; else absent. */
  readonly ferry_note?: string;
  /** Each flag's reason in words, in flag order. */
  readonly alerts: readonly Alert[];
  /** Facts worth a line on the order page that are not alarms (e.g. an interrupt not yet seen). */
  readonly notes: readonly string[];
  /**
   * The lane of a run ferry's state does not show: the assignee runs an order ferry reads
   * Offered (it claimed it again after releasing itself: same writer's clock), or the holder runs
   * the next revision of a changes-requested order. `stale` (with `reason`, `since`) when that
   * run's heartbeat (or claim) stopped arriving here; absent otherwise.
   */
  readonly run_lane?: 'running' | 'stale';
  /** Names this folder's `ferry channel retire` releases retire (reason `retired`, by another), sorted; absent when none. */
  readonly retires?: readonly string[];
  /** The order an operator issued to do this one's work (a valid supersede record here), or absent. */
  readonly superseded_by?: string;
  /** The order this one says it replaces (its order.json's `supersedes`, unsigned; the old order's card says so signed). */
  readonly supersedes?: string;
  /**
   * Set by the index, never by derivation: the card was derived from records whose signatures are
   * not checked yet (a cold index shows the board first, issue 14). Actions on it are refused
   * until the check confirms or replaces it. Absent: every signature behind the card was checked.
   */
  readonly unverified?: true;
}

/** Whether a ferry state and a claimboard state are the same up to the documented differences (Stale by arrival; blocked is Open). */
export function agreesWithFerry(ferry: FerryState, state: OrderState): boolean {
  switch (ferry) {
    case 'open':
      return state === 'open' || state === 'blocked';
    case 'claimed':
      return state === 'claimed' || state === 'stale';
    case 'offered':
    case 'awaiting_review':
    case 'changes_requested':
    case 'accepted':
    case 'done':
      return state === ferry;
  }
}

/**
 * The lane of a state with its flags, first match wins (LEDGER.md §7 "Lanes"). `runLane` is the
 * lane of a run ferry's state does not show (an assignee running an order ferry reads Offered,
 * a run of a changes-requested revision): `running`, or `stale` when it stopped (Card.run_lane).
 */
export function laneOf(state: OrderState, flags: readonly AttentionFlag[], runLane?: 'running' | 'stale'): Lane {
  if (flags.length > 0) return 'attention';
  if (runLane !== undefined) return runLane;
  switch (state) {
    case 'stale':
      return 'stale';
    case 'claimed':
    case 'changes_requested':
      return 'running';
    case 'awaiting_review':
      return 'review';
    case 'open':
    case 'offered':
    case 'blocked':
      return 'queue';
    case 'done':
    case 'accepted':
    case 'closed':
    case 'gave_up': // always flagged `gave_up`, so never reached with no flags
      return state === 'gave_up' ? 'attention' : 'done';
  }
}

function pick<R>(list: readonly Arrived<R>[], pred: (r: R) => boolean): Arrived<R> | undefined {
  return list.find((a) => pred(a.record));
}

/**
 * The holder of an order (LEDGER.md §7.1): `assigned_to` when set; otherwise the active
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
 * Staleness of the holder's run on this machine's clock (LEDGER.md §6). `claim` is the
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

/** True when a heartbeat's file arrived within `stale_after` of now (LEDGER.md §6). */
export function isFresh(arrivalMs: number, ctx: DeriveContext): boolean {
  return ctx.nowMs - arrivalMs <= ctx.staleAfterMs;
}

const normTarget = (t: string) => t.trim().toLowerCase();

/**
 * The target an ack of late results names (a claimboard extension, docs/channel-format.md):
 * `late:<revision>:<agents>:<open | held:<holder> | twice:<holder>>`, the agents whose results at
 * that revision are late, sorted and comma-joined (canonical names), and how ferry reads the
 * order: open (it hands it out again), held (it counts the late result) or twice (the holder's
 * own result at that revision too: ferry counts the holder's). A new late result, a worker
 * claiming the order, or the holder's own result arriving makes a new target, so an earlier ack
 * no longer covers it.
 */
export function lateTargetOf(revision: number, agents: readonly string[], holder: string | null, holderResultToo = false): string {
  return `late:${revision}:${[...agents].sort().join(',')}:${holder === null ? 'open' : `${holderResultToo ? 'twice' : 'held'}:${holder}`}`;
}

/**
 * Whether a decision record's target (an ack's, a reopen's) names `target`. One names one target
 * or several, separated by spaces (claimboard's extension: one ack and one reopen file per
 * operator and order, so a new decision of an operator carries the ones of theirs still in force,
 * lib/ledger/actions.ts ackTargetOf, reopenTargetOf). Case and spacing aside.
 */
export function namesTarget(recordTarget: string, target: string): boolean {
  return targetList(recordTarget).split(' ').includes(normTarget(target));
}

/** A decision record's target as compared: trimmed, lowercased, its targets separated by one space. */
export function targetList(recordTarget: string): string {
  return normTarget(recordTarget).split(/\s+/).join(' ');
}

/**
 * Derives one order's card (LEDGER.md §7), except the `blocked` decision, which needs the
 * states of its dependencies: an order with no holder comes back `open` and
 * `resolveDependencies` turns it into `blocked` where a dependency is missing or unfinished.
 * `isOrder` says whether an id names an order of this channel (for `missing_dependency`).
 */
export function deriveOrder(folder: OrderFolder, ctx: DeriveContext, isOrder: (id: string) => boolean): Card {
  const order = folder.order.record;
  const released = new Set(folder.releases.map((r) => r.record.released));
  const holder = holderOf(folder, released);
  const activeClaim = (agent: string) =>
    released.has(agent) ? undefined : pick(folder.claims, (c) => c.agent === agent);

  // latest (LEDGER.md §7): the highest revision. Which result at it is R (the holder's, else the
  // smallest agent's) decides nothing here: a reopen names R by its revision (`result:<latest>`).
  let latest: number | null = null;
  for (const { record: r } of folder.results) if (latest === null || r.revision > latest) latest = r.revision;
  const reopened = (target: string) => folder.reopens.some((r) => namesTarget(r.record.target, target));
  const rReopened = latest !== null && (reopened(`result:${latest}`) || reopened(`review:${latest}`));

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
    const giveupTarget = giveup ? `giveup:${giveup.record.file_digest}` : null;
    if (!claim) {
      state = 'offered';
      // ferry's worker releases an order addressed to itself at startup, then claims and runs it
      // anyway (holder() is the assignee); its claim never counts again, so ferry reads Offered. A
      // heartbeat (or, before one, a claim) written after that release is that run.
      const own = order.assigned_to === holder ? ownRelease(holder) : undefined;
      const c = pick(folder.claims, (x) => x.agent === holder);
      const hb = holderHeartbeat;
      if (own && (hb ? compareTimestamps(hb.record.at, own.record.at) > 0 : c !== undefined && compareTimestamps(c.record.claimed_at, own.record.at) > 0)) {
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
      if (review.record.accepted) target = `review:${latest}`;
      // A run of the next revision leaves its heartbeat until it ends; one its writer released is over.
      const own = holder ? ownRelease(holder) : undefined;
      if (!review.record.accepted && holder && holderHeartbeat && !(own && compareTimestamps(own.record.at, holderHeartbeat.record.at) >= 0)) {
        runOf(holder, pick(folder.claims, (x) => x.agent === holder));
      }
    } else if (order.requires_review) {
      state = 'awaiting_review';
    } else {
      state = 'done';
      target = `result:${latest}`;
    }
  }
  if (holder !== null && holderFresh === null && holderHeartbeat && activeClaim(holder)) {
    holderFresh = isFresh(holderHeartbeat.arrivalMs, ctx);
  }

  // A heartbeat its own writer released after writing it (same clock: `release.at >= heartbeat.at`)
  // is what a dead run leaves behind (ferry's "worker died mid-run" keeps the file), not a live run.
  const leftover = (h: Arrived<HeartbeatRecord>) =>
    folder.releases.some(
      (r) =>
        r.record.released === h.record.agent &&
        r.record.releaser === h.record.agent &&
        compareTimestamps(r.record.at, h.record.at) >= 0,
    );
  // Only while the work is still to be done: a second run of a finished order is waste, and a
  // result it writes later is flagged as a late result then (a dead loser's heartbeat stays for ever).
  const otherRuns = holder && UNFINISHED.has(state)
    ? [
        ...new Set(
          folder.heartbeats
            .filter((h) => h.record.agent !== holder && isFresh(h.arrivalMs, ctx) && !leftover(h))
            .map((h) => h.record.agent),
        ),
      ].sort()
    : [];
  // A result decides the state when it is at the latest revision with no review yet; one by an
  // agent that does not hold the order is work the fleet did not hand out (ferry counts it all the same).
  // Where the holder has its own result at latest, R is the holder's (the note above) and another
  // agent's at that revision is the same work done twice: still a person's to look at.
  const reviewedLatest = latest !== null && folder.reviews.some((r) => r.record.revision === latest);
  const holderHasLatest = latest !== null && holder !== null && folder.results.some((r) => r.record.revision === latest && r.record.agent === holder);
  // A reopened latest result is an operator's decision on that revision already: no alarm about it.
  const lateResults =
    latest === null || reviewedLatest || rReopened
      ? []
      : [...new Set(folder.results.filter((r) => r.record.revision === latest && r.record.agent !== holder).map((r) => r.record.agent))].sort();
  const missing = order.depends_on.filter((d) => !isOrder(d));

  // Releases of an assignee: its own (ferry's restart "orphaned at startup", a dead run) are
  // routine; a retire's (reason "retired", by another) retires the name here; any other by another
  // is an operator's re-queue that ferry does not honour for an addressed order.
  const assignee = order.assigned_to;
  const byOthers = assignee === null ? [] : folder.releases.filter((r) => r.record.released === assignee && r.record.releaser !== assignee);
  const retiredHere = byOthers.find((r) => r.record.reason.trim() === 'retired');
  const retiredHolder =
    holder !== null &&
    (ctx.retired.has(holder) || (retiredHere !== undefined && holder === assignee) || (ctx.ferryRetired?.has(holder) === true && holderFresh !== true));
  const unfinished = UNFINISHED.has(state);

  const alerts: Alert[] = [];
  const notes: string[] = [];
  const raise = (flag: AttentionFlag, text: string) => {
    if (!alerts.some((a) => a.flag === flag)) alerts.push({ flag, text });
  };
  if (state === 'gave_up') raise('gave_up', `${holder ?? 'the holder'} gave up: ${reason?.trim() || 'no reason given'}; acknowledge it or re-queue it`);
  if (otherRuns.length > 0) {
    raise('double_run', `${words(otherRuns)} ${otherRuns.length > 1 ? 'are' : 'is'} also running it (a fresh heartbeat here) while ${holder} holds it: two machines are doing one task`);
  }
  // An operator's ack naming exactly these late results (docs/channel-format.md, an extension) says
  // a person has decided: the flag is lowered. Another late result, or a change between open and
  // held, changes the target and raises it again.
  const lateTarget = lateResults.length > 0 ? lateTargetOf(latest ?? 0, lateResults, holder, holderHasLatest) : undefined;
  const lateAck = lateTarget ? folder.acks.find((a) => namesTarget(a.record.target, lateTarget)) : undefined;
  const lateWho = `${lateResults.length > 1 ? 'results' : 'result'} by ${words(lateResults)}`;
  // Each operator's ack and reopen as they read now: the operator's next file of that kind replaces
  // it and names all of it again, so that nothing decided is undone (actions.ts).
  const decidedBy = (rs: readonly { readonly record: { readonly operator: string; readonly target: string } }[]) =>
    Object.fromEntries(rs.map((r) => [r.record.operator, targetList(r.record.target)] as const));
  const decided = folder.acks.length + folder.reopens.length > 0 ? { acks: decidedBy(folder.acks), reopens: decidedBy(folder.reopens) } : undefined;
  if (lateTarget && lateAck) {
    const note = lateAck.record.note.trim();
    notes.push(`${lateAck.record.operator} acknowledged the late ${lateWho}${note ? ` ("${note}")` : ''}: ${holder === null ? 'ferry hands the order out again' : holderHasLatest ? `ferry counts ${holder}'s` : 'ferry counts it'}`);
  } else if (lateTarget) {
    raise(
      'late_result',
      holder === null
        ? `${lateWho}, whose claim was released: ferry reads the order as open and will hand it out again; acknowledge it if that is fine`
        : holderHasLatest
          ? `${lateWho} at revision ${latest} as well as ${holder}'s, who holds it: the work was done twice; ferry counts ${holder}'s; acknowledge it if that is fine`
          : `${lateWho}, who ${lateResults.length > 1 ? 'do' : 'does'} not hold it (${holder} does): ferry counts it all the same; acknowledge it if that result stands${state === 'done' || state === 'accepted' || state === 'closed' ? ', or reopen it' : ''}`,
    );
  }
  // A supersede moved the work to a new order: what ferry still does with this one is no longer a person's to fix.
  const supersede = [...folder.supersedes].sort((a, b) => (a.record.by < b.record.by ? -1 : 1))[0]?.record;
  if (supersede) notes.push(`superseded by ${supersede.by} (${supersede.operator}: ${supersede.reason}); ferry still reads this order as before`);
  if (retiredHolder && holder !== null && unfinished && !supersede) {
    const how = ctx.retired.has(holder) ? 'retired' : retiredHere ? `retired by ${retiredHere.record.releaser}` : 'released elsewhere by ferry channel retire';
    raise(
      'retired_holder',
      holder === assignee
        ? `addressed to ${holder}, ${how}: ferry offers it to ${holder} for ever and to nobody else; supersede it with a new order`
        : `held by ${holder}, ${how}: nobody will finish it; re-queue it`,
    );
  }
  if (assignee !== null && !retiredHolder && state === 'offered' && !supersede) {
    const other = byOthers.find((r) => r.record.reason.trim() !== 'retired');
    if (other) {
      raise(
        'released_assignee',
        `${other.record.releaser} released ${assignee}'s claim, but the order is addressed to ${assignee}: ferry keeps offering it to ${assignee}, whose next poll runs it again; to move it, supersede it with a new order`,
      );
    }
  }
  if (folder.problemCount > 0) raise('bad_record', badRecordText(folder, holder, state));
  if (folder.conflictCount > 0) raise('sync_conflict', 'two machines wrote one path here (a Syncthing conflict copy): see Files');
  if (missing.length > 0) raise('missing_dependency', missingText(missing));

  // Interrupts (C/interrupt.rs): a worker reads them only when a run starts, acknowledges each
  // with interrupt.<issuer>.<agent>.acked.json, and a kill or pause only deletes its own claim.
  for (const i of folder.interrupts) {
    const it = i.record;
    const acks = folder.interruptAcks.filter((a) => a.record.issued_by === it.issued_by);
    const ackedBy = [...new Set(acks.map((a) => a.record.agent))].sort();
    const verb = it.action === 'kill' ? 'kill' : it.action === 'pause' ? 'pause' : 'steer';
    if (!unfinished) {
      // Done all the same: the kill held for one pass only, or came while a run was going (ferry
      // reads interrupts only when a run starts). The result stands; a person should know.
      const done = state === 'done' || state === 'accepted' || state === 'awaiting_review';
      if (done && (it.action === 'kill' || it.action === 'pause')) {
        raise(
          'stop_not_holding',
          ackedBy.length > 0
            ? `${it.issued_by}'s ${verb} ("${it.note}") was acknowledged by ${words(ackedBy)}, but the work was done anyway (ferry ran it again on a later pass): the result stands`
            : `${it.issued_by}'s ${verb} ("${it.note}") was never read: the run that finished had started before it (ferry reads interrupts only when a run starts), so the result stands`,
        );
      }
      continue;
    }
    if ((it.action === 'kill' || it.action === 'pause') && ackedBy.length > 0) {
      const who = words(ackedBy);
      const next =
        state === 'claimed' || state === 'stale' || state === 'changes_requested'
          ? `${holder} is running it again`
          : assignee !== null
            ? `ferry still offers it to ${assignee}, whose next poll runs it again`
            : 'ferry offers it to every worker again';
      raise('stop_not_holding', `${it.issued_by}'s ${verb} ("${it.note}") was acknowledged by ${who}, but ferry has no way to withdraw an order: ${next}`);
      continue;
    }
    const running = holder !== null && (state === 'claimed' || state === 'stale' || state === 'changes_requested');
    if (running && !ackedBy.includes(holder)) {
      if (ctx.nowMs - i.arrivalMs > ctx.staleAfterMs) {
        raise(
          'interrupt_unacknowledged',
          `${it.issued_by}'s ${verb} ("${it.note}") arrived ${Math.round((ctx.nowMs - i.arrivalMs) / 60000)} min ago and ${holder} has not acknowledged it: ferry reads interrupts only when a run starts, so the run going now continues`,
        );
      } else {
        notes.push(`${it.issued_by}'s ${verb} is not acknowledged by ${holder} yet (ferry reads interrupts when a run starts)`);
      }
    }
  }
  alerts.sort(byFlagOrder);
  // An open order every worker of the roster has released itself from: ferry never counts a
  // released claim again and claim_order never rewrites one, so none of them will take it.
  if (holder === null && ctx.workers && ctx.workers.size > 0 && state === 'open' && !supersede) {
    const selfReleased = new Set(folder.releases.filter((r) => r.record.releaser === r.record.released).map((r) => r.record.released));
    if ([...ctx.workers].every((w) => selfReleased.has(w))) {
      raise(
        'no_worker_left',
        `every worker of the roster (${words([...ctx.workers].sort())}) released its own claim on it: ferry never lets an agent claim an order again once its claim is released, so no worker will take it; supersede it with a new order`,
      );
      alerts.sort(byFlagOrder);
    }
  }
  const flags: AttentionFlag[] = alerts.map((a) => a.flag);
  if (runNote) notes.unshift(runNote);
  const retires = [...new Set(folder.releases.filter((r) => r.record.reason.trim() === 'retired' && r.record.releaser !== r.record.released).map((r) => r.record.released))].sort();

  // ferry's own verdict (C/lib.rs Task::state_at), with its Stale folded into claimed.
  const ferryState: FerryState =
    holder === null
      ? 'open'
      : latest === null
        ? activeClaim(holder)
          ? 'claimed'
          : 'offered'
        : (() => {
            const review = pick(folder.reviews, (r) => r.revision === latest);
            if (review) return review.record.accepted ? 'accepted' : 'changes_requested';
            return order.requires_review ? 'awaiting_review' : 'done';
          })();
  const ferryNote = agreesWithFerry(ferryState, state) ? undefined : ferryDifference(ferryState, state, holder);

  return {
    order_id: order.id,
    state,
    lane: laneOf(state, flags, runLane),
    holder,
    flags,
    ...(reason !== undefined ? { reason } : {}),
    ...(sinceMs !== undefined ? { since: formatLocalInstant(sinceMs), since_ms: sinceMs } : {}),
    ...(target !== undefined ? { target } : {}),
    ...(lateTarget ? { late_target: lateTarget } : {}),
    ...(decided ? { decided } : {}),
    project_id: order.project_id,
    assigned_to: order.assigned_to,
    issued_by: order.issued_by,
    created_at: order.created_at.text,
    depends_on: order.depends_on,
    requires_review: order.requires_review,
    latest_revision: latest,
    holder_fresh: holderFresh,
    heartbeat: holderHeartbeat
      ? {
          arrival_ms: holderHeartbeat.arrivalMs,
          at: holderHeartbeat.record.at.text,
          run: holderHeartbeat.record.run,
          pid: holderHeartbeat.record.pid,
        }
      : null,
    missing_dependencies: missing,
    other_runs: otherRuns,
    late_results: lateResults,
    ferry: { state: ferryState, holder },
    ...(ferryNote !== undefined ? { ferry_note: ferryNote } : {}),
    ...(runLane !== undefined ? { run_lane: runLane } : {}),
    ...(retires.length > 0 ? { retires } : {}),
    alerts,
    notes,
    ...(supersede ? { superseded_by: supersede.by } : {}),
    ...(order.supersedes ? { supersedes: order.supersedes } : {}),
  };
}

/** States in which the work is still to be done (or being done): where a missed stop or a lost holder matters. */
const UNFINISHED: ReadonlySet<OrderState> = new Set<OrderState>(['open', 'offered', 'blocked', 'claimed', 'stale', 'changes_requested']);

/**
 * LEDGER.md §7.2: an order with no holder is `blocked` when a `depends_on` order is missing
 * or not `done`/`accepted`, else `open`. `stateOf` gives the (already derived) state of
 * another order, or undefined when it is not an order. Returns the card unchanged or blocked.
 */
export function resolveDependencies(card: Card, stateOf: (id: string) => OrderState | undefined): Card {
  if (card.holder !== null || card.state !== 'open') return card;
  const blocked = card.depends_on.some((d) => {
    const s = stateOf(d);
    return s !== 'done' && s !== 'accepted';
  });
  if (!blocked) return card;
  return { ...card, state: 'blocked', lane: laneOf('blocked', card.flags) };
}

/** A retirement counts when valid (LEDGER.md §4); the set of retired canonical names. */
export function retiredAgents(retirements: readonly RetirementRecord[]): Set<string> {
  return new Set(retirements.map((r) => r.agent));
}

/**
 * Re-applies the parts of a card that depend on the rest of the channel, for an index that
 * derives orders one at a time: the stale reason (`agent_silent` vs `heartbeat_lapsed`, LEDGER.md
 * §6, from the holder's latest arrival anywhere), `missing_dependency` and `blocked` (§7.2).
 * `card` must come from deriveOrder; `isOrder`/`stateOf` describe the channel now. With
 * `holdOf`, also this machine's reaper holds (issue 16): the `dead_run_held` flag with the
 * reason `holdOf` gives for the card (undefined: no hold stands, any earlier flag is dropped).
 * Pure.
 */
export function withChannelFacts(
  card: Card,
  facts: {
    readonly nowMs: number;
    readonly staleAfterMs: number;
    readonly lastArrivalOf: (agent: string) => number | undefined;
    readonly isOrder: (id: string) => boolean;
    readonly stateOf: (id: string) => OrderState | undefined;
    readonly holdOf?: (card: Card) => string | undefined;
  },
): Card {
  let c: Card = card;
  if ((c.state === 'stale' || c.run_lane === 'stale') && c.holder && (c.reason === 'agent_silent' || c.reason === 'heartbeat_lapsed')) {
    const last = Math.max(facts.lastArrivalOf(c.holder) ?? -Infinity, c.heartbeat?.arrival_ms ?? -Infinity);
    const reason: StaleReason = facts.nowMs - last > facts.staleAfterMs ? 'agent_silent' : 'heartbeat_lapsed';
    if (reason !== c.reason) c = { ...c, reason };
  }
  const missing = c.depends_on.filter((d) => !facts.isOrder(d));
  const hadMissing = c.flags.includes('missing_dependency');
  if ((missing.length > 0) !== hadMissing || missing.join(',') !== c.missing_dependencies.join(',')) {
    const alerts: Alert[] = (c.alerts ?? []).filter((a) => a.flag !== 'missing_dependency');
    if (missing.length > 0) alerts.push({ flag: 'missing_dependency', text: missingText(missing) });
    alerts.sort(byFlagOrder);
    const flags: AttentionFlag[] = alerts.map((a) => a.flag);
    c = { ...c, flags, alerts, missing_dependencies: missing, lane: laneOf(c.state, flags, c.run_lane) };
  }
  if (c.holder === null && (c.state === 'open' || c.state === 'blocked')) {
    const blocked = c.depends_on.some((d) => {
      const s = facts.stateOf(d);
      return s !== 'done' && s !== 'accepted';
    });
    const state: OrderState = blocked ? 'blocked' : 'open';
    if (state !== c.state) c = { ...c, state, lane: laneOf(state, c.flags) };
  }
  if (facts.holdOf) c = withHold(c, facts.holdOf(c));
  return c;
}

/** `card` with the `dead_run_held` alert `text` (undefined: without it); the same card when nothing changes. */
function withHold(card: Card, text: string | undefined): Card {
  const alerts0 = card.alerts;
  const had = alerts0.find((a) => a.flag === 'dead_run_held');
  if (had?.text === text) return card;
  const alerts: Alert[] = alerts0.filter((a) => a.flag !== 'dead_run_held');
  if (text !== undefined) alerts.push({ flag: 'dead_run_held', text });
  alerts.sort(byFlagOrder);
  const flags: AttentionFlag[] = alerts.map((a) => a.flag);
  return { ...card, flags, alerts, lane: laneOf(card.state, flags, card.run_lane) };
}
