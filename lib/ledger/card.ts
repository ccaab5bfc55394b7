/**
 * The card of one order and the words it is built from: states, lanes, attention flags, the
 * folder as derivation sees it, and the lane a state and its flags put a card in. Types and
 * constants only (besides `laneOf`), so the rulebook's parts can share them without a cycle.
 */
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
  ReviewRecord,
} from './records';
import type { FerryState } from './ferry-states';
import type { LedgerFacts } from './ledger-facts';

export type { FerryState } from './ferry-states';

/** Derived order states, in the order the pages list them. */
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

/** Board lanes, leftmost first. */
export const LANES = ['attention', 'stale', 'running', 'review', 'queue', 'done'] as const;
export type Lane = (typeof LANES)[number];

/** Attention flags, in the order the pages list them; any flag puts the order in the Needs-attention lane. */
export const ATTENTION_FLAGS = [
  'gave_up',
  'double_run',
  'late_result',
  'retired_holder',
  'released_assignee',
  'unknown_assignee',
  'review_loop',
  'bad_record',
  'sync_conflict',
  'missing_dependency',
  'interrupt_unacknowledged',
  'stop_not_holding',
  'no_worker_left',
  // Raised by this machine's reaper state, never by derivation: lib/index/local-overlay.ts.
  'dead_run_held',
] as const;
export type AttentionFlag = (typeof ATTENTION_FLAGS)[number];

/** Why a claimed order is stale. */
export type StaleReason = 'no_heartbeat' | 'agent_silent' | 'heartbeat_lapsed';

/** Terminal (sink) states: only a reopen leaves them. */
export const TERMINAL_STATES: ReadonlySet<OrderState> = new Set<OrderState>(['done', 'accepted', 'closed']);

/** A record together with when its file arrived here (local clock, ms) and its path. */
export interface Arrived<R> {
  readonly record: R;
  readonly arrivalMs: number;
  readonly path: string;
}

/**
 * Everything valid in one order's folder, ready for derivation. Records with problems are
 * absent; `problemCount` and `conflictCount` say how many problem rows the
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

/** An attention flag with the reason a person reads on the card. */
export interface Alert {
  readonly flag: AttentionFlag;
  readonly text: string;
}

/** What deriving one order needs from the rest of the channel. */
export interface DeriveContext {
  /** This machine's clock, ms since the epoch. */
  readonly nowMs: number;
  /** `stale_after` in ms (default 300 000). */
  readonly staleAfterMs: number;
  /** Canonical names with a valid retirement. */
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
  /**
   * Every name the roster knows, of any role: roster entries (keyless reservations included), the
   * fleet roster's, the master and its grants. Absent: not known (no `unknown_assignee` then).
   */
  readonly known?: ReadonlySet<string>;
  /** Names whose reviews are a person's (the roster's operators). Absent: none known. */
  readonly persons?: ReadonlySet<string>;
  /**
   * What the signers' verified ledger lines say (retires, interrupts issued per order;
   * ledger-facts.ts). Absent: not read, and the rules that use them say less.
   */
  readonly ledger?: LedgerFacts;
  /** Latest local arrival (ms) of any file written by each agent. */
  readonly lastArrivalByAgent: ReadonlyMap<string, number>;
}

/** The card of one order: state, lane, holder, flags, and why. */
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
  /** What an operator's decision on the current state names. */
  readonly target?: string;
  /**
   * What an acknowledgement of the late results names (lib/ledger/targets.ts), present whenever there are
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
  /** Whether the holder's heartbeat is fresh; null when there is no holder claim. */
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
   * not checked yet (a cold index shows the board first). Actions on it are refused
   * until the check confirms or replaces it. Absent: every signature behind the card was checked.
   */
  readonly unverified?: true;
}


/** States in which the work is still to be done (or being done): where a missed stop or a lost holder matters. */
export const UNFINISHED: ReadonlySet<OrderState> = new Set<OrderState>(['open', 'offered', 'blocked', 'claimed', 'stale', 'changes_requested']);

/**
 * The lane of a state with its flags, first match wins. `runLane` is the
 * lane of a run ferry's state does not show (an assignee running an order ferry reads Offered,
 * a run of a changes-requested revision): `running`, or `stale` when it stopped (Card.run_lane).
 * A changes-requested order with no such run waits in the Queue: ferry's `work_for` offers it to
 * its holder alone, whose next pass writes the next revision; no file shows it running.
 */
export function laneOf(state: OrderState, flags: readonly AttentionFlag[], runLane?: 'running' | 'stale'): Lane {
  if (flags.length > 0) return 'attention';
  if (runLane !== undefined) return runLane;
  switch (state) {
    case 'stale':
      return 'stale';
    case 'claimed':
      return 'running';
    case 'awaiting_review':
      return 'review';
    case 'open':
    case 'offered':
    case 'blocked':
    case 'changes_requested':
      return 'queue';
    case 'done':
    case 'accepted':
    case 'closed':
    case 'gave_up': // always flagged `gave_up`, so never reached with no flags
      return state === 'gave_up' ? 'attention' : 'done';
  }
}

/**
 * Where a card sorts in its lane, before its order id: its `since_ms` (the arrival its state
 * counts from), 0 when it has none. The index keeps it as `cards.sort_ms` (its keyset pages), and
 * a hub's board merges the channels' pages by it.
 */
export function laneSortMs(card: Pick<Card, 'since_ms'>): number {
  return card.since_ms ?? 0;
}
