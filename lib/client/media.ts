'use client';
/** Whether a CSS media query matches, following changes (rotation, a resized window). */
import { useCallback, useSyncExternalStore } from 'react';

/** Below Tailwind's `md` (48rem): the board shows one lane at a time, the lanes as tabs. */
export const PHONE_QUERY = '(width < 48rem)';

/** False on the server and during hydration (the desktop layout's semantics), then the browser's answer. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const m = window.matchMedia(query);
      m.addEventListener('change', onChange);
      return () => m.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => false,
  );
}
