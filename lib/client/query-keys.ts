/**
 * Every TanStack Query key of the pages, in one place: the hooks (lib/client/api.ts,
 * operator.ts, tuning.ts, alerts.ts, the supersede dialog's id probe) ask by them, and the live
 * stream (lib/client/live.ts) and the actions (lib/client/actions.ts) invalidate by them and by
 * the prefixes (`…All`: every answer of one kind, whatever its arguments).
 *
 * - `['board', filters]`                       the board (first page of every lane)
 * - `['board', 'lane', lane, filters, after]`  the pages of one lane after the first
 * - `['order', id]`, `['order', id, channel]`  an order (of one channel of a hub: its ids repeat across channels)
 * - `['agents']`, `['agent', name]`, `['problems']` (each with the channel last when a hub's page names one)
 * - `['activity', filters]`                    the operator activity, page after page (the channel last, as above)
 * - `['history', search]`                      the fleet history of a window and a query
 * - `['tuning', agent]` (`['tuning', agent, channel]`), `['operator', name]` (`['operator', name, channel]` in a hub), `['alerts']`
 * - `['order-exists', id]`                     whether an order of that id exists (a supersede's new id)
 */
import type { ActFilters, BoardFilters, Lane } from '@/lib/api/types';
import { filtersToParams } from '@/lib/ui/board-filters';
import { actFiltersToParams } from '@/lib/ui/act-filters';

export const queryKeys = {
  board: (f: BoardFilters) => ['board', filtersToParams(f).toString()] as const,
  /** Every board answer: the first pages and each lane's, under any query. */
  boardAll: () => ['board'] as const,
  /** One lane under one query, whatever its first page. */
  laneScope: (lane: Lane, f: BoardFilters) => ['board', 'lane', lane, filtersToParams(f).toString()] as const,
  lane: (lane: Lane, f: BoardFilters, after: string | null) => [...queryKeys.laneScope(lane, f), after] as const,
  order: (id: string, channel?: string | null) => (channel ? (['order', id, channel] as const) : (['order', id] as const)),
  orderAll: () => ['order'] as const,
  agents: (channel?: string) => (channel ? (['agents', channel] as const) : (['agents'] as const)),
  agent: (name: string, channel?: string) => (channel ? (['agent', name, channel] as const) : (['agent', name] as const)),
  agentAll: () => ['agent'] as const,
  problems: (channel?: string) => (channel ? (['problems', channel] as const) : (['problems'] as const)),
  activity: (f: ActFilters, channel?: string) => (channel ? (['activity', actFiltersToParams(f).toString(), channel] as const) : (['activity', actFiltersToParams(f).toString()] as const)),
  activityAll: () => ['activity'] as const,
  history: (search: string) => ['history', search] as const,
  historyAll: () => ['history'] as const,
  tuning: (agent: string | null, channel?: string) => (channel ? (['tuning', agent ?? '', channel] as const) : (['tuning', agent ?? ''] as const)),
  operator: (name: string, channel?: string | null) => (channel ? (['operator', name, channel] as const) : (['operator', name] as const)),
  alerts: () => ['alerts'] as const,
  orderExists: (id: string) => ['order-exists', id] as const,
};
