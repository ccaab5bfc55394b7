'use client';
/**
 * Typed fetchers for the HTTP API (lib/api/types.ts) and the TanStack Query hooks the pages use,
 * each asking by its key in lib/client/query-keys.ts (live updates, lib/client/live.ts,
 * invalidate by the same keys).
 */
import { keepPreviousData, useInfiniteQuery, useQueries, useQuery } from '@tanstack/react-query';
import {
  MAX_LANE_LIMIT,
  type ActFilters,
  type ActivityResponse,
  type AgentResponse,
  type AgentsResponse,
  type BoardFilters,
  type BoardResponse,
  type HistoryResponse,
  type Lane,
  type LanePage,
  type OrderResponse,
  type ProblemsResponse,
} from '@/lib/api/types';
import { filtersToParams } from '@/lib/ui/board-filters';
import { actFiltersToParams } from '@/lib/ui/act-filters';
import { inChannel } from '@/lib/ui/card-channel';
import { useLiveStatus } from './live';
import { queryKeys } from './query-keys';
import { isErrorCode, isRefusalReason, type ErrorCode, type RefusalReason } from '@/lib/errors';

/** An HTTP answer other than 2xx, with the server's message when it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The server's error code (lib/errors.ts), when it sent one of them. */
  get code(): ErrorCode | null {
    return errorCodeOf(this.body);
  }
}

/** The code of an error body `{error: code, ...}` from the server, or null when it names none of lib/errors.ts's. */
export function errorCodeOf(body: unknown): ErrorCode | null {
  const code = body && typeof body === 'object' && 'error' in body ? body.error : null;
  return isErrorCode(code) ? code : null;
}

/** The reason code of a refused act's body `{reason_code, ...}`, or null when it names none of lib/errors.ts's REFUSAL_REASONS. */
export function reasonCodeOf(body: unknown): RefusalReason | null {
  const code = body && typeof body === 'object' && 'reason_code' in body ? body.reason_code : null;
  return isRefusalReason(code) ? code : null;
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;

async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { signal, headers: { accept: 'application/json' }, cache: 'no-store' });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (!res.ok) {
    const field = (k: string): string | undefined =>
      body && typeof body === 'object' && k in body && typeof (body as Record<string, unknown>)[k] === 'string'
        ? ((body as Record<string, unknown>)[k] as string)
        : undefined;
    const msg = field('message') ?? field('error') ?? `${res.status} ${res.statusText || 'error'}`;
    throw new ApiError(res.status, msg, body);
  }
  return body as T;
}

// ---- filters (in the URL as ?q=): lib/ui/board-filters.ts, shared with the board page's server render

export { filtersToParams, hasFilters, parseFilters } from '@/lib/ui/board-filters';

// ---- activity filters (in the URL as ?operator=&act=&order=): lib/ui/act-filters.ts

export { actFiltersToParams, parseActFilters } from '@/lib/ui/act-filters';

// ---- fetchers --------------------------------------------------------------------------

const enc = encodeURIComponent;

export const fetchBoard = (f: BoardFilters, signal?: AbortSignal) => {
  const qs = filtersToParams(f).toString();
  return getJson<BoardResponse>(`/api/board${qs ? `?${qs}` : ''}`, signal);
};

/** One lane's page after `cursor`: `limit` cards (the server's page size when not given). */
export const fetchLanePage = (lane: Lane, cursor: string, f: BoardFilters, limit?: number, signal?: AbortSignal) => {
  const p = filtersToParams(f);
  p.set('lane', lane);
  p.set('cursor', cursor);
  if (limit !== undefined) p.set('limit', String(limit));
  return getJson<LanePage>(`/api/board?${p.toString()}`, signal);
};

export const fetchOrder = (id: string, signal?: AbortSignal, channel?: string) => getJson<OrderResponse>(`/api/orders/${enc(id)}${channel ? `?channel=${enc(channel)}` : ''}`, signal);
export const fetchAgents = (signal?: AbortSignal, channel?: string) => getJson<AgentsResponse>(inChannel('/api/agents', channel), signal);
export const fetchAgent = (name: string, signal?: AbortSignal, channel?: string) => getJson<AgentResponse>(inChannel(`/api/agents/${enc(name)}`, channel), signal);
export const fetchProblems = (signal?: AbortSignal, channel?: string) => getJson<ProblemsResponse>(inChannel('/api/problems', channel), signal);
export const fetchActivity = (f: ActFilters, cursor: string, signal?: AbortSignal, channel?: string) => {
  const p = actFiltersToParams(f);
  if (channel) p.set('channel', channel);
  if (cursor) p.set('cursor', cursor);
  const qs = p.toString();
  return getJson<ActivityResponse>(`/api/activity${qs ? `?${qs}` : ''}`, signal);
};

/** GET /api/history for the page's query string (lib/ui/history.ts historySearch). */
export const fetchHistory = (search: string, signal?: AbortSignal) => getJson<HistoryResponse>(`/api/history${search ? `?${search}` : ''}`, signal);

