'use client';
/**
 * Live updates: one `EventSource('/api/events')` for the whole app (the design of "Live": a change
 * in the folder shows within a second, without a reload). On `changed` it invalidates queries:
 * the board (every lane) always, `['order', id]` for each named order, agents, problems, the
 * activity and the fleet history (only the ones on screen refetch), and everything when `all` is
 * set or when the stream opens, the first time too (it starts after the index's latest change: changes made
 * since the page fetched its data would be missed). When the stream is down the pages poll instead
 * (lib/client/api.ts) and the nav's live dot turns grey.
 */
import { createContext, createElement, useContext, useEffect, useState, type ReactNode } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { queryKeys } from './query-keys';

const changedSchema = z.object({
  channel: z.string().optional(),
  seq: z.number(),
  orders: z.array(z.string()),
  all: z.boolean(),
});

export interface LiveStatus {
  /** The event stream is open. */
  readonly connected: boolean;
  /** Sequence number of the last `changed` event, or null. */
  readonly lastSeq: number | null;
  /** When the last `changed` event arrived (browser clock, ms), or null. */
  readonly lastEventAt: number | null;
}

const initial: LiveStatus = { connected: false, lastSeq: null, lastEventAt: null };
const LiveContext = createContext<LiveStatus>(initial);

export const useLiveStatus = (): LiveStatus => useContext(LiveContext);

/**
 * Invalidate what a `changed` event names (exported for tests and for manual refresh). An order
 * is the one of the event's channel: its key with that channel, or with none (asked without one,
 * it is the only order of its id); the same id in another channel is left alone.
 */
export function invalidateChanged(qc: QueryClient, ev: { channel?: string | undefined; orders: readonly string[]; all: boolean }): void {
  if (ev.all) {
    void qc.invalidateQueries();
    return;
  }
  void qc.invalidateQueries({ queryKey: queryKeys.boardAll() });
  for (const id of ev.orders) {
    void qc.invalidateQueries({
      queryKey: queryKeys.order(id),
      predicate: (q) => ev.channel === undefined || q.queryKey.length < 3 || q.queryKey[2] === ev.channel,
    });
  }
  void qc.invalidateQueries({ queryKey: queryKeys.agents() });
  void qc.invalidateQueries({ queryKey: queryKeys.agentAll() });
  void qc.invalidateQueries({ queryKey: queryKeys.problems() });
  void qc.invalidateQueries({ queryKey: queryKeys.activityAll() });
  void qc.invalidateQueries({ queryKey: queryKeys.historyAll() });
}

/** Opens the event stream while mounted; reconnects with backoff (1 s doubling to 30 s). */
function useLiveStream(url: string): LiveStatus {
  const qc = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>(initial);

  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    let es: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let delay = 1_000;
    let stopped = false;

    const connect = () => {
      if (stopped) return;
      es = new EventSource(url);
      es.onopen = () => {
        delay = 1_000;
        // The stream starts after the index's latest change: one made since the page fetched
        // what is on screen (before the first opening too, or during a gap) is never sent. A
        // fetch still running may have read the index before that change, and TanStack Query
        // would hand an invalidation of a query with no data yet to it: cancelled, then fetched
        // anew.
        void qc.cancelQueries().then(() => qc.invalidateQueries());
        setStatus((s) => (s.connected ? s : { ...s, connected: true }));
      };
      es.addEventListener('changed', (e) => {
        let data: unknown;
        try {
          data = JSON.parse((e as MessageEvent<string>).data);
        } catch {
          data = null;
        }
        const parsed = changedSchema.safeParse(data);
        const ev = parsed.success ? parsed.data : { seq: -1, orders: [], all: true };
        invalidateChanged(qc, ev);
        setStatus({ connected: true, lastSeq: ev.seq, lastEventAt: Date.now() });
      });
      es.onerror = () => {
        setStatus((s) => (s.connected ? { ...s, connected: false } : s));
        // CONNECTING: the browser retries by itself. CLOSED (an HTTP error, a wrong type): we do.
        if (es && es.readyState === EventSource.CLOSED) {
          es.close();
          es = null;
          timer = setTimeout(connect, delay);
          delay = Math.min(delay * 2, 30_000);
        }
      };
    };
    connect();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      es?.close();
    };
  }, [qc, url]);

  return status;
}

/** Provides the live status to the app and keeps the stream open. */
export function LiveProvider({ children, url = '/api/events' }: { children: ReactNode; url?: string }) {
  const status = useLiveStream(url);
  return createElement(LiveContext.Provider, { value: status }, children);
}
