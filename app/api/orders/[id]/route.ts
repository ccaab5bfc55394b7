import { errorResponse, jsonBytes, withDb, withReadToken } from '@/lib/api/http';
import { OrderAnswerCache, orderJson } from '@/lib/index/queries';
import { serverOverlay } from '@/lib/index/local-overlay';
import { isSafeComponent } from '@/lib/ledger/names';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Answers per order, each used while the index rows it was computed from are unchanged. */
const cache = new OrderAnswerCache();

/** GET /api/orders/:id: card, order fields, timeline, runs seen, files and their problems. */
async function get(_req: Request, { params }: { params: Promise<{ id: string }> }) {
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

export const GET = withReadToken(get);
