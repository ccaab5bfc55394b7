import { json, withDb, withReadToken } from '@/lib/api/http';
import { alertsStatus } from '@/lib/alerts/status';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/alerts: whether this server sends alerts, each target (webhook URLs redacted to
 * `scheme://host/…`: their path and query usually hold the secret) with its last success, last
 * error, counts sent, failed and pending; what pages now; the newest messages.
 */
function get() {
  return withDb((db) => json(alertsStatus(db, Date.now())));
}

export const GET = withReadToken(get);
