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

/**
 * GET /api/board: every lane's count and first page; with `lane` (and `cursor`), one lane's next
 * page. Cached by the raw query string: a query answered before was valid then and parses the
 * same now, so a hit skips parsing.
 */
function get(req: Request) {
  const url = req.url;
  const q = url.indexOf('?');
  const search = q === -1 ? '' : url.slice(q);
  return withDb((db) => {
    const now = Date.now();
    const seq = latestSeq(db);
    const hit = cache.peek(search, seq, now);
    if (hit) return jsonBytes(hit);
    const params = Object.fromEntries(new URLSearchParams(search));
    for (const k of Object.keys(params)) if (params[k] === '') delete params[k];
    const parsed = Query.safeParse(params);
    if (!parsed.success) return errorResponse('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { lane, cursor, ...filters } = parsed.data;
    const c = cursor ? decodeCursor(cursor) : null;
    if (cursor && !c) return errorResponse('bad_request', 'cursor: not a cursor from this API');
    const body = JSON.stringify(lane ? lanePage(db, lane as (typeof LANES)[number], filters, c) : board(db, filters, now, actionsEnabled()));
    return jsonBytes(cache.put(search, seq, now, body));
  });
}

export const GET = withReadToken(get);
