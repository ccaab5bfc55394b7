import 'server-only';
import { errorAnswer, jsonAnswer, readTokenChecked, withDbAnswer } from './http';
import { readRequestOf, toResponse, type Answer, type ReadRequest } from './answer';
import { OrderAnswerCache, orderJson } from '../index/read/queries';
import { serverOverlay } from '../index/read/local-overlay';
import { isSafeComponent } from '../ledger/names';
import { indexNowMs } from '../index/steady-clock';

/** Answers per order, each used while the index rows it was computed from are unchanged. */
const cache = new OrderAnswerCache();

/** GET /api/orders/:id: card, order fields, timeline, runs seen, files and their problems. */
function get(_req: ReadRequest, id: string): Answer {
  if (!isSafeComponent(id)) return errorAnswer('bad_request', `"${id}" is not an order id`);
  return withDbAnswer((db) => {
    const now = indexNowMs(db);
    const raw = orderJson(db, id, now, cache);
    // This machine's facts, after the cache: a pid can die while the index rows stay the same.
    const body = raw !== null ? serverOverlay().orderJson(db, raw, now) : null;
    return body !== null ? jsonAnswer(Buffer.from(body, 'utf8')) : errorAnswer('not_found', `no order ${id} in this channel`);
  });
}

/**
 * GET /api/orders/:id for the web process's fast path (lib/api/fast-path.ts), read token
 * checked; `id` is the path's last segment, decoded.
 */
export const orderAnswer = readTokenChecked(get);

/** The same handler as a Next.js route (app/api/orders/[id]/route.ts), so both answer alike. */
export async function getOrder(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return toResponse(orderAnswer(readRequestOf(req), (await params).id));
}
