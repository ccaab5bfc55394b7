/** The page header's alert status in words, from GET /api/alerts. Pure. */
import type { AlertsResponse } from '@/lib/api/types';
import { ago } from '@/lib/ui/time';

/**
 * The header's alert status: `failing` (a target's last attempt failed, with its error),
 * `sending` (messages owed, none failing), `ok`; with one line per target for the tooltip
 * (redacted label, last success against the server's `now_ms`, the error, the counts). Null
 * when alerts are not configured.
 */
export function alertsSummary(a: AlertsResponse): { tone: 'ok' | 'failing' | 'sending'; label: string; detail: string } | null {
  if (!a.configured) return null;
  const lines = a.targets.map((t) => {
    const success = t.last_success_ms !== null ? `last sent ${ago(t.last_success_ms, a.now_ms)}` : 'nothing sent yet';
    const error = t.failing && t.last_error ? `; failing: ${t.last_error}${t.last_error_ms !== null ? ` (${ago(t.last_error_ms, a.now_ms)})` : ''}` : '';
    return `${t.label}: ${success}${error}; ${t.sent} sent, ${t.failed} failed, ${t.pending} pending`;
  });
  const detail = lines.join('\n');
  const failing = a.targets.find((t) => t.failing);
  if (failing) return { tone: 'failing', label: `alerts failing: ${failing.last_error ?? 'error'}`, detail };
  if (a.targets.some((t) => t.pending > 0)) return { tone: 'sending', label: 'alerts: sending', detail };
  return { tone: 'ok', label: 'alerts: ok', detail };
}

