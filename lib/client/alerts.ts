'use client';
/**
 * GET /api/alerts for the page header (lib/alerts/status.ts on the server). Polled every 10 s:
 * a delivery's outcome changes no card, so no live event announces it. Query key `['alerts']`.
 */
import { useQuery } from '@tanstack/react-query';
import type { AlertsResponse } from '@/lib/api/types';
import { ApiError } from './api';
import { queryKeys } from './query-keys';

/** Fetches GET /api/alerts; a non-2xx answer throws ApiError. */
export async function fetchAlerts(signal?: AbortSignal): Promise<AlertsResponse> {
  const res = await fetch('/api/alerts', { signal, headers: { accept: 'application/json' }, cache: 'no-store' });
  if (!res.ok) throw new ApiError(res.status, `${res.status} ${res.statusText || 'error'}`, null);
  return (await res.json()) as AlertsResponse;
}

/** The alerts' state, refreshed every 10 s. */
export function useAlerts() {
  return useQuery({ queryKey: queryKeys.alerts(), queryFn: ({ signal }) => fetchAlerts(signal), refetchInterval: 10_000 });
}
