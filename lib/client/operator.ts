'use client';
/**
 * The operator key in the page: one context for the whole app (components/actions/KeyPanel.tsx
 * imports and forgets it; the nav, cards, order and agent pages ask whether actions may be
 * offered). The seed stays in this browser: it is read from and written to Web Storage only
 * (lib/client/keys.ts), and used only to sign (lib/client/actions.ts). No request carries it.
 */
import { createContext, createElement, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueries, useQuery } from '@tanstack/react-query';
import { ApiError } from './api';
import { queryKeys } from './query-keys';
import { forgetKey, hubKeyGate, keyGate, loadKey, publicKeyOf, saveKey, type KeyGate, type KeyStorage, type KeyStores, type OperatorInfo, type OperatorKey } from './keys';

interface KeyState {
  /** The key, or null when none is imported. */
  readonly key: OperatorKey | null;
  /** Where it is kept (null with no key). */
  readonly storage: KeyStorage | null;
  /** False until the browser's storage has been read (first render on the server and client). */
  readonly loaded: boolean;
  readonly setKey: (key: OperatorKey, remember: boolean) => void;
  readonly forget: () => void;
}

const KeyContext = createContext<KeyState>({ key: null, storage: null, loaded: false, setKey: () => {}, forget: () => {} });

function browserStores(): KeyStores | null {
  try {
    return { session: window.sessionStorage, local: window.localStorage };
  } catch {
    return null; // storage blocked: the key lives in memory for this page only
  }
}

/** Holds the operator key for the app; reads it from storage once mounted. */
export function KeyProvider({ children }: { children: ReactNode }) {
  const [key, setKeyState] = useState<OperatorKey | null>(null);
  const [storage, setStorage] = useState<KeyStorage | null>(null);
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    const stores = browserStores();
    const found = stores ? loadKey(stores) : null;
    setKeyState(found?.key ?? null);
    setStorage(found?.storage ?? null);
    setLoaded(true);
    // Another tab forgot or replaced a remembered key: follow it.
    const onStorage = (e: StorageEvent) => {
      if (e.storageArea !== window.localStorage) return;
      const s = browserStores();
      const again = s ? loadKey(s) : null;
      setKeyState(again?.key ?? null);
      setStorage(again?.storage ?? null);
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const setKey = useCallback((k: OperatorKey, remember: boolean) => {
    const stores = browserStores();
    setStorage(stores ? saveKey(stores, k, remember) : null);
    setKeyState(k);
  }, []);
  const forget = useCallback(() => {
    const stores = browserStores();
    if (stores) forgetKey(stores);
    setKeyState(null);
    setStorage(null);
  }, []);

  const value = useMemo(() => ({ key, storage, loaded, setKey, forget }), [key, storage, loaded, setKey, forget]);
  return createElement(KeyContext.Provider, { value }, children);
}

export const useOperatorKey = (): KeyState => useContext(KeyContext);

/** GET /api/operators/:name (in the served channel `channel` of a hub), uncached: `ledger_prev` must be fresh right before signing. */
export async function fetchOperator(name: string, signal?: AbortSignal, channel?: string): Promise<OperatorInfo> {
  const res = await fetch(`/api/operators/${encodeURIComponent(name)}${channel ? `?channel=${encodeURIComponent(channel)}` : ''}`, { signal, headers: { accept: 'application/json' }, cache: 'no-store' });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const msg = body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' ? body.message : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, msg, body);
  }
  return body as OperatorInfo;
}

/** What the server says about an operator name (roster, operator, pinned key, actions enabled), in a hub's `channel`. */
export function useOperatorInfo(name: string | null, channel?: string) {
  return useQuery({
    queryKey: queryKeys.operator(name ?? '', channel),
    queryFn: ({ signal }) => fetchOperator(name ?? '', signal, channel),
    enabled: name !== null,
    staleTime: 30_000,
  });
}

/** The channels a hub serves, when asked about an operator naming none (400 `which_channel` names them); null otherwise. */
function hubChannelsOf(error: unknown): readonly string[] | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const b = error.body as { reason_code?: unknown; channels?: unknown } | null;
  return b && b.reason_code === 'which_channel' && Array.isArray(b.channels) && b.channels.every((c) => typeof c === 'string') ? b.channels : null;
}

const NO_CHANNELS: readonly string[] = [];

/**
 * The operator key with whether actions may be offered with it (on a card of a hub's `channel`:
 * there), and why not. With no channel in a hub (the nav, the key panel): over every channel it
 * serves, each asked (hubKeyGate: which channels the key is an operator of).
 */
export function useKeyGate(channel?: string): KeyGate & { readonly key: OperatorKey | null; readonly publicKey: string | null; readonly channelFileNew: boolean } {
  const { key } = useOperatorKey();
  const info = useOperatorInfo(key?.name ?? null, channel);
  const publicKey = useMemo(() => (key ? publicKeyOf(key.seed) : null), [key]);
  const hub = channel === undefined ? hubChannelsOf(info.error) : null;
  const each = useQueries({
    queries: (hub ?? NO_CHANNELS).map((c) => ({
      queryKey: queryKeys.operator(key?.name ?? '', c),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchOperator(key?.name ?? '', signal, c),
      enabled: key !== null,
      staleTime: 30_000,
    })),
  });
  const gate = hub
    ? hubKeyGate(key, publicKey, hub.map((c, i) => ({ channel: c, info: each[i]?.data ?? (each[i]?.isError ? 'error' : null) })))
    : keyGate(key, publicKey, info.data ?? (info.isError ? 'error' : null));
  return { ...gate, key, publicKey, channelFileNew: info.data?.channel_new === true };
}
