import 'server-only';
/**
 * A hub's board: the board of each channel it reads (the query's `channel:` terms select them),
 * merged lane by lane. Each channel answers a lane's page from its own index (lanePage, keyset
 * order (sort key, order id)); the pages are merged in the order (sort key, channel, order id),
 * so two channels' orders of one id never mix and a page boundary falls in one place whatever
 * the channels hold. The cursor carries the channel. Lane counts come per channel and summed.
 * A channel's board is kept while its index has not changed (a second at most): a change in one
 * channel has the hub's board compute that channel's again, not every channel's.
 */
import { board as boardOf, lanePage, PAGE_SIZE } from '../index/read/queries';
import { currentHealth, HEALTH_OK } from '../index/health';
import { indexNowMs } from '../index/steady-clock';
import type { DB } from '../index/db';
import { laneSortMs } from '../ledger/card';
import { LANES, type Lane } from '../ledger/derive';
import { channelAllowed, groupQuery, type QueryTerm } from '../query/query';
import { ClaimboardError } from '../errors';
import type { ChannelView } from './channels';
import type { BoardCard, BoardResponse, HubBoardResponse, HubChannelSummary, HubLanePage, IndexHealth, IndexProgress, LanePage } from './types';

/** Where a hub's lane page ends: the last card's sort key, channel and order id. */
export type HubCursor = readonly [sortMs: number, channel: string, orderId: string];

/** Opaque cursor of a hub's lane page: base64url of [sort_ms, channel, order_id]. */
export function encodeHubCursor(c: HubCursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

/** A hub cursor decoded; null when it is not one. */
export function decodeHubCursor(text: string): HubCursor | null {
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 3 && typeof v[0] === 'number' && typeof v[1] === 'string' && typeof v[2] === 'string') return [v[0], v[1], v[2]];
  } catch {
    /* not one */
  }
  return null;
}

/** Above every order id (ids are ASCII letters, digits, `.`, `-` and `_`): a keyset cursor past every card of one sort key. */
const PAST_EVERY_ID = '\u007f';

/**
 * The keyset cursor of channel `name`'s own index for a hub cursor: after (sort, id) in the
 * cursor's channel; from the sort key itself in a channel ordered after it (its cards of that
 * key come later); past the sort key in a channel ordered before it (they came already).
 */
function cursorIn(name: string, after: HubCursor | null): [number, string] | null {
  if (after === null) return null;
  const [sortMs, channel, orderId] = after;
  if (name === channel) return [sortMs, orderId];
  return name > channel ? [sortMs, ''] : [sortMs, PAST_EVERY_ID];
}

/** One channel read: its name and index. */
interface Read {
  readonly name: string;
  readonly db: DB;
}

/** A channel's page of one lane, its cards in its own keyset order. */
interface ChannelPage {
  readonly name: string;
  readonly page: LanePage;
}

/**
 * The first `limit` cards of `pages` in the order (sort key, channel, order id), each card with
 * its channel; the lane's count summed and per channel; a cursor when any channel holds more.
 * Each page holds its channel's first `limit` cards after the cursor (more when it says so), so
 * the first `limit` of their union are the lane's.
 */
export function mergeLane(lane: Lane, pages: readonly ChannelPage[], limit: number): HubLanePage {
  const all = pages.flatMap((p) => p.page.cards.map((card) => ({ channel: p.name, card, sort: laneSortMs(card) })));
  all.sort((a, b) => a.sort - b.sort || (a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0) || (a.card.order_id < b.card.order_id ? -1 : a.card.order_id > b.card.order_id ? 1 : 0));
  const taken = all.slice(0, limit);
  const more = all.length > limit || pages.some((p) => p.page.next_cursor !== null);
  const last = taken[taken.length - 1];
  return {
    lane,
    count: pages.reduce((n, p) => n + p.page.count, 0),
    counts: Object.fromEntries(pages.map((p) => [p.name, p.page.count])),
    cards: taken.map((t): BoardCard & { channel: string } => ({ ...t.card, channel: t.channel })),
    next_cursor: more && last ? encodeHubCursor([last.sort, last.channel, last.card.order_id]) : null,
  };
}

/** The channels of `channels` the query reads that can be read now; the others are said in their summary. */
function readable(channels: readonly ChannelView[], terms: readonly QueryTerm[]): { reads: Read[]; unavailable: Map<string, string> } {
  const g = groupQuery(terms);
  const reads: Read[] = [];
  const unavailable = new Map<string, string>();
  for (const c of channels) {
    if (c.state !== 'served' || !channelAllowed(g, c.name)) continue;
    try {
      reads.push({ name: c.name, db: c.db() });
    } catch (e) {
      if (!(e instanceof ClaimboardError)) throw e;
      unavailable.set(c.name, e.message);
    }
  }
  return { reads, unavailable };
}

/** One lane's next page across the channels the query reads (GET /api/board?lane=&cursor=&limit=). */
export function hubLanePage(channels: readonly ChannelView[], lane: Lane, terms: readonly QueryTerm[], after: HubCursor | null, limit: number): HubLanePage {
  const { reads } = readable(channels, terms);
  return mergeLane(
    lane,
    reads.map((r) => ({ name: r.name, page: lanePage(r.db, lane, terms, cursorIn(r.name, after), limit, indexNowMs(r.db)) })),
    limit,
  );
}

/**
 * The version of each channel the hub's board reads, by name: its index's connection and change
 * position (`versionOf`), `-` when its index cannot be opened. Read once per request.
 */
