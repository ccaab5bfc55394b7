import 'server-only';
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint, Raw } from './endpoint';
import { METRICS_CONTENT_TYPE, metricsFigures, metricsText, type ChannelFigures } from './metrics';
import type { ChannelView } from './channels';
import { indexNowMs } from '../index/steady-clock';
import type { DB } from '../index/db';

/**
 * GET /metrics: Prometheus text format (docs/prometheus.md), each served channel's index series
 * labelled with its `channel`. Answers 200 even without an index (`claimboard_index_up 0` and
 * this process's metrics), so a scrape fails only when the web process does.
 */
export const metricsGet = defineEndpoint({
  method: 'GET',
  path: '/metrics',
  request: z.object({}),
  async execute(ctx) {
    const now = Date.now();
    let channels: readonly ChannelView[];
    try {
      channels = ctx.channels().list.filter((c) => c.state === 'served');
    } catch (e) {
      if (!(e instanceof ClaimboardError)) throw e;
      // not built yet, or CLAIMBOARD_DB unset: said by claimboard_index_up 0
      return Raw.bytes(Buffer.from(await metricsText(null), 'utf8'), METRICS_CONTENT_TYPE);
    }
    const figures: ChannelFigures[] = channels.map((c) => {
      let db: DB;
      try {
        db = c.db();
      } catch (e) {
        if (!(e instanceof ClaimboardError)) throw e;
        return { channel: c.name, figures: null, nowMs: now };
      }
      // Ages on the index's clock (steady-clock.ts), as the board's.
      return { channel: c.name, figures: metricsFigures(db, indexNowMs(db, now)), nowMs: now };
    });
    return Raw.bytes(Buffer.from(await metricsText(figures), 'utf8'), METRICS_CONTENT_TYPE);
  },
});
