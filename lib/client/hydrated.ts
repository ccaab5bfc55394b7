'use client';
import { useSyncExternalStore } from 'react';

const never = () => () => {};

/**
 * False on the server and in the render that hydrates the page, true from the next render on:
 * whether this component's event handlers are attached yet. React takes the server snapshot
 * while hydrating, so both sides render the same markup.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
