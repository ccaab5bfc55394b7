import { z } from 'zod';
import { errorResponse, json, withDb, withReadToken } from '@/lib/api/http';
import { activity } from '@/lib/index/read/activity';
import { decodeCursor } from '@/lib/index/read/queries';
import { ACT_KINDS } from '@/lib/ledger/acts';
import { isSafeComponent } from '@/lib/ledger/names';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const Name = z.string().max(200).refine(isSafeComponent, 'not a name');
const Query = z.object({
  operator: Name.optional(),
  act: z.enum(ACT_KINDS as unknown as [string, ...string[]]).optional(),
  order: Name.optional(),
  cursor: z.string().max(2000).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/**
 * GET /api/activity?operator=&act=&order=&cursor=&limit=: every operator act of the channel
 * (decision records and signed ledger lines, paired), newest arrival first, one keyset page.
 */
function get(req: Request) {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  delete params.token;
  for (const k of Object.keys(params)) if (params[k] === '') delete params[k];
  const parsed = Query.safeParse(params);
  if (!parsed.success) return errorResponse('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const { cursor, limit, ...f } = parsed.data;
  if (cursor && !decodeCursor(cursor)) return errorResponse('bad_request', 'cursor: not a cursor from this API');
  const filters = { ...(f.operator ? { operator: f.operator } : {}), ...(f.act ? { act: f.act as (typeof ACT_KINDS)[number] } : {}), ...(f.order ? { order: f.order } : {}) };
  return withDb((db) => json(activity(db, filters, cursor ?? null, indexNowMs(db), limit)));
}

export const GET = withReadToken(get);
