import { withReadToken } from '@/lib/api/http';
import { METRICS_CONTENT_TYPE, metricsFigures, metricsText } from '@/lib/api/metrics';
import { readDb, type DB } from '@/lib/index/db';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /metrics: Prometheus text format (docs/prometheus.md). Checks the read token itself, as
 * the /api routes do (the proxy skips this path). Answers 200 even without an index
 * (`claimboard_index_up 0` and this process's metrics), so a scrape fails only when the web
 * process does.
 */
async function get(): Promise<Response> {
  const now = Date.now();
  let db: DB | null;
  try {
    db = readDb();
  } catch {
    db = null; // not built yet, or CLAIMBOARD_DB unset: said by claimboard_index_up 0
  }
  // Ages on the index's clock (steady-clock.ts), as the board's.
  const figures = db ? metricsFigures(db, indexNowMs(db, now)) : null;
  return new Response(await metricsText(figures, now), { status: 200, headers: { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' } });
}

export const GET = withReadToken(get);
