import { z } from 'zod';
import { actionsEnabled, errorResponse, json, withDb } from '@/lib/api/http';
import { board, decodeCursor, lanePage } from '@/lib/index/queries';
import { LANES } from '@/lib/ledger/derive';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const STATES = ['open', 'blocked', 'offered', 'claimed', 'stale', 'gave_up', 'closed', 'changes_requested', 'awaiting_review', 'accepted', 'done'] as const;
const FLAGS = ['gave_up', 'double_run', 'late_result', 'retired_holder', 'released_assignee', 'bad_record', 'sync_conflict', 'missing_dependency'] as const;

const Query = z.object({
  lane: z.enum(LANES as unknown as [string, ...string[]]).optional(),
  cursor: z.string().max(2000).optional(),
  agent: z.string().max(200).optional(),
  state: z.enum(STATES).optional(),
  flag: z.enum(FLAGS).optional(),
  q: z.string().max(200).optional(),
});

/** GET /api/board: every lane's count and first page; with `lane` (and `cursor`), one lane's next page. */
export function GET(req: Request) {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  for (const k of Object.keys(params)) if (params[k] === '') delete params[k];
  const parsed = Query.safeParse(params);
  if (!parsed.success) return errorResponse('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const { lane, cursor, ...filters } = parsed.data;
  return withDb((db) => {
    if (lane) {
      const c = cursor ? decodeCursor(cursor) : null;
      if (cursor && !c) return errorResponse('bad_request', 'cursor: not a cursor from this API');
      return json(lanePage(db, lane as (typeof LANES)[number], filters, c));
    }
    return json(board(db, filters, Date.now(), actionsEnabled()));
  });
}
