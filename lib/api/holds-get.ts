import 'server-only';
/**
 * GET /api/holds (the fast path answers it too, lib/api/fast-path.ts) and GET /api/history: the
 * fleet history's rows and what /history draws, for a window (`range` 1h | 24h | 7d | 30d, or
 * `from` and `to`: ms or RFC 3339, this machine's clock; none: the range fitted to the holds,
 * lib/query/window.ts fitRange) and a query (`q`, `agent`, `project`, `order`).
 * A window or a query that does not read is a 400 with the reason.
 */
import { z } from 'zod';
import { errorAnswer, jsonAnswer, readTokenChecked, withDbAnswer } from './http';
import { readRequestOf, toResponse, type Answer, type ReadRequest } from './answer';
import { AnswerCache } from './answer-cache';
import { latestSeq } from '../index/read/queries';
import { decodeHoldCursor, fitFilters, historyView, holdsPage, MAX_HOLDS_LIMIT, type HoldFilters } from '../index/read/holds-queries';
import { indexNowMs } from '../index/steady-clock';
import { isSafeComponent } from '../ledger/names';
import { historyQueryOf, MAX_QUERY_LENGTH } from '../query/query';
import { resolveWindow, windowAsked } from '../query/window';
import type { HistoryResponse } from './types';

const Instant = z.string().max(40).optional();
const Params = z.object({
  range: z.string().max(10).optional(),
  from: Instant,
  to: Instant,
  agent: z.string().max(200).optional(),
  project: z.string().max(200).optional(),
  order: z.string().max(200).refine(isSafeComponent, 'not an order id').optional(),
  q: z.string().max(MAX_QUERY_LENGTH).optional(),
  cursor: z.string().max(2000).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_HOLDS_LIMIT).optional(),
});

/** The filters a query string asks for at `nowMs`, or the reason it asks for none. */
export function holdFiltersOf(search: string, nowMs: number): { ok: true; filters: HoldFilters; cursor: string | null; limit: number | undefined } | { ok: false; reason: string } {
  const params = Object.fromEntries(new URLSearchParams(search));
  delete params.token;
  for (const k of Object.keys(params)) if (params[k] === '') delete params[k];
  const parsed = Params.safeParse(params);
  if (!parsed.success) return { ok: false, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const p = parsed.data;
  const w = resolveWindow(p, nowMs);
  if (!w.ok) return w;
  const q = historyQueryOf(p);
  if (!q.ok) return { ok: false, reason: `q: ${q.reason} (at character ${q.at + 1})` };
  if (p.cursor && !decodeHoldCursor(p.cursor)) return { ok: false, reason: 'cursor: not a cursor from this API' };
  // No window asked for: the range is fitted to the holds (fitFilters) where the index is at hand.
  const fitted = !windowAsked(p);
  return { ok: true, filters: { window: w.window, terms: q.terms, ...(p.order ? { order: p.order } : {}), ...(w.range ? { range: w.range } : {}), ...(fitted ? { fitted } : {}) }, cursor: p.cursor ?? null, limit: p.limit };
}

const searchOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q);
};

/** Answers at most 1 s old and never older than the index's last change (a relative window moves with now). */
const pages = new AnswerCache(1000);
const views = new AnswerCache(1000);

function getHolds(req: ReadRequest): Answer {
  const search = searchOf(req.url);
  return withDbAnswer((db) => {
    const now = indexNowMs(db);
    const seq = latestSeq(db);
    const hit = pages.peek(search, seq, now);
    if (hit) return jsonAnswer(hit);
    const f = holdFiltersOf(search, now);
    if (!f.ok) return errorAnswer('bad_request', f.reason);
    const filters = f.filters.fitted ? fitFilters(db, f.filters, now) : f.filters;
    return jsonAnswer(pages.put(search, seq, now, JSON.stringify(holdsPage(db, filters, f.cursor, now, f.limit))));
  });
}

function getHistory(req: ReadRequest): Answer {
  const search = searchOf(req.url);
  return withDbAnswer((db) => {
    const now = indexNowMs(db);
    const seq = latestSeq(db);
    const hit = views.peek(search, seq, now);
    if (hit) return jsonAnswer(hit);
    const f = holdFiltersOf(search, now);
    if (!f.ok) return errorAnswer('bad_request', f.reason);
    const filters = f.filters.fitted ? fitFilters(db, f.filters, now) : f.filters;
    return jsonAnswer(views.put(search, seq, now, JSON.stringify(historyView(db, filters, now))));
  });
}

/** GET /api/holds for the web process's fast path, read token checked. */
export const holdsAnswer = readTokenChecked(getHolds);
const historyAnswer = readTokenChecked(getHistory);

/** GET /api/holds as a Next.js route (app/api/holds/route.ts). */
export function getHoldsRoute(req: Request): Response {
  return toResponse(holdsAnswer(readRequestOf(req)));
}

/** GET /api/history as a Next.js route (app/api/history/route.ts). */
export function getHistoryRoute(req: Request): Response {
  return toResponse(historyAnswer(readRequestOf(req)));
}

/**
 * What GET /api/history answers for `search`, for the page's server render (app/history/page.tsx);
 * null when it answers an error (the page then asks and shows it). The proxy checked the read token.
 */
export function historyForPage(search: string): HistoryResponse | null {
  const a = getHistory({ url: `/api/history${search}`, header: () => null });
  return a.status === 200 ? (JSON.parse(a.body.toString('utf8')) as HistoryResponse) : null;
}
