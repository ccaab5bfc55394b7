import 'server-only';
/** GET /api/board (the fast path answers it too, lib/api/fast-path.ts): every lane's count and first page, or one lane's next page. */
import { z } from 'zod';
import { defineEndpoint, Raw, answerForPage } from './endpoint';
import { board as boardOf, decodeCursor, lanePage, latestSeq, PAGE_SIZE } from '../index/read/queries';
import { AnswerCache } from './answer-cache';
import { serverOverlay } from '../index/read/local-overlay';
import { LANES, type Lane } from '../ledger/derive';
import { ATTENTION_FLAGS, ORDER_STATES } from '../ledger/card';
import { MAX_QUERY_LENGTH, queryOfParams } from '../query/query';
import { currentHealth, HEALTH_OK, type IndexHealth } from '../index/health';
import { settings } from '../config';
import { MAX_LANE_LIMIT, type BoardResponse } from './types';

/**
 * `q`: the board query (lib/query/query.ts); `agent`, `state`, `flag`: the older parameters, each
 * one more term of the query (`agent=fang` is `agent:fang`). A query that does not parse is a
 * 400 whose message is the parser's reason and the character it starts at; then a cursor that
 * is not one of this API's.
 */
const BoardRequest = z
  .object({
    lane: z.enum(LANES as unknown as [Lane, ...Lane[]]).optional(),
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
    const after = p.cursor ? decodeCursor(p.cursor) : null;
    if (p.cursor && !after) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'not a cursor from this API' });
      return z.NEVER;
    }
    return { lane: p.lane, cursor: p.cursor, limit: p.limit, terms: parsed.terms, after };
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

/** GET /api/board: every lane's count and first page; with `lane` (and `cursor`, `limit`), one lane's next page. Cached by the query string. */
export const boardGet = defineEndpoint({
  method: 'GET',
  path: '/api/board',
  request: BoardRequest,
  execute(ctx, req) {
    const db = ctx.db();
    const now = ctx.nowMs();
    const seq = latestSeq(db);
    // The writer's word on whether this board is current (a full disk, a rebuild, the folder
    // gone): read on every request, outside the cache, since it changes with no change row.
    const health = healthBytes(healthOf(settings.dbFile()));
    const withHealth = (body: Buffer) => Raw.bytes(Buffer.concat([health, body.subarray(1)]));
    const hit = cache.peek(ctx.search, seq, now);
    if (hit) return withHealth(hit);
    // This machine's facts: nothing changes where no agent is local and nothing is held.
    const overlay = serverOverlay(ctx.served().root);
    const body = JSON.stringify(
      req.lane ? overlay.lanePage(db, lanePage(db, req.lane, req.terms, req.after, req.limit ?? PAGE_SIZE, now), now) : overlay.board(db, boardOf(db, req.terms, now, !ctx.readOnly), now),
    );
    return withHealth(cache.put(ctx.search, seq, now, body));
  },
});

/**
 * The board GET /api/board would answer for `search` (`''` or `?q=...`), for the board page's
 * server render (app/page.tsx): the page arrives with its lanes and cards, and the browser asks
 * the API only when something changes. Null when the API would answer an error (no index yet, a
 * query it refuses): the page then fetches the board itself and shows the error as it always has.
 */
export function boardForPage(search: string): BoardResponse | null {
  return answerForPage(boardGet, search) as BoardResponse | null;
}
