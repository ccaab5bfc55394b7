import { errorResponse, json, withDb, withReadToken } from '@/lib/api/http';
import { order } from '@/lib/index/queries';
import { isSafeComponent } from '@/lib/ledger/names';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/orders/:id: card, order fields, timeline, runs seen, files and their problems. */
async function get(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!isSafeComponent(id)) return errorResponse('bad_request', `"${id}" is not an order id`);
  return withDb((db) => {
    const o = order(db, id, Date.now());
    return o ? json(o) : errorResponse('not_found', `no order ${id} in this channel`);
  });
}

export const GET = withReadToken(get);
