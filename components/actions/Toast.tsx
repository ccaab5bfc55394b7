'use client';
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export interface Toast {
  readonly id: number;
  readonly tone: 'ok' | 'error';
  readonly title: string;
  /** Channel-relative paths, shown in monospace, one per line. */
  readonly paths?: readonly string[];
}

const ToastContext = createContext<(t: Omit<Toast, 'id'>) => void>(() => {});

/** `toast({tone, title, paths})`: a short notice at the bottom right, read out politely. */
export const useToast = () => useContext(ToastContext);

const LIFETIME_MS = 10_000;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (t: Omit<Toast, 'id'>) => {
      const id = next.current++;
      setToasts((ts) => [...ts.slice(-3), { ...t, id }]);
      setTimeout(() => dismiss(id), LIFETIME_MS);
    },
    [dismiss],
  );
  const value = useMemo(() => push, [push]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div role="status" aria-live="polite" className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-[min(28rem,calc(100vw-2rem))] flex-col gap-2">
        {toasts.map((t) => (
          <div
            key={t.id}
            data-toast={t.tone}
            className={`pointer-events-auto rounded-md border px-3 py-2 text-sm shadow-lg ${
              t.tone === 'ok'
                ? 'border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-50'
                : 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50'
            }`}
          >
            <div className="flex items-start justify-between gap-3">
              <p className="font-medium">{t.title}</p>
              <button type="button" onClick={() => dismiss(t.id)} className="-mt-0.5 text-base leading-none opacity-70 hover:opacity-100 pointer-coarse:-my-2.5 pointer-coarse:-mr-2 pointer-coarse:size-11" aria-label="Dismiss">
                ×
              </button>
            </div>
            {t.paths && t.paths.length > 0 ? (
              <ul className="mt-1 max-h-40 overflow-y-auto font-mono text-xs break-all">
                {t.paths.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
