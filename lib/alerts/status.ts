import 'server-only';
/**
 * The read side of the alerts (GET /api/alerts and the page header): the configuration the
 * serve process stored, each target's state, what pages now, and the newest messages. Reads the
 * index only (the web server's read-only connection).
 */
import { z } from 'zod';
import type { DB } from '../index/db';
import { readMeta } from '../index/store/meta';
import type { AlertsResponse, AlertTargetStatus } from '../index/types';

const Payload = z.object({ text: z.string(), order_id: z.string().optional() });

/** `text` as JSON of `schema`'s shape, or null (the index is ours, but a row is data all the same). */
function parsed<T>(schema: z.ZodType<T>, text: string): T | null {
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** Messages listed in `recent`. */
const RECENT = 20;

/** What GET /api/alerts answers, read at `nowMs` (this machine's clock, ms). */
export function alertsStatus(db: DB, nowMs: number): AlertsResponse {
  const cfg = readMeta(db, 'alerts');
  if (!cfg) return { configured: false, status: 'off', now_ms: nowMs, after_ms: 0, base_url: null, targets: [], open: [], recent: [] };
  const stateOf = db.prepare('SELECT last_success_ms, last_error, last_error_ms, sent, failed FROM alert_state WHERE target = ?');
  const pendingOf = db.prepare("SELECT COUNT(*) AS n FROM alert_outbox WHERE target = ? AND status = 'pending'");
  const targets: AlertTargetStatus[] = cfg.targets.map((t) => {
    const s = stateOf.get(t.id) as { last_success_ms: number | null; last_error: string | null; last_error_ms: number | null; sent: number; failed: number } | undefined;
    const lastError = s?.last_error_ms ?? null;
    const lastSuccess = s?.last_success_ms ?? null;
    return {
      id: t.id,
      kind: t.kind,
      label: t.label,
      last_success_ms: lastSuccess,
      last_error: s?.last_error ?? null,
      last_error_ms: lastError,
      sent: s?.sent ?? 0,
      failed: s?.failed ?? 0,
      pending: (pendingOf.get(t.id) as { n: number }).n,
      failing: lastError !== null && (lastSuccess === null || lastError > lastSuccess),
    };
  });
  const open = db
    .prepare('SELECT key, event AS kind, order_id, path, reason, first_seen_ms, sent_ms, gone_ms FROM alerts_sent WHERE resolved_ms IS NULL ORDER BY first_seen_ms DESC, key LIMIT 200')
    .all() as AlertsResponse['open'][number][];
  const ids = new Set(cfg.targets.map((t) => t.id));
  const recent = (
    db.prepare('SELECT id, target, event, payload, created_ms, status, attempts, done_ms, last_error FROM alert_outbox ORDER BY id DESC LIMIT ?').all(RECENT * 4) as {
      id: number;
      target: string;
      event: AlertsResponse['recent'][number]['event'];
      payload: string;
      created_ms: number;
      status: AlertsResponse['recent'][number]['status'];
      attempts: number;
      done_ms: number | null;
      last_error: string | null;
    }[]
  )
    .filter((r) => ids.has(r.target))
    .slice(0, RECENT)
    .map(({ payload, ...r }) => {
      const p = parsed(Payload, payload);
      return { ...r, order_id: p?.order_id ?? null, text: p?.text ?? '' };
    });
  return {
    configured: true,
    status: targets.some((t) => t.failing) ? 'failing' : 'ok',
    now_ms: nowMs,
    after_ms: cfg.after_ms,
    base_url: cfg.base_url,
    targets,
    open,
    recent,
  };
}
