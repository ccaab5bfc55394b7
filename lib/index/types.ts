/**
 * The index's read models: what the read side (queries.ts, activity.ts, lib/alerts/status.ts)
 * answers and the writer stores, which the HTTP API sends as they are (lib/api/types.ts
 * re-exports them for the pages). Types only, so the browser may import them.
 * All times named `*_ms` are milliseconds since the epoch on THIS machine's clock (arrivals,
 * `since`); all times named `writer_*` or `at`/`*_at` strings are RFC 3339 as the writer's
 * clock wrote them (display only, never compared with ours: docs/channel-format.md).
 */
import type { RetireStep } from '../ledger/actions';
import type { Card, Lane, OrderState } from '../ledger/derive';
import type { ProblemCode } from '../ledger/channel';
import type { TimelineEvent } from '../ledger/timeline';
import type { Act } from '../ledger/acts';
import type { LivenessVerdict } from '../ledger/liveness';
import type { Hold, HoldRow } from '../ledger/holds';
import type { AgentNumbers, FleetNumbers } from '../ledger/hold-numbers';
import type { RangeName } from '../query/window';

/**
 * What THIS machine knows of a card's run: present only when
 * the holder is an agent local to the server's machine and has a heartbeat; a pid means nothing
 * anywhere else, so other machines' answers never carry it.
 */
export interface CardLocal {
  readonly verdict: LivenessVerdict;
  readonly pid: number;
  /** The sentence: "dead: pid 12345 is gone on this machine", "alive: pid 12345 is running here (slow, not orphaned)". */
  readonly text: string;
}

/** A card as the board and order answers send it: the derived card plus this machine's local facts, when any. */
export type BoardCard = Card & {
  readonly local?: CardLocal;
  /** The Stale reason's local detail (only on a stale card or a stale run lane with a local verdict). */
  readonly stale_detail?: 'dead_local' | 'alive_local';
};

/** Indexing progress (first index of a large folder). */
export interface IndexProgress {
  /**
   * `verifying`: a cold index has read the whole folder and shows the board, every card from
   * records not verified yet marked `unverified` (actions on them refused), while it checks
   * their signatures behind it (cold-pass.ts).
   */
  readonly phase: 'starting' | 'scanning' | 'reading' | 'deriving' | 'verifying' | 'ready';
  readonly files_seen: number;
  readonly files_read: number;
  readonly files_verified: number;
  /** Signatures the board was shown with unchecked, and how many of them are checked so far (absent: none deferred). */
  readonly signatures_to_check?: number;
  readonly signatures_checked?: number;
  /** When the first complete index finished (ms, local), or null. */
  readonly ready_at_ms: number | null;
}

/** Why the board may not be current. */
export type HealthCode =
  /** A write into the index failed (disk full, I/O error): the board is the last good one; retried. */
  | 'index_write_failed'
  /** The database file was deleted or replaced while serving: being rebuilt from the folder. */
  | 'index_rebuilding'
  /** The channel folder is gone (renamed away, unmounted): the board is not the folder's. */
  | 'folder_missing'
  /** A folder of the channel cannot be listed (its permissions): the board lacks what is in it. */
  | 'folder_unreadable';

/**
 * The index's health (lib/index/health.ts, the writing process's word): `ok`, or `degraded` with
 * why. `since_ms`: when it began, this machine's wall clock (Date.now); `retries`: failed
 * attempts since.
 */
export type IndexHealth =
  | { readonly state: 'ok' }
  | { readonly state: 'degraded'; readonly code: HealthCode; readonly reason: string; readonly since_ms: number; readonly retries: number };

