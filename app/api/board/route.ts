import { z } from 'zod';
import { actionsEnabled, errorResponse, jsonBytes, withDb, withReadToken } from '@/lib/api/http';
import { board, decodeCursor, lanePage, latestSeq } from '@/lib/index/queries';
import { AnswerCache } from '@/lib/api/answer-cache';
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

/** Answers at most 1 s old and never older than the index's last change (`now_ms` may lag by that second). */
const cache = new AnswerCache(1000);

/** GET /api/board: every lane's count and first page; with `lane` (and `cursor`), one lane's next page. */
function get(req: Request) {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  for (const k of Object.keys(params)) if (params[k] === '') delete params[k];
  const parsed = Query.safeParse(params);
  if (!parsed.success) return errorResponse('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const { lane, cursor, ...filters } = parsed.data;
  return withDb((db) => {
    const c = cursor ? decodeCursor(cursor) : null;
    if (cursor && !c) return errorResponse('bad_request', 'cursor: not a cursor from this API');
    const now = Date.now();
    const key = JSON.stringify(parsed.data);
    const body = cache.get(key, latestSeq(db), now, () =>
      JSON.stringify(lane ? lanePage(db, lane as (typeof LANES)[number], filters, c) : board(db, filters, now, actionsEnabled())),
    );
    return jsonBytes(body);
  });
}

export const GET = withReadToken(get);
