import 'server-only';
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint, Raw } from './endpoint';
import { METRICS_CONTENT_TYPE, metricsFigures, metricsText } from './metrics';
import { indexNowMs } from '../index/steady-clock';
import type { DB } from '../index/db';

/**
 * GET /metrics: Prometheus text format (docs/prometheus.md). Answers 200 even without an index
 * (`claimboard_index_up 0` and this process's metrics), so a scrape fails only when the web
 * process does.
 */
export const metricsGet = defineEndpoint({
  method: 'GET',
  path: '/metrics',
  request: z.object({}),
  async execute(ctx) {
    const now = Date.now();
    let db: DB | null;
    try {
      db = ctx.db();
    } catch (e) {
      if (!(e instanceof ClaimboardError)) throw e;
      db = null; // not built yet, or CLAIMBOARD_DB unset: said by claimboard_index_up 0
    }
    // Ages on the index's clock (steady-clock.ts), as the board's.
    const figures = db ? metricsFigures(db, indexNowMs(db, now)) : null;
    return Raw.bytes(Buffer.from(await metricsText(figures, now), 'utf8'), METRICS_CONTENT_TYPE);
  },
});