/** GET /api/board: lanes with counts and the first page of each (or one lane's next page). */
export interface BoardResponse {
  readonly channel: string;
  readonly now_ms: number;
  readonly stale_after_ms: number;
  readonly progress: IndexProgress;
  /** Whether this server accepts operator actions (false in read-only mode). */
  readonly actions_enabled: boolean;
  readonly lanes: readonly LanePage[];
  /** Total problem rows in the channel. */
  readonly problem_count: number;
  /** Canonical names of the roster, for the agent filter. */
  readonly agents: readonly string[];
  /** Names whose key in the folder differs from the pinned key. */
  readonly key_changes: readonly string[];
  /** Whether the board is current (GET /api/board adds it; absent: nothing was reported). */
  readonly index_health?: IndexHealth;
}
export interface LanePage {
  readonly lane: Lane;
  /** Cards in this lane matching the filters. */
  readonly count: number;
  readonly cards: readonly BoardCard[];
  /** Opaque keyset cursor for `GET /api/board?lane=L&cursor=C`, or null at the end. */
  readonly next_cursor: string | null;
}

/** A file of an order's folder with what claimboard made of it. */
export interface OrderFile {
  readonly path: string;
  readonly arrival_ms: number;
  readonly status: 'record' | 'problem';
  readonly kind: string | null;
  readonly problem?: ProblemCode;
  readonly detail?: string;
}

/** Heartbeats seen for one run on this order (the index remembers first and last arrival). */
export interface RunSeen {
  readonly agent: string;
  readonly run: string;
  readonly pid: number;
  readonly first_arrival_ms: number;
  readonly last_arrival_ms: number;
  /** The last heartbeat's own `at` (writer clock). */
  readonly last_writer_at: string;
  readonly beats: number;
}

/** GET /api/orders/:id */
export interface OrderResponse {
  readonly card: BoardCard;
  readonly order: {
    readonly id: string;
    readonly project_id: string;
    readonly issued_by: string;
    readonly assigned_to: string | null;
    readonly created_at: string;
    readonly requires_review: boolean;
    readonly requires_approval: boolean;
    readonly depends_on: readonly string[];
    /** The result fields the order requires (ferry's `result_contract.required`), or null. */
    readonly result_contract: { readonly required: readonly string[] } | null;
    /** The order this one says it replaces (its order.json's `supersedes`), or null. */
    readonly supersedes: string | null;
    /**
     * The payload as a plain value (what JSON gives a browser: a number beyond double precision,
     * or -0, does not survive it) and D(payload) of the payload as written, to tell whether the
     * plain value is still the same task (lib/client/supersede.ts `payloadCopiesExactly`).
     */
    readonly payload: unknown;
    readonly payload_digest: string;
  };
  readonly timeline: readonly TimelineEvent[];
  readonly runs: readonly RunSeen[];
  readonly files: readonly OrderFile[];
  /** Orders that depend on this one, with their states. */
  readonly dependents: readonly { readonly order_id: string; readonly state: OrderState }[];
  readonly now_ms: number;
  readonly stale_after_ms: number;
}

/** GET /api/agents */
export interface AgentsResponse {
  readonly agents: readonly AgentSummary[];
  readonly now_ms: number;
}
export interface AgentSummary {
  readonly name: string;
  readonly role: string;
  readonly is_operator: boolean;
  /** Whether its release of another's claim or its interrupt counts as deliberate (operator, master, orchestrator). */
  readonly is_authority?: boolean;
  readonly retired: boolean;
  /** Pinned key (hex) or null. */
  readonly public_key: string | null;
  /** True when the folder now carries a different key (a key_changed problem). */
  readonly key_changed: boolean;
  /** Number of orders whose card names it as holder, those in the Done lane included. */
  readonly holding: number;
  /** Last arrival here of any file it wrote, ms local, or null. */
  readonly last_arrival_ms: number | null;
  /** Estimated clock-plus-sync offset: its heartbeats' `at` minus their arrival here, ms (median), or null. */
  readonly clock_offset_ms: number | null;
}

/** An agents row of the index: the summary plus what the agent page shows. */
export type StoredAgent = AgentSummary & {
  readonly capabilities: readonly string[];
  readonly folder_key: string | null;
  readonly retirement: { readonly operator: string; readonly reason: string; readonly at: string; readonly arrival_ms: number } | null;
};