// ---- hooks -----------------------------------------------------------------------------

/** While the live stream is down, poll instead (every 10 s); while indexing, every second. */
function usePollInterval(): number | false {
  const { connected } = useLiveStatus();
  return connected ? false : 10_000;
}

export function useBoard(filters: BoardFilters, initialData?: BoardResponse) {
  const poll = usePollInterval();
  return useQuery({
    queryKey: queryKeys.board(filters),
    queryFn: ({ signal }) => fetchBoard(filters, signal),
    // The board the page was rendered with (app/page.tsx), taken as received now: fresh for the
    // query's staleTime, then polled and invalidated like any other answer.
    initialData,
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data && q.state.data.progress.phase !== 'ready' ? 1_000 : poll),
  });
}

/** Where a lane page starts, and how many cards it asks for (undefined: the server's page size). */
interface LanePageParam {
  readonly cursor: string;
  readonly limit: number | undefined;
}

/**
 * The pages of one lane after its first (which comes with the board): starts at `after`
 * (the first page's `next_cursor`) once `enabled`, then `fetchNextPage` for each further page.
 * When the first page changes (an order on it left the lane), `after` changes and the pages are
 * fetched again as one page of `reload` cards (how many were loaded before), the old ones shown
 * meanwhile: the lane keeps its length and the operator's place in it. With `after` null (the
 * first page holds the whole lane) the query is off, and what it returns must not be shown.
 */
export function useLanePage(lane: Lane, filters: BoardFilters, after: string | null, enabled: boolean, reload: number) {
  const scope = queryKeys.laneScope(lane, filters);
  return useInfiniteQuery({
    queryKey: queryKeys.lane(lane, filters, after),
    queryFn: ({ pageParam, signal }) => fetchLanePage(lane, pageParam.cursor, filters, pageParam.limit, signal),
    initialPageParam: { cursor: after ?? '', limit: reload > 0 ? Math.min(reload, MAX_LANE_LIMIT) : undefined },
    getNextPageParam: (last): LanePageParam | undefined => (last.next_cursor ? { cursor: last.next_cursor, limit: undefined } : undefined),
    // The old pages stand in only for the same lane and query: another query's cards never show.
    placeholderData: (prev, prevQuery) => (prevQuery && scope.every((k, i) => prevQuery.queryKey[i] === k) ? prev : undefined),
    enabled: enabled && after !== null,
  });
}

/** An order; in a hub, of `channel` (its ids repeat across channels). */
export function useOrder(id: string, channel?: string) {
  const poll = usePollInterval();
  return useQuery({ queryKey: queryKeys.order(id, channel), queryFn: ({ signal }) => fetchOrder(id, signal, channel), refetchInterval: poll });
}

/** Several orders at once (an order page's dependencies, of its channel in a hub), each cached under its own key. */
export function useOrders(ids: readonly string[], channel?: string) {
  return useQueries({
    queries: ids.map((id) => ({ queryKey: queryKeys.order(id, channel), queryFn: ({ signal }: { signal: AbortSignal }) => fetchOrder(id, signal, channel) })),
  });
}

/** The roster; in a hub, of `channel`, or of every channel (each agent with its channel) when none is given. */
export function useAgents(channel?: string) {
  const poll = usePollInterval();
  return useQuery({ queryKey: queryKeys.agents(channel), queryFn: ({ signal }) => fetchAgents(signal, channel), refetchInterval: poll });
}

/** One agent; in a hub, of `channel` (a name in two channels is two identities). */
export function useAgent(name: string, channel?: string) {
  const poll = usePollInterval();
  return useQuery({ queryKey: queryKeys.agent(name, channel), queryFn: ({ signal }) => fetchAgent(name, signal, channel), refetchInterval: poll });
}

/** The problems; in a hub, of `channel`, or of every channel when none is given. */
export function useProblems(channel?: string) {
  const poll = usePollInterval();
  return useQuery({ queryKey: queryKeys.problems(channel), queryFn: ({ signal }) => fetchProblems(signal, channel), refetchInterval: poll });
}

/** The operator activity matching `filters` (in a hub, of `channel`, or of every channel): the newest page first, `fetchNextPage` for older ones. */
export function useActivity(filters: ActFilters, channel?: string) {
  const poll = usePollInterval();
  return useInfiniteQuery({
    queryKey: queryKeys.activity(filters, channel),
    queryFn: ({ pageParam, signal }) => fetchActivity(filters, pageParam, signal, channel),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    refetchInterval: poll,
  });
}

/**
 * The fleet history for a query string (historySearch), the answer the page was rendered with as
 * its first data (app/history/page.tsx); the previous window's stays on screen while the next loads.
 */
export function useHistory(search: string, initial?: { search: string; data: HistoryResponse }) {
  const poll = usePollInterval();
  return useQuery({
    queryKey: queryKeys.history(search),
    queryFn: ({ signal }) => fetchHistory(search, signal),
    initialData: initial && initial.search === search ? initial.data : undefined,
    placeholderData: keepPreviousData,
    refetchInterval: poll,
  });
}
