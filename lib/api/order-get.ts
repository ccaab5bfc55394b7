import 'server-only';
import { errorResponse, jsonBytes, withDb, withReadToken } from './http';
import { OrderAnswerCache, orderJson } from '../index/queries';
import { serverOverlay } from '../index/local-overlay';
import { isSafeComponent } from '../ledger/names';
import { indexNowMs } from '../index/steady-clock';

/** Answers per order, each used while the index rows it was computed from are unchanged. */
const cache = new OrderAnswerCache();

/** GET /api/orders/:id: card, order fields, timeline, runs seen, files and their problems. */
async function get(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  if (!isSafeComponent(id)) return errorResponse('bad_request', `"${id}" is not an order id`);
  return withDb((db) => {
    const now = indexNowMs(db);
    const raw = orderJson(db, id, now, cache);
    // This machine's facts (issue 16), after the cache: a pid can die while the index rows stay the same.
    const body = raw !== null ? serverOverlay().orderJson(db, raw, now) : null;
    return body !== null ? jsonBytes(Buffer.from(body, 'utf8')) : errorResponse('not_found', `no order ${id} in this channel`);
  });
}

/**
 * The handler of GET /api/orders/:id, read token checked: app/api/orders/[id]/route.ts for
 * Next.js, and the web process's fast path (lib/api/fast-path.ts), so both answer alike.
 */
export const getOrder = withReadToken(get);