export function channelVersions(channels: readonly ChannelView[], versionOf: (db: DB) => string): Map<string, string> {
  const versions = new Map<string, string>();
  for (const c of channels) {
    if (c.state !== 'served') continue;
    try {
      versions.set(c.name, versionOf(c.db()));
    } catch {
      versions.set(c.name, '-');
    }
  }
  return versions;
}

/**
 * A version of what the hub's board reads: every channel's (channelVersions). An answer computed
 * at one version is the answer while it holds (with the registry's identity).
 */
export function hubVersion(versions: ReadonlyMap<string, string>): string {
  return [...versions].map(([name, v]) => `${name}:${v}`).join(' ');
}

/** How long a channel's board is used again while its index has not changed, ms: as long as the board's answers are (board-get.ts). */
const CHANNEL_BOARD_MS = 1000;

/** A channel's board as hubBoard computed it: at which change position and when (ms, this machine's clock). */
interface ChannelBoard {
  readonly version: string;
  readonly at: number;
  readonly board: BoardResponse;
}

/** Each channel's board as channelBoard last computed it, by channel and query. */
const channelBoards = new Map<string, ChannelBoard>();

/**
 * A channel's board for the hub's: the one computed before while the channel's version (its
 * index connection and change position) is the same and it is at most CHANNEL_BOARD_MS old on
 * this machine's clock (Date.now: the age only decides how long a board is kept; its cards' ages
 * move with time), else computed now. A write into one channel then has the hub compute that
 * channel's board again, not every channel's. Boards older than that go at each computation: the
 * map holds what was asked within the last second.
 */
function channelBoard(db: DB, terms: readonly QueryTerm[], actionsEnabled: boolean, key: string, version: string): BoardResponse {
  const now = Date.now();
  const hit = channelBoards.get(key);
  if (hit && hit.version === version && now - hit.at <= CHANNEL_BOARD_MS) return hit.board;
  const board = boardOf(db, terms, indexNowMs(db), actionsEnabled);
  for (const [k, b] of channelBoards) if (now - b.at > CHANNEL_BOARD_MS) channelBoards.delete(k);
  channelBoards.set(key, { version, at: now, board });
  return board;
}

/**
 * Every lane's first page across the channels the query reads, each channel's summary (the gone
 * ones too, with why). `versions` names each channel's index connection and change position
 * (channelVersions): each channel's board is computed again only when its own changed.
 */
export function hubBoard(channels: readonly ChannelView[], terms: readonly QueryTerm[], actionsEnabled: boolean, versions: ReadonlyMap<string, string>): HubBoardResponse {
  const { reads, unavailable } = readable(channels, terms);
  const query = JSON.stringify([terms, actionsEnabled]);
  const boards = new Map(reads.map((r) => [r.name, channelBoard(r.db, terms, actionsEnabled, `${r.name}\n${query}`, versions.get(r.name) ?? '-')]));
  const summaries = channels.map((c): HubChannelSummary => {
    const b = boards.get(c.name);
    return {
      name: c.name,
      state: c.state,
      why: c.state === 'gone' ? c.why : (unavailable.get(c.name) ?? null),
      read: b !== undefined,
      root: b?.channel ?? null,
      stale_after_ms: b?.stale_after_ms ?? null,
      progress: b?.progress ?? null,
      problem_count: b?.problem_count ?? 0,
      counts: b ? Object.fromEntries(b.lanes.map((l) => [l.lane, l.count])) : {},
    };
  });
  const first = [...boards.values()][0];
  return {
    hub: true,
    channel: '',
    now_ms: first?.now_ms ?? Date.now(),
    stale_after_ms: first?.stale_after_ms ?? 0,
    progress: overallProgress([...boards.values()].map((b) => b.progress)),
    actions_enabled: actionsEnabled,
    lanes: LANES.map((lane) =>
      mergeLane(
        lane,
        [...boards].map(([name, b]) => ({ name, page: b.lanes.find((l) => l.lane === lane) as LanePage })),
        PAGE_SIZE,
      ),
    ),
    problem_count: [...boards.values()].reduce((n, b) => n + b.problem_count, 0),
    agents: [...new Set([...boards.values()].flatMap((b) => b.agents))].sort(),
    key_changes: [...new Set([...boards.values()].flatMap((b) => b.key_changes))].sort(),
    channels: summaries,
  };
}

/**
 * The health of each channel read (its writer's word on whether its board is current), and the
 * hub's: the first channel's that is not ok, else ok. Read on every request, outside any cache.
 */
export function hubHealth(channels: readonly ChannelView[], read: readonly string[]): { overall: IndexHealth; each: Record<string, IndexHealth> } {
  const each: Record<string, IndexHealth> = {};
  for (const c of channels) if (read.includes(c.name)) each[c.name] = c.dbFile ? currentHealth(c.dbFile) : HEALTH_OK;
  return { overall: Object.values(each).find((h) => h.state !== 'ok') ?? HEALTH_OK, each };
}

/** The hub's progress: the first channel still indexing says it (the files summed); ready when all are, at the last one's time (none read: no time). */
function overallProgress(each: readonly IndexProgress[]): IndexProgress {
  const busy = each.find((p) => p.phase !== 'ready');
  const sum = (k: 'files_seen' | 'files_read' | 'files_verified') => each.reduce((n, p) => n + p[k], 0);
  const readyAt = each.map((p) => p.ready_at_ms);
  return {
    phase: busy?.phase ?? 'ready',
    files_seen: sum('files_seen'),
    files_read: sum('files_read'),
    files_verified: sum('files_verified'),
    ready_at_ms: busy || readyAt.length === 0 || readyAt.some((r) => r === null) ? null : Math.max(...(readyAt as number[])),
  };
}
