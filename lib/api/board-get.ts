import 'server-only';
/**
 * GET /api/board (the fast path answers it too, lib/api/fast-path.ts): every lane's count and
 * first page, or one lane's next page. One channel served: its board, each card naming its
 * channel. Several (a hub), or one served beside gone ones: the hub's board (hub-board.ts).
 */
import { z } from 'zod';
import { defineEndpoint, Raw, answerForPage } from './endpoint';
import { board as boardOf, decodeCursor, lanePage, latestSeq, PAGE_SIZE } from '../index/read/queries';
import { servedChannelOf } from '../index/store/meta';
import { indexNowMs } from '../index/steady-clock';
import type { DB } from '../index/db';
import { ClaimboardError } from '../errors';
import { onlyChannel, type ChannelView, type ServedChannels } from './channels';
import { channelVersions, decodeHubCursor, hubBoard, hubHealth, hubLanePage, hubVersion } from './hub-board';
import type { EndpointContext } from './endpoint';
import { AnswerCache } from './answer-cache';
import { serverOverlay } from '../index/read/local-overlay';
import { LANES, type Lane } from '../ledger/derive';
import { ATTENTION_FLAGS, ORDER_STATES } from '../ledger/card';
import { channelAllowed, groupQuery, MAX_QUERY_LENGTH, queryOfParams } from '../query/query';
import { currentHealth, HEALTH_OK, type IndexHealth } from '../index/health';
import { MAX_LANE_LIMIT, type BoardResponse, type LanePage } from './types';

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
    // A cursor of one channel's board, or of a hub's (it carries the channel).
    const after = p.cursor ? decodeCursor(p.cursor) : null;
    const hubAfter = p.cursor && !after ? decodeHubCursor(p.cursor) : null;
    if (p.cursor && !after && !hubAfter) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'not a cursor from this API' });
      return z.NEVER;
    }
    return { lane: p.lane, cursor: p.cursor, limit: p.limit, terms: parsed.terms, after, hubAfter };
  });

type BoardReq = z.output<typeof BoardRequest>;

const healthOf = (file: string | null) => (file ? currentHealth(file) : HEALTH_OK);

/** The answer's first bytes, `{"index_health":...,`, for a health (kept while the health object is the same). */
let healthPrefix: { health: IndexHealth; bytes: Buffer } | null = null;
function healthBytes(health: IndexHealth): Buffer {
  if (healthPrefix?.health !== health) healthPrefix = { health, bytes: Buffer.from(`{"index_health":${JSON.stringify(health)},`) };
  return healthPrefix.bytes;
}

/** `body` (a JSON object's text) with `prefix` (`{"key":value,`) in place of its opening brace. */
const withPrefix = (prefix: Buffer, body: Buffer) => Raw.bytes(Buffer.concat([prefix, body.subarray(1)]));

/** Answers at most 1 s old and never older than the index's last change (`now_ms` may lag by that second). */
const cache = new AnswerCache(1000);

/** GET /api/board: every lane's count and first page; with `lane` (and `cursor`, `limit`), one lane's next page. Cached by the query string. */
export const boardGet = defineEndpoint({
  method: 'GET',
  path: '/api/board',
  request: BoardRequest,
  execute(ctx, req) {
    const channels = ctx.channels();
    const only = onlyChannel(channels);
    return only ? oneChannel(ctx, req, only, channels.id) : hub(ctx, req, channels);
  },
});

/** A lane of one channel's board, each card naming the channel; empty when the query's `channel:` terms leave it out. */
function named(page: LanePage, channel: string, read: boolean): LanePage {
  return read ? { ...page, cards: page.cards.map((c) => ({ ...c, channel })) } : { ...page, count: 0, cards: [], next_cursor: null };
}

