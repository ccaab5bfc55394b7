/**
 * Shapes of the HTTP API, shared by route handlers and the pages. The
 * answers are the index's read models (lib/index/types.ts) and the core's types, re-exported
 * here so the pages have one place to import them from; only the request side lives here.
 */
import type { BoardCard, BoardResponse, ChangedEvent, IndexHealth, IndexProgress } from '../index/types';
import type { Lane } from '../ledger/derive';

export type { Act, ActFilters, ActKind } from '../ledger/acts';
export type { AttentionFlag, Card, Lane, OrderState } from '../ledger/derive';
export type { ProblemCode } from '../ledger/channel';
export type { TimelineEvent } from '../ledger/timeline';
export type { Hold, HoldEnding, HoldRow, Silence } from '../ledger/holds';
export type { AgentNumbers, FleetNumbers, StaleNumbers } from '../ledger/hold-numbers';
export type {
  ActivityLedger,
  ActivityResponse,
  AgentResponse,
  AgentsResponse,
  AgentSummary,
  AlertsResponse,
  AlertTargetStatus,
  BoardCard,
  BoardResponse,
  CardLocal,
  ChangedEvent,
  HealthCode,
  HistoryAct,
  HistoryAgent,
  HistoryResponse,
  HoldsResponse,
  IndexHealth,
  IndexProgress,
  LanePage,
  OrderFile,
  OrderResponse,
  ProblemsResponse,
  RunSeen,
  StoredAgent,
} from '../index/types';

/** The most cards one lane page may ask for (`limit` of GET /api/board?lane=). */
export const MAX_LANE_LIMIT = 300;

/** Filters of the board: the query, in the page URL and the API as `?q=`. */
export interface BoardFilters {
  /**
   * The board query (lib/query/query.ts): qualifiers such as `agent:fang lane:stale -flag:gave_up
   * age:>1h` and free text (order id, holder, project, reason). GET /api/board also takes the older
   * `agent`, `state` and `flag` parameters as terms of it.
   */
  readonly q?: string;
}

/** A card of a hub's board: the channel it belongs to with it (order ids repeat across channels). */
export type HubCard = BoardCard & { readonly channel: string };

/** One lane of a hub's board: the cards of every channel read, merged; `count` summed over the channels, `counts` each one's. */
export interface HubLanePage {
  readonly lane: Lane;
  readonly count: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly cards: readonly HubCard[];
  /** Opaque cursor (it carries the channel) for `GET /api/board?lane=L&cursor=C`, or null at the end. */
  readonly next_cursor: string | null;
}

/**
 * A channel of a hub as its board says it: served or gone (`why`), and when served and read
 * (`read`: the query selects it and its index could be opened; else `why` says what is missing)
 * its folder, stale_after, progress, health, problems and lane counts.
 */
export interface HubChannelSummary {
  readonly name: string;
  readonly state: 'served' | 'gone';
  readonly why: string | null;
  readonly read: boolean;
  readonly root: string | null;
  readonly stale_after_ms: number | null;
  readonly progress: IndexProgress | null;
  readonly problem_count: number;
  readonly counts: Readonly<Partial<Record<Lane, number>>>;
}

/**
 * GET /api/board of a hub (a serve of several channels): the board's fields over every channel
 * read (progress: the first channel still indexing; problems summed; agents and key changes
 * united; `channel` empty: each card names its own), and `channels`, each one's summary.
 */
export interface HubBoardResponse extends Omit<BoardResponse, 'lanes'> {
  readonly hub: true;
  readonly lanes: readonly HubLanePage[];
  readonly channels: readonly HubChannelSummary[];
  /** Each channel read's health (GET /api/board adds it, and `index_health`: the first that is not ok). */
  readonly channel_health?: Readonly<Record<string, IndexHealth>>;
}

/** `event: changed` on /api/events: a ChangedEvent of one channel, named (order ids repeat across channels; `seq` is that channel's). */
export type HubChangedEvent = ChangedEvent & { readonly channel: string };
