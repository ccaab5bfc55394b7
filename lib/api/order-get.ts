import 'server-only';
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint, Raw } from './endpoint';
import { OrderAnswerCache, orderJson } from '../index/read/queries';
import { serverOverlay } from '../index/read/local-overlay';
import { isSafeComponent } from '../ledger/names';

/** Answers per order, each used while the index rows it was computed from are unchanged. */
const cache = new OrderAnswerCache();

/** GET /api/orders/:id (the fast path answers it too, lib/api/fast-path.ts): card, order fields, timeline, runs seen, files and their problems. */
export const orderGet = defineEndpoint({
  method: 'GET',
  path: '/api/orders/:id',
  request: z.object({ id: z.string().refine(isSafeComponent, { error: (iss) => `"${String(iss.input)}" is not an order id` }) }),
  execute(ctx, { id }) {
    const db = ctx.db();
    const now = ctx.nowMs();
    const raw = orderJson(db, id, now, cache);
    // This machine's facts, after the cache: a pid can die while the index rows stay the same.
    const body = raw !== null ? serverOverlay(ctx.served().root).orderJson(db, raw, now) : null;
    if (body === null) throw new ClaimboardError('not_found', `no order ${id} in this channel`);
    return Raw.bytes(Buffer.from(body, 'utf8'));
  },
});
