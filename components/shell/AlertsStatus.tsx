'use client';
import { useAlerts } from '@/lib/client/alerts';
import { alertsSummary } from './alerts-summary';

/** The header's alert status ("alerts: ok", "alerts failing: HTTP 500"), shown only when this server sends alerts. */
export function AlertsStatus() {
  const alerts = useAlerts();
  const s = alerts.data ? alertsSummary(alerts.data) : null;
  if (!s) return null;
  const dot = s.tone === 'failing' ? 'bg-red-500' : s.tone === 'sending' ? 'bg-amber-500' : 'bg-emerald-500';
  const text = s.tone === 'failing' ? 'text-red-700 dark:text-red-400' : 'text-zinc-600 dark:text-zinc-400';
  return (
    <span data-alerts={s.tone} className={`flex min-w-0 shrink items-center gap-1.5 text-xs ${text}`} title={s.detail}>
      <span className={`inline-flex size-2 shrink-0 rounded-full ${dot}`} aria-hidden="true" />
      <span className="sr-only sm:not-sr-only sm:max-w-[18rem] sm:truncate">{s.label}</span>
    </span>
  );
}
