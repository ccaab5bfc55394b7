import 'server-only';
/**
 * GET /api/holds (the fast path answers it too, lib/api/fast-path.ts) and GET /api/history: the
 * fleet history's rows and what /history draws, for a window (`range` 1h | 24h | 7d | 30d, or
 * `from` and `to`: ms or RFC 3339, this machine's clock; none: the range fitted to the holds,
 * lib/query/window.ts fitRange) and a query (`q`, `agent`, `project`, `order`), of one channel
 * (`channel`: a hub's request names it, channel-reads.ts).
 * A window or a query that does not read is a 400 with the reason.
 */
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { answerForPage, defineEndpoint, Raw, rawRequestOf, reasonOf } from './endpoint';
import { AnswerCache } from './answer-cache';
import { latestSeq } from '../index/read/queries';
import { decodeHoldCursor, fitFilters, historyView, holdsPage, MAX_HOLDS_LIMIT, type HoldFilters } from '../index/read/holds-queries';
import type { DB } from '../index/db';
import { isSafeComponent } from '../ledger/names';
import { historyQueryOf, MAX_QUERY_LENGTH } from '../query/query';
import { resolveWindow, windowAsked } from '../query/window';
import type { HistoryResponse } from './types';
import { ChannelParam, oneChannelRead } from './channel-reads';

const Instant = z.string().max(40).optional();
/** The request's parameters as given; the window they name depends on when it is asked (filtersAt). */
const HoldsRequest = z.object({
  range: z.string().max(10).optional(),
  from: Instant,
  to: Instant,
  agent: z.string().max(200).optional(),
  project: z.string().max(200).optional(),
  order: z.string().max(200).refine(isSafeComponent, 'not an order id').optional(),
  q: z.string().max(MAX_QUERY_LENGTH).optional(),
  cursor: z.string().max(2000).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_HOLDS_LIMIT).optional(),
  channel: ChannelParam,
});
type HoldsParams = z.infer<typeof HoldsRequest>;

type Filtered = { ok: true; filters: HoldFilters; cursor: string | null; limit: number | undefined } | { ok: false; reason: string };

/** The filters parsed parameters ask for at `nowMs`: the window, the query, the cursor; or the reason they ask for none. */
function filtersAt(p: HoldsParams, nowMs: number): Filtered {
  const w = resolveWindow(p, nowMs);
  if (!w.ok) return w;
  const q = historyQueryOf(p);
  if (!q.ok) return { ok: false, reason: `q: ${q.reason} (at character ${q.at + 1})` };
  if (p.cursor && !decodeHoldCursor(p.cursor)) return { ok: false, reason: 'cursor: not a cursor from this API' };
  // No window asked for: the range is fitted to the holds (fitFilters) where the index is at hand.
  const fitted = !windowAsked(p);
  return { ok: true, filters: { window: w.window, terms: q.terms, ...(p.order ? { order: p.order } : {}), ...(w.range ? { range: w.range } : {}), ...(fitted ? { fitted } : {}) }, cursor: p.cursor ?? null, limit: p.limit };
}

/** The filters a query string asks for at `nowMs`, or the reason it asks for none (the CLI's `claimboard holds` reads its options so). */
export function holdFiltersOf(search: string, nowMs: number): Filtered {
  const parsed = HoldsRequest.safeParse(rawRequestOf(search, {}));
  return parsed.success ? filtersAt(parsed.data, nowMs) : { ok: false, reason: reasonOf(parsed.error.issues, []) };
}

/**
 * The endpoint at `path` answering `answer` for the filters a request asks for now, each answer
 * cached by the query string at most 1 s and never past the index's last change (a relative
 * window moves with now).
 */
function holdsEndpoint(path: string, answer: (db: DB, f: Extract<Filtered, { ok: true }>, nowMs: number) => unknown) {
  const cache = new AnswerCache(1000);
  return defineEndpoint({
    method: 'GET',
    path,
    request: HoldsRequest,
    execute(ctx, p) {
      const { db, nowMs: now } = oneChannelRead(ctx, p.channel, 'a fleet history');
      const seq = latestSeq(db);
      const hit = cache.peek(ctx.search, seq, now);
      if (hit) return Raw.bytes(hit);
      const f = filtersAt(p, now);
      if (!f.ok) throw new ClaimboardError('bad_request', f.reason);
      // No window asked for: the range fitted to the holds (fitFilters).
      const filters = f.filters.fitted ? fitFilters(db, f.filters, now) : f.filters;
      return Raw.bytes(cache.put(ctx.search, seq, now, JSON.stringify(answer(db, { ...f, filters }, now))));
    },
  });
}

/** GET /api/holds (the fast path answers it too): one page of the holds in the window. */
export const holdsGet = holdsEndpoint('/api/holds', (db, f, now) => holdsPage(db, f.filters, f.cursor, now, f.limit));

/** GET /api/history: what /history draws. */
export const historyGet = holdsEndpoint('/api/history', (db, f, now) => historyView(db, f.filters, now));

/**
 * What GET /api/history answers for `search`, for the page's server render (app/history/page.tsx);
 * null when it answers an error (the page then asks and shows it). The proxy checked the read token.
 */
export function historyForPage(search: string): HistoryResponse | null {
  return answerForPage(historyGet, search) as HistoryResponse | null;
}