/** The board of the one channel served (as it always was, with each card's channel). */
function oneChannel(ctx: EndpointContext, req: BoardReq, ch: ChannelView, registryId: string): Raw {
  if (req.hubAfter) throw new ClaimboardError('bad_request', 'cursor: a cursor of a board of several channels; this one serves one');
  const db = ch.db();
  const now = indexNowMs(db);
  const seq = latestSeq(db);
  // The writer's word on whether this board is current (a full disk, a rebuild, the folder
  // gone): read on every request, outside the cache, since it changes with no change row.
  const health = healthBytes(healthOf(ch.dbFile));
  // Keyed by the connection too: an index rebuilt under its path starts its change feed again.
  const key = `${registryId}\n${connectionOf(db)}\n${ctx.search}`;
  const hit = cache.peek(key, seq, now);
  if (hit) return withPrefix(health, hit);
  const read = channelAllowed(groupQuery(req.terms), ch.name);
  // This machine's facts: nothing changes where no agent is local and nothing is held.
  const overlay = serverOverlay(servedChannelOf(db).root);
  let out: LanePage | BoardResponse;
  if (req.lane) out = named(overlay.lanePage(db, lanePage(db, req.lane, req.terms, req.after, req.limit ?? PAGE_SIZE, now), now), ch.name, read);
  else {
    const b = overlay.board(db, boardOf(db, req.terms, now, !ctx.readOnly), now);
    out = { ...b, lanes: b.lanes.map((l) => named(l, ch.name, read)) };
  }
  return withPrefix(health, cache.put(key, seq, now, JSON.stringify(out)));
}

/** Each connection's number in this process: an index rebuilt under its path is another connection, so another version. */
const connections = new WeakMap<DB, number>();
let nextConnection = 0;
function connectionOf(db: DB): number {
  let n = connections.get(db);
  if (n === undefined) connections.set(db, (n = ++nextConnection));
  return n;
}

/** A channel's index as a hub's answers name it: its connection and its change position. */
const versionOf = (db: DB) => `${connectionOf(db)}:${latestSeq(db)}`;

/**
 * A hub's board (hub-board.ts). This machine's local agents and reaper are refused by a hub's
 * serve, so no local overlay. Cached by the registry's identity and the query string while no
 * channel read has changed; each channel's health is read on every request, outside the cache.
 */
function hub(ctx: EndpointContext, req: BoardReq, channels: ServedChannels): Raw {
  if (req.after) throw new ClaimboardError('bad_request', 'cursor: a cursor of a board of one channel; this one serves several');
  const g = groupQuery(req.terms);
  const read = channels.list.filter((c) => c.state === 'served' && channelAllowed(g, c.name)).map((c) => c.name);
  const h = hubHealth(channels.list, read);
  const prefix = Buffer.from(`{"index_health":${JSON.stringify(h.overall)},"channel_health":${JSON.stringify(h.each)},`);
  const versions = channelVersions(channels.list, versionOf);
  const version = hubVersion(versions);
  const key = `${channels.id}\n${ctx.search}`;
  // The cache's age is on this machine's clock; it decides only how long an answer is kept.
  const now = Date.now();
  const hit = cache.peek(key, version, now);
  if (hit) return withPrefix(prefix, hit);
  const body = req.lane ? hubLanePage(channels.list, req.lane, req.terms, req.hubAfter, req.limit ?? PAGE_SIZE) : hubBoard(channels.list, req.terms, !ctx.readOnly, versions);
  return withPrefix(prefix, cache.put(key, version, now, JSON.stringify(body)));
}

/**
 * The board GET /api/board would answer for `search` (`''` or `?q=...`), for the board page's
 * server render (app/page.tsx): the page arrives with its lanes and cards, and the browser asks
 * the API only when something changes. Null when the API would answer an error (no index yet, a
 * query it refuses): the page then fetches the board itself and shows the error as it always has.
 */
export function boardForPage(search: string): BoardResponse | null {
  return answerForPage(boardGet, search) as BoardResponse | null;
}