/** GET /api/agents/:name */
export interface AgentResponse {
  readonly agent: AgentSummary & {
    readonly capabilities: readonly string[];
    readonly folder_key: string | null;
    readonly retirement: { readonly operator: string; readonly reason: string; readonly at: string; readonly arrival_ms: number } | null;
  };
  /** Cards of the orders it holds now, those in the Done lane left out (`finished` counts them). */
  readonly holds: readonly Card[];
  /** Orders in the Done lane whose card names it as holder (the board's `agent:<name> lane:done` lists them, a page at a time). */
  readonly finished: number;
  /** How many earlier holds it has in all; `held` lists at most HELD_SHOWN of them. */
  readonly held_total: number;
  /** Its ended holds, the fleet history's rows (lib/ledger/holds.ts): the first HELD_SHOWN, finished ones last, each by order id; with the order's state now (null: the order left the index). */
  readonly held: readonly (Hold & { readonly state: OrderState | null })[];
  /**
   * Orders a retirement would release now, the act's own rule (lib/ledger/actions.ts retirePlan:
   * a claim with no result of its own, or addressed to it with no result; not released already).
   */
  readonly retire_plan: readonly string[];
  /**
   * The same orders with what ferry then does with each (retireSteps), read from the folder as
   * the act reads it; absent when the folder could not be read (then retire_plan is the index's).
   */
  readonly retire_steps?: readonly RetireStep[];
  /** Whether any heartbeat of it arrived within stale_after (retiring it needs two confirmations). */
  readonly looks_alive: boolean;
  readonly stale_after_ms: number;
  readonly now_ms: number;
}

/** GET /api/problems */
export interface ProblemsResponse {
  readonly problems: readonly { readonly path: string; readonly problem: ProblemCode; readonly detail: string; readonly line?: number; readonly order_id?: string }[];
  readonly ledger: Readonly<Record<string, { readonly entries: number; readonly intact: boolean; readonly broken_at?: number }>>;
}

/** Server-sent event on /api/events: `event: changed`, data = this. */
export interface ChangedEvent {
  readonly seq: number;
  /** Order ids whose card changed; empty with `all: true` when everything should be refetched. */
  readonly orders: readonly string[];
  readonly all: boolean;
}

/** One alert target in GET /api/alerts. */
export interface AlertTargetStatus {
  /** A short hash of the target (its URL is a secret and never stored). */
  readonly id: string;
  readonly kind: 'webhook' | 'command';
  /** Redacted: a webhook as `scheme://host/…` (its path and query usually hold the secret), a command by its first word. */
  readonly label: string;
  readonly last_success_ms: number | null;
  readonly last_error: string | null;
  readonly last_error_ms: number | null;
  /** Messages delivered, and given up on, since the index was made. */
  readonly sent: number;
  readonly failed: number;
  /** Messages still owed (waiting, being tried, or waiting to retry). */
  readonly pending: number;
  /** Its last attempt failed (after its last success). */
  readonly failing: boolean;
}

/** GET /api/alerts: what `serve --alert-webhook / --alert-command` sends and how it goes. */
export interface AlertsResponse {
  /** Whether this server sends alerts (false: every other field is empty). */
  readonly configured: boolean;
  /** `ok`, `failing` (a target's last attempt failed), or `off` (not configured). */
  readonly status: 'ok' | 'failing' | 'off';
  readonly now_ms: number;
  /** The quiet period (`--alert-after`), ms. */
  readonly after_ms: number;
  /** The board address the payloads' `url` starts with. */
  readonly base_url: string | null;
  readonly targets: readonly AlertTargetStatus[];
  /** Items paging now: sent (`sent_ms`), or in their quiet period (`sent_ms` null); `gone_ms` set once gone, before `resolved`. */
  readonly open: readonly {
    readonly key: string;
    readonly kind: 'attention' | 'stale' | 'problem';
    readonly order_id: string | null;
    readonly path: string | null;
    readonly reason: string;
    readonly first_seen_ms: number;
    readonly sent_ms: number | null;
    readonly gone_ms: number | null;
  }[];
  /** The newest messages (at most 20), each with how its delivery to its target went. */
  readonly recent: readonly {
    readonly id: number;
    readonly target: string;
    readonly event: 'attention' | 'stale' | 'problem' | 'resolved';
    readonly order_id: string | null;
    readonly text: string;
    readonly created_ms: number;
    readonly status: 'pending' | 'sent' | 'failed';
    readonly attempts: number;
    readonly done_ms: number | null;
    readonly last_error: string | null;
  }[];
}

