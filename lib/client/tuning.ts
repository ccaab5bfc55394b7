'use client';
/**
 * `GET /api/tuning[?agent=<name>]` (lib/ledger/tuning-types.ts TuningReport) for the stale-
 * threshold page and the agent page. Query key `['tuning', agent ?? '']`.
 *
 * Refetched every 15 s rather than on each live `changed` event: gaps grow with every heartbeat
 * arrival, which on a busy channel is several a second, and a distribution does not need that.
 */
import { useQuery } from '@tanstack/react-query';
import type { TuningReport } from '@/lib/ledger/tuning-types';
import { ApiError } from './api';
import { queryKeys } from './query-keys';
import { inChannel } from '@/lib/ui/card-channel';

export const TUNING_REFRESH_MS = 15_000;

/** The report for the channel (`agent` null) or one agent; throws ApiError on a non-2xx answer. */
export async function fetchTuning(agent: string | null, signal?: AbortSignal, channel?: string): Promise<TuningReport> {
  const path = inChannel(agent === null ? '/api/tuning' : `/api/tuning?agent=${encodeURIComponent(agent)}`, channel);
  const res = await fetch(path, { signal, headers: { accept: 'application/json' }, cache: 'no-store' });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (!res.ok) {
    const msg = body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' ? body.message : `${res.status} ${res.statusText || 'error'}`;
    throw new ApiError(res.status, msg, body);
  }
  return body as TuningReport;
}

/** The tuning report (in a hub, of `channel`), refreshed every 15 s (see above). */
export function useTuning(agent: string | null, channel?: string) {
  return useQuery({ queryKey: queryKeys.tuning(agent, channel), queryFn: ({ signal }) => fetchTuning(agent, signal, channel), refetchInterval: TUNING_REFRESH_MS });
}
