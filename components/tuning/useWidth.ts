'use client';
import { useEffect, useRef, useState } from 'react';

/**
 * The width (CSS px) of the element the returned ref is put on, kept up to date with a
 * ResizeObserver; `initial` until the first measure. A chart draws at its real width rather
 * than scaling a fixed viewBox, so its text keeps its size on a phone.
 */
export function useWidth<T extends HTMLElement>(initial: number) {
  const ref = useRef<T | null>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined && w > 0) setWidth(Math.floor(w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}