/** A ledger file of an authority as the activity read it. */
export interface ActivityLedger {
  readonly path: string;
  /** Its signer (canonical), or null for the legacy `ledger.jsonl`. */
  readonly signer: string | null;
  /** Lines read (reading stops at the first line that does not parse). */
  readonly entries: number;
  readonly intact: boolean;
  readonly broken_at?: number;
  readonly reason?: string;
}

/** GET /api/activity: operator acts, newest first (arrival here), one keyset page. */
export interface ActivityResponse {
  readonly acts: readonly Act[];
  /** Acts matching the filters. */
  readonly total: number;
  /** Opaque keyset cursor for `GET /api/activity?...&cursor=C`, or null at the end. */
  readonly next_cursor: string | null;
  /** Every name that acted (whatever the filters), for the operator filter. */
  readonly operators: readonly string[];
  /** The authorities' ledger files. */
  readonly ledgers: readonly ActivityLedger[];
  readonly now_ms: number;
}

/** GET /api/holds: one keyset page of the holds of a window, by claim arrival here (lib/index/read/holds-queries.ts). */
export interface HoldsResponse {
  readonly holds: readonly HoldRow[];
  /** The next page's cursor, or null on the last page. */
  readonly next_cursor: string | null;
  /** The window, ms, this machine's clock: holds overlapping [from_ms, to_ms). */
  readonly from_ms: number;
  readonly to_ms: number;
  /** The named range before now the window is, or null (from and to). */
  readonly range: RangeName | null;
  /** Whether no window was asked for and the range was fitted to the holds (lib/query/window.ts fitRange). */
  readonly fitted: boolean;
  readonly now_ms: number;
  readonly stale_after_ms: number;
}

/** An agent's row of the fleet history: who it is, how far its clock is from ours, its numbers. */
export interface HistoryAgent {
  readonly name: string;
  /** Its roster role, or '(not in the roster)'. */
  readonly role: string;
  readonly retired: boolean;
  /** AgentSummary.clock_offset_ms: its heartbeats' `at` minus their arrival here (median), or null. */
  readonly clock_offset_ms: number | null;
  readonly numbers: AgentNumbers;
}

/** An operator act in the window, as a mark on the history (an Act of GET /api/activity, shortened). */
export type HistoryAct = Pick<Act, 'key' | 'act' | 'operator' | 'order_id' | 'agent' | 'orders' | 'detail' | 'reason' | 'writer_time'> & { readonly arrival_ms: number };

/** GET /api/history: what /history draws for a window and a query. */
export interface HistoryResponse {
  readonly from_ms: number;
  readonly to_ms: number;
  /** As HoldsResponse's: the named range, and whether it was fitted. */
  readonly range: RangeName | null;
  readonly fitted: boolean;
  readonly now_ms: number;
  readonly stale_after_ms: number;
  /** The first `drawn_limit` holds of the window by claim arrival, the rows GET /api/holds pages through. */
  readonly holds: readonly HoldRow[];
  /** How many holds the window has under the query. */
  readonly total: number;
  readonly drawn_limit: number;
  /** The agents with holds in the window, by role, then name. */
  readonly agents: readonly HistoryAgent[];
  readonly fleet: FleetNumbers;
  /** Operator acts that arrived in the window, oldest first (at most `acts_limit`). */
  readonly acts: readonly HistoryAct[];
  readonly acts_limit: number;
}
