/**
 * Shapes of the HTTP API, shared by route handlers and the pages. The
 * answers are the index's read models (lib/index/types.ts) and the core's types, re-exported
 * here so the pages have one place to import them from; only the request side lives here.
 */
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
