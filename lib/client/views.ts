'use client';
/**
 * The board's saved views in this browser's localStorage (lib/ui/views.ts reads and edits the
 * list), shared by every component and tab that shows them: a save or delete here, or in another
 * tab (the `storage` event), re-renders them all.
 */
import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { deleteView, readViews, saveView, VIEWS_KEY, writeViews, type SavedView } from '@/lib/ui/views';

const listeners = new Set<() => void>();

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key === VIEWS_KEY) onChange();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener('storage', onStorage);
  };
}

/** The stored text (a string, so the snapshot is stable between changes); null when none or storage is off. */
function snapshot(): string | null {
  try {
    return window.localStorage.getItem(VIEWS_KEY);
  } catch {
    return null;
  }
}

/** The saved views, and saving or deleting one. Storage that refuses a write (private mode, full) leaves the list as it was. */
export function useSavedViews(): { views: readonly SavedView[]; save: (view: SavedView) => void; remove: (name: string) => void } {
  const raw = useSyncExternalStore(subscribe, snapshot, () => null);
  const views = useMemo(() => readViews(raw), [raw]);
  const write = useCallback((next: readonly SavedView[]) => {
    try {
      window.localStorage.setItem(VIEWS_KEY, writeViews(next));
    } catch {
      return;
    }
    for (const l of listeners) l();
  }, []);
  return {
    views,
    save: useCallback((view: SavedView) => write(saveView(readViews(snapshot()), view)), [write]),
    remove: useCallback((name: string) => write(deleteView(readViews(snapshot()), name)), [write]),
  };
}
