import 'server-only';
import { z } from 'zod';
import { actionsEnabled, errorAnswer, jsonAnswer, readTokenChecked, withDbAnswer } from './http';
import { readRequestOf, toResponse, type Answer, type ReadRequest } from './answer';
import { board, decodeCursor, lanePage, latestSeq, PAGE_SIZE } from '../index/read/queries';
import { AnswerCache } from './answer-cache';
import { serverOverlay } from '../index/read/local-overlay';
import { LANES } from '../ledger/derive';
import { ATTENTION_FLAGS, ORDER_STATES } from '../ledger/card';
import { MAX_QUERY_LENGTH, queryOfParams } from '../query/query';
import { currentHealth, HEALTH_OK, type IndexHealth } from '../index/health';
import { settings } from '../config';
import { MAX_LANE_LIMIT, type BoardResponse } from './types';
import { indexNowMs } from '../index/steady-clock';

/**
 * `q`: the board query (lib/query/query.ts); `agent`, `state`, `flag`: the older parameters, each
 * one more term of the query (`agent=fang` is `agent:fang`). A query that does not parse is a
 * 400 whose message is the parser's reason and the character it starts at.
 */
const Query = z
  .object({
    lane: z.enum(LANES as unknown as [string, ...string[]]).optional(),
    cursor: z.string().max(2000).optional(),
    // With `lane`: how many cards this page holds (a lane fetched again after its first page
    // changed asks for as many as it had loaded, so it keeps its length).
    limit: z.coerce.number().int().min(1).max(MAX_LANE_LIMIT).optional(),
    agent: z.string().max(200).optional(),
    state: z.enum(ORDER_STATES).optional(),
    flag: z.enum(ATTENTION_FLAGS).optional(),
    q: z.string().max(MAX_QUERY_LENGTH).optional(),
  })
  .transform((p, ctx) => {
    const parsed = queryOfParams(p);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', path: ['q'], message: `${parsed.reason} (at character ${parsed.at + 1})` });
      return z.NEVER;
    }
    return { lane: p.lane, cursor: p.cursor, limit: p.limit, terms: parsed.terms };
  });

const healthOf = (file: string | undefined) => (file ? currentHealth(file) : HEALTH_OK);

/** The answer's first bytes, `{"index_health":...,`, for a health (kept while the health object is the same). */
let healthPrefix: { health: IndexHealth; bytes: Buffer } | null = null;
function healthBytes(health: IndexHealth): Buffer {
  if (healthPrefix?.health !== health) healthPrefix = { health, bytes: Buffer.from(`{"index_health":${JSON.stringify(health)},`) };
  return healthPrefix.bytes;
}

/** Answers at most 1 s old and never older than the index's last change (`now_ms` may lag by that second). */
const cache = new AnswerCache(1000);

/**
 * GET /api/board: every lane's count and first page; with `lane` (and `cursor`, `limit`), one
 * lane's next page. Cached by the raw query string: a query answered before was valid then and
 * parses the same now, so a hit skips parsing.
 */
function get(req: ReadRequest): Answer {
  const url = req.url;
  const q = url.indexOf('?');
  const search = q === -1 ? '' : url.slice(q);
  return withDbAnswer((db) => {
    const now = indexNowMs(db);
    const seq = latestSeq(db);
    // The writer's word on whether this board is current (a full disk, a rebuild, the folder
    // gone): read on every request, outside the cache, since it changes with no change row.
    const health = healthBytes(healthOf(settings.dbFile()));
    const withHealth = (body: Buffer) => jsonAnswer(Buffer.concat([health, body.subarray(1)]));
    const hit = cache.peek(search, seq, now);
    if (hit) return withHealth(hit);
    const params = Object.fromEntries(new URLSearchParams(search));
    for (const k of Object.keys(params)) if (params[k] === '') delete params[k];
    const parsed = Query.safeParse(params);
    if (!parsed.success) return errorAnswer('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { lane, cursor, limit, terms } = parsed.data;
    const c = cursor ? decodeCursor(cursor) : null;
    if (cursor && !c) return errorAnswer('bad_request', 'cursor: not a cursor from this API');
    // This machine's facts: nothing changes where no agent is local and nothing is held.
    const overlay = serverOverlay();
    const body = JSON.stringify(
      lane ? overlay.lanePage(db, lanePage(db, lane as (typeof LANES)[number], terms, c, limit ?? PAGE_SIZE, now), now) : overlay.board(db, board(db, terms, now, actionsEnabled()), now),
    );
    return withHealth(cache.put(search, seq, now, body));
  });
}

/** GET /api/board for the web process's fast path (lib/api/fast-path.ts), read token checked. */
export const boardAnswer = readTokenChecked(get);

/** The same handler as a Next.js route (app/api/board/route.ts), so both answer alike. */
export function getBoard(req: Request): Response {
  return toResponse(boardAnswer(readRequestOf(req)));
}

/**
 * The board GET /api/board would answer for `search` (`''` or `?q=...`), for the board page's
 * server render (app/page.tsx): the page arrives with its lanes and cards, and the browser asks
 * the API only when something changes. The read token was checked by the proxy for the page.
 * Null when the API would answer an error (no index yet, a query it refuses): the page then
 * fetches the board itself and shows the error as it always has.
 */
export function boardForPage(search: string): BoardResponse | null {
  const a = get({ url: `/api/board${search}`, header: () => null });
  return a.status === 200 ? (JSON.parse(a.body.toString('utf8')) as BoardResponse) : null;
}
