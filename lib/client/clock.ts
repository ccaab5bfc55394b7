'use client';
/**
 * This machine's clock as the browser estimates it: the server's `now_ms` (from the response)
 * advanced by the time elapsed in the browser since that response arrived, re-evaluated every
 * 15 s so "12 min ago" keeps counting without refetching. The browser's own clock is never
 * compared with the server's: only its elapsed time is used.
 */
import { useEffect, useState } from 'react';

const TICK_MS = 15_000;

/**
 * @param serverNowMs `now_ms` of the response, or undefined while loading
 * @param receivedAt  when the response arrived (TanStack Query's `dataUpdatedAt`, browser ms)
 */
export function useServerNow(serverNowMs: number | undefined, receivedAt: number): number {
  // Null until the first effect: the first render is `serverNowMs` itself, so a page rendered on
  // the server (app/page.tsx) hydrates with the same "12 s ago" it was sent with.
  const [browserNow, setBrowserNow] = useState<number | null>(null);
  useEffect(() => {
    setBrowserNow(Date.now());
    const t = setInterval(() => setBrowserNow(Date.now()), TICK_MS);
    return () => clearInterval(t);
  }, [serverNowMs, receivedAt]);
  if (serverNowMs === undefined) return 0;
  return serverNowMs + (browserNow === null ? 0 : Math.max(0, browserNow - receivedAt));
}
