import 'server-only';
/**
 * Read side of the index: what the route handlers and the action endpoints
 * (lib/actions/server.ts) ask, on the read-only connection they open (db.ts `readDb`); never
 * writes. Keyset pagination over (sort_ms, order_id) within a lane, stable under updates. The
 * writer's SQL is store.ts; the meta keys meta.ts; an order page's read of its folder
 * order-detail.ts.
 */
import { bulkLoadOpen, type DB } from '../db';
import { stmt } from './statements';
import { LANES, type Card, type Lane, type OrderState } from '../../ledger/derive';
import type {
  AgentResponse,
  AgentSummary,
  AgentsResponse,
  BoardResponse,
  ChangedEvent,
  IndexProgress,
  LanePage,
  OrderResponse,
  ProblemsResponse,
  StoredAgent,
} from '../types';
import type { Hold } from '../../ledger/holds';
import type { Roster, RosterEntry } from '../../ledger/verify';
import { laneWhere } from './board-where';
import { channelRootOf, readMeta, staleAfterMsOf } from '../store/meta';
import { indexClockSteps } from '../steady-clock';
import { orderBody, type OrderInputs, type RunRow } from './order-detail';
import { groupQuery, type QueryTerm } from '../../query/query';

/** Cards per lane page. */
export const PAGE_SIZE = 30;

/** Progress of the first index. */
export function progressOf(db: DB): IndexProgress {
  return readMeta(db, 'progress') ?? { phase: 'starting', files_seen: 0, files_read: 0, files_verified: 0, ready_at_ms: null };
}

/** Opaque keyset cursor: base64url of [sort_ms, order_id]. */
export function encodeCursor(sortMs: number, orderId: string): string {
  return Buffer.from(JSON.stringify([sortMs, orderId])).toString('base64url');
}
/** Decodes a cursor; null when malformed. */
export function decodeCursor(c: string): [number, string] | null {
  try {
    const v = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string') return [v[0], v[1]];
  } catch {
    /* malformed */
  }
  return null;
}

/**
 * One page of a lane after `cursor` (null: from the start), with the lane's count, of the cards
 * the query matches (lib/query/query.ts; the SQL is board-where.ts). `nowMs` is this machine's clock,
 * for `age:` terms. A lane the query's `lane:` terms leave out is empty.
 */
export function lanePage(db: DB, lane: Lane, terms: readonly QueryTerm[], cursor: [number, string] | null, limit = PAGE_SIZE, nowMs = Date.now()): LanePage {
  const g = groupQuery(terms);
  const usesAge = g.age.min !== null || g.age.max !== null;
  const w = laneWhere(lane, g, nowMs, usesAge ? staleAfterMsOf(db) : 0);
  if (!w) return { lane, count: 0, cards: [], next_cursor: null };
  const { key } = w;
  const count = (
    w.agentOnly !== null
      ? stmt(db, 'SELECT COUNT(*) AS n FROM card_agents WHERE agent = ? AND lane = ?').get(w.agentOnly, lane)
      : w.unfiltered && !bulkLoadOpen(db) // lane_counts is made at a bulk load's end: until then, counted card by card
        ? { n: (stmt(db, 'SELECT n FROM lane_counts WHERE lane = ?').pluck().get(lane) as number | undefined) ?? 0 }
        : stmt(db, `SELECT COUNT(*) AS n ${w.from}`).get(...w.args)
  ) as { n: number };
  const after = cursor ? ` AND (${key}.sort_ms, ${key}.order_id) > (?, ?)` : '';
  const rows = stmt(db, `SELECT c.card, ${key}.sort_ms, ${key}.order_id ${w.from}${after} ORDER BY ${key}.sort_ms, ${key}.order_id LIMIT ?`).all(
    ...w.args,
    ...(cursor ?? []),
    limit + 1,
  ) as { card: string; sort_ms: number; order_id: string }[];
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    lane,
    count: count.n,
    cards: withUnverified(db, page.map((r) => JSON.parse(r.card) as Card)),
    next_cursor: rows.length > limit && last ? encodeCursor(last.sort_ms, last.order_id) : null,
  };
}

/** Whether any card is still shown unverified (a cold index checking signatures behind the board). */
export function anyUnverified(db: DB): boolean {
  return stmt(db, 'SELECT EXISTS (SELECT 1 FROM unverified) AS n').pluck().get() === 1;
}

/** Whether the order's card was derived from records not verified yet (its id as given, any case). */
export function isUnverified(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM unverified WHERE order_id = ?').get(id.toLowerCase()) !== undefined;
}

/** `cards` with `unverified: true` on each one still marked so (cold-pass.ts); as given when none is. */
function withUnverified(db: DB, cards: Card[]): Card[] {
  if (cards.length === 0 || !anyUnverified(db)) return cards;
  return cards.map((c) => (isUnverified(db, c.order_id) ? { ...c, unverified: true } : c));
}

/** GET /api/board: every lane's count and first page under the query (`nowMs`: this machine's clock). */
export function board(db: DB, terms: readonly QueryTerm[], nowMs: number, actionsEnabled: boolean): BoardResponse {
  return {
    channel: channelRootOf(db) ?? '',
    now_ms: nowMs,
    stale_after_ms: staleAfterMsOf(db),
    progress: progressOf(db),
    actions_enabled: actionsEnabled,
    lanes: LANES.map((lane) => lanePage(db, lane, terms, null, PAGE_SIZE, nowMs)),
    problem_count: (stmt(db, 'SELECT COUNT(*) AS n FROM problems').get() as { n: number }).n,
    agents: (stmt(db, 'SELECT name FROM agents ORDER BY name').all() as { name: string }[]).map((r) => r.name),
    key_changes: (stmt(db, "SELECT name FROM agents WHERE json_extract(summary, '$.key_changed') = 1 ORDER BY name").all() as { name: string }[]).map((r) => r.name),
  };
}

/**
 * A token of this connection's view of the index: the same string as long as nothing has been
 * committed to the database since (by another connection: PRAGMA data_version; by this one:
 * total_changes()). Read inside a transaction, it is at most as new as that transaction's snapshot.
 */
export function indexVersion(db: DB): string {
  const r = stmt(db, 'SELECT data_version AS v, total_changes() AS t FROM pragma_data_version').get() as { v: number; t: number };
  return `${r.v} ${r.t}`;
}

/** The roster fields a folder's verification reads, one line per agent (the roster's version). */
const ROSTER_SQL = `SELECT group_concat(name || ' ' || ifnull(json_extract(summary, '$.role'), '') || ' ' || ifnull(json_extract(summary, '$.public_key'), '') || ' ' || json_extract(summary, '$.is_operator') || ' ' || ifnull(json_extract(summary, '$.is_authority'), 0), char(10) ORDER BY name) AS v FROM agents`;
const rosters = new WeakMap<DB, { seenAt: string; version: string; roster: Roster }>();

/**
 * The roster as the index knows it (pinned keys, operators), for re-reading a folder on request,
 * and its version (a string that changes whenever anything the roster holds changes). Built once
 * per version, and its version read again only when the index changed (`at`: indexVersion).
 */
export function rosterOf(db: DB, at: string): { version: string; roster: Roster } {
  const known = rosters.get(db);
  if (known && known.seenAt === at) return known;
  const version = (stmt(db, ROSTER_SQL).get() as { v: string | null }).v ?? '';
  if (known && known.version === version) {
    known.seenAt = at;
    return known;
  }
  const entries = new Map<string, RosterEntry>();
  const operators = new Set<string>();
  const authorities = new Set<string>();
  for (const r of stmt(db, 'SELECT summary FROM agents').all() as { summary: string }[]) {
    const a = JSON.parse(r.summary) as AgentSummary;
    entries.set(a.name, { name: a.name, role: a.role, capabilities: [], public_key: a.public_key, folder_key: a.public_key, path: '' });
    if (a.is_operator) operators.add(a.name);
    if (a.is_authority) authorities.add(a.name);
  }
  const master = [...entries.values()].find((e) => e.role === 'master')?.name ?? null;
  const built = { seenAt: at, version, roster: { entries, operators, authorities, master } };
  rosters.set(db, built);
  return built;
}

const inputReaders = new WeakMap<DB, (id: string) => OrderInputs | null>();

/** The inputs of an order's answer, read in one transaction (one snapshot of the index). */
function orderInputs(db: DB, id: string): OrderInputs | null {
  let read = inputReaders.get(db);
  if (!read) inputReaders.set(db, (read = db.transaction((i: string) => readOrderInputs(db, i))));
  return read(id);
}

function readOrderInputs(db: DB, id: string): OrderInputs | null {
  const at = indexVersion(db);
  const row = stmt(db, 'SELECT card, order_id, order_dir FROM cards WHERE order_id = ?').get(id.toLowerCase()) as { card: string; order_id: string; order_dir: string } | undefined;
  if (!row) return null;
  return {
    at,
    cardText: row.card,
    unverified: isUnverified(db, row.order_id),
    orderDir: row.order_dir,
    files: stmt(db, 'SELECT path, stat, arrival_ms, sig_key, sig_ok FROM files WHERE order_dir = ? ORDER BY path').all(row.order_dir) as OrderInputs['files'],
    runs: stmt(db, 'SELECT agent, run, pid, first_arrival_ms, last_arrival_ms, last_writer_at, beats, writer_offset_ms FROM runs WHERE order_id = ? ORDER BY first_arrival_ms, agent, run').all(row.order_id) as RunRow[],
    dependents: stmt(db, 'SELECT c.order_id, c.state FROM deps d JOIN cards c ON c.order_id = d.order_id WHERE d.dep = ? ORDER BY c.order_id').all(row.order_id) as OrderInputs['dependents'],
    roster: rosterOf(db, at),
    channel: channelRootOf(db) ?? '',
    staleAfterMs: staleAfterMsOf(db),
    clockSteps: indexClockSteps(db),
  };
}

/** A string that differs whenever any of the inputs differs (the cached answer's version). */
function versionOf(i: OrderInputs): string {
  return JSON.stringify([i.cardText, i.unverified, i.orderDir, i.files, i.runs, i.dependents, i.roster.version, i.channel, i.clockSteps]);
}

/**
 * GET /api/orders/:id, or null when there is no such order: the card from the index, the
 * timeline and files read fresh from the order's folder. Uncached (see orderJson).
 */
export function order(db: DB, id: string, nowMs: number): OrderResponse | null {
  const i = orderInputs(db, id);
  return i ? { ...orderBody(i, nowMs), now_ms: nowMs, stale_after_ms: i.staleAfterMs } : null;
}

/**
 * Order answers as JSON text without their clock fields, by order id, each with the version of
 * the index rows it was computed from (the order's card, its files' stat identities and
 * remembered signature checks, its runs, its dependents' states, the roster, the channel). An
 * entry is used only while that version is current, so an answer is never older than the
 * index's last change to anything it shows; a folder changed on disk shows once the index has
 * read it (within ~100 ms, the same as the board). While nothing at all was committed to the
 * index since an entry was last checked (indexVersion), it is used without reading its rows.
 * Least recently used entries go first when the texts exceed `maxBytes` (UTF-16 code units,
 * roughly bytes).
 */
export class OrderAnswerCache {
  private readonly entries = new Map<string, { version: string; at: string; head: string; staleAfterMs: number }>();
  private size = 0;
  /** Answers served from the cache, and computed (tests). */
  hits = 0;
  misses = 0;
  constructor(private readonly maxBytes = 4 * 1024 * 1024) {}

  private take(key: string): { version: string; at: string; head: string; staleAfterMs: number } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.size -= e.head.length + e.version.length;
    return e;
  }

  /** The entry for `key` last checked at index version `at` (nothing committed since), or undefined. */
  unchanged(key: string, at: string): { head: string; staleAfterMs: number } | undefined {
    const e = this.entries.get(key);
    if (!e || e.at !== at) return undefined;
    this.set(key, e.version, at, e.head, e.staleAfterMs); // most recently used last
    return e;
  }

  /** The cached head for `key` at `version` (now checked at `at`), or undefined (an entry of another version is dropped). */
  get(key: string, version: string, at: string, staleAfterMs: number): string | undefined {
    const e = this.take(key);
    if (!e || e.version !== version) return undefined;
    this.set(key, version, at, e.head, staleAfterMs);
    return e.head;
  }

  /** Remembers `head` for `key` at `version`, dropping the least recently used entries over the budget. */
  set(key: string, version: string, at: string, head: string, staleAfterMs: number): void {
    this.take(key);
    this.entries.set(key, { version, at, head, staleAfterMs });
    this.size += head.length + version.length;
    for (const k of this.entries.keys()) {
      if (this.size <= this.maxBytes) break;
      this.take(k);
    }
  }
}

const withClock = (head: string, nowMs: number, staleAfterMs: number) => `${head},"now_ms":${JSON.stringify(nowMs)},"stale_after_ms":${JSON.stringify(staleAfterMs)}}`;

/**
 * GET /api/orders/:id as JSON text (what JSON.stringify(order(...)) gives), or null when there is
 * no such order; computed once per version of the order's index rows (OrderAnswerCache), with
 * `now_ms` (this request's clock) and `stale_after_ms` appended on every request.
 */
export function orderJson(db: DB, id: string, nowMs: number, cache: OrderAnswerCache): string | null {
  const key = id.toLowerCase();
  const quick = cache.unchanged(key, indexVersion(db));
  if (quick) {
    cache.hits++;
    return withClock(quick.head, nowMs, quick.staleAfterMs);
  }
  const i = orderInputs(db, id);
  if (!i) return null;
  const version = versionOf(i);
  let head = cache.get(key, version, i.at, i.staleAfterMs);
  if (head === undefined) {
    cache.misses++;
    head = JSON.stringify(orderBody(i, nowMs)).slice(0, -1); // without the closing brace
    cache.set(key, version, i.at, head, i.staleAfterMs);
  } else cache.hits++;
  return withClock(head, nowMs, i.staleAfterMs);
}

/** GET /api/agents */
export function agents(db: DB, nowMs: number): AgentsResponse {
  const rows = stmt(db, 'SELECT summary FROM agents ORDER BY name').all() as { summary: string }[];
  return {
    agents: rows.map((r) => {
      const { capabilities: _c, folder_key: _f, retirement: _r, ...summary } = JSON.parse(r.summary) as StoredAgent;
      return summary;
    }),
    now_ms: nowMs,
  };
}

/** At most this many earlier holds are listed on an agent's page (GET /api/agents/:name `held`). */
export const HELD_SHOWN = 200;

/**
 * GET /api/agents/:name, or null when the name is not in the roster and holds nothing. `holds`:
 * its cards outside the Done lane; `finished`: how many Done cards name it; `held`: the first
 * HELD_SHOWN of its ended holds, the fleet history's rows (lib/ledger/holds.ts: every ending but
 * `finished` first, then finished; each by order id, then claim arrival), `held_total` all of
 * them. `nowMs`: the index's clock.
 */
export function agent(db: DB, name: string, nowMs: number): AgentResponse | null {
  const n = name.toLowerCase();
  const row = storedAgent(db, n);
  // What it holds in flight, in full; its finished orders and its history only counted or in
  // part: both grow with the channel's history (at 100,000 orders an agent of 32 had 1,600
  // finished orders and 1,100 earlier holds, a 1.3 MB answer).
  const holds = (stmt(db, "SELECT card FROM cards WHERE holder = ? AND lane <> 'done' ORDER BY sort_ms, order_id").all(n) as { card: string }[]).map((r) => JSON.parse(r.card) as Card);
  const finished = (stmt(db, "SELECT COUNT(*) AS n FROM cards WHERE holder = ? AND lane = 'done'").get(n) as { n: number }).n;
  const heldTotal = stmt(db, "SELECT COUNT(*) FROM holds WHERE agent = ? AND ending <> 'held'").pluck().get(n) as number;
  const retireByHold = stmt(db, 'SELECT order_id, retire FROM holds WHERE agent = ?').raw().all(n) as [string, number][];
  if (!row && holds.length === 0 && finished === 0 && retireByHold.length === 0) return null;
  // Gave up, released and lost first (what a team lead looks for), finished last; each by order id.
  const held = (
    stmt(db, "SELECT h.hold, c.state FROM holds h LEFT JOIN cards c ON c.order_id = h.order_id WHERE h.agent = ? AND h.ending <> 'held' ORDER BY h.ending = 'finished', h.order_id, h.claimed_ms LIMIT ?").raw().all(n, HELD_SHOWN) as [string, OrderState | null][]
  ).map(([hold, state]) => ({ ...(JSON.parse(hold) as Hold), state }));
  const stored: StoredAgent = row ?? { name: n, role: '(not in the roster)', is_operator: false, retired: false, public_key: null, key_changed: false, holding: holds.length, last_arrival_ms: null, clock_offset_ms: null, capabilities: [], folder_key: null, retirement: null };
  const { capabilities, folder_key, retirement, ...summary } = stored;
  return {
    agent: {
      ...summary,
      capabilities,
      folder_key,
      retirement,
    },
    holds,
    retire_plan: [
      ...new Set([
        // The rule per claim (lib/ledger/actions.ts retireReleases, kept with each hold).
        ...retireByHold.filter(([, r]) => r === 1).map(([id]) => id),
        // Addressed to it with no result (ferry's holder() is the assignee), unless a claim of it says a release came.
        ...holds.filter((c) => c.assigned_to === n && c.latest_revision === null && !retireByHold.some(([id, r]) => id === c.order_id && r === 0)).map((c) => c.order_id),
      ]),
    ].sort(),
    looks_alive:
      ((stmt(db, 'SELECT MAX(last_arrival_ms) AS t FROM runs WHERE agent = ?').get(n) as { t: number | null }).t ?? -Infinity) >=
      nowMs - staleAfterMsOf(db),
    stale_after_ms: staleAfterMsOf(db),
    finished,
    held_total: heldTotal,
    held,
    now_ms: nowMs,
  };
}

/** GET /api/problems */
export function problems(db: DB): ProblemsResponse {
  const rows = stmt(db, 'SELECT path, problem, detail, line, order_id FROM problems ORDER BY path, line').all() as {
    path: string;
    problem: ProblemsResponse['problems'][number]['problem'];
    detail: string;
    line: number | null;
    order_id: string | null;
  }[];
  const ledger: Record<string, { entries: number; intact: boolean; broken_at?: number }> = {};
  for (const r of stmt(db, 'SELECT * FROM ledger_files ORDER BY path').all() as { path: string; entries: number; intact: number; broken_at: number | null }[]) {
    ledger[r.path] = { entries: r.entries, intact: r.intact === 1, ...(r.broken_at !== null ? { broken_at: r.broken_at } : {}) };
  }
  return {
    problems: rows.map((r) => ({ path: r.path, problem: r.problem, detail: r.detail, ...(r.line !== null ? { line: r.line } : {}), ...(r.order_id ? { order_id: r.order_id } : {}) })),
    ledger,
  };
}

/** The change feed after `seq`: the newest seq and which orders changed (all when '*' or too far behind). */
export function changesSince(db: DB, seq: number): ChangedEvent | null {
  const rows = stmt(db, 'SELECT seq, order_id FROM changes WHERE seq > ? ORDER BY seq LIMIT 2001').all(seq) as { seq: number; order_id: string }[];
  const last = rows[rows.length - 1];
  if (!last) return null;
  const all = rows.length > 2000 || rows.some((r) => r.order_id === '*');
  return { seq: last.seq, orders: all ? [] : [...new Set(rows.map((r) => r.order_id))], all };
}

/** The newest change seq (0 when none). */
export function latestSeq(db: DB): number {
  return (stmt(db, 'SELECT COALESCE(MAX(seq), 0) AS s FROM changes').get() as { s: number }).s;
}

// --- what the action endpoints ask (lib/actions/server.ts) ---

/** The pinned keys by canonical name: what an action's signatures are checked against. */
export function pinnedKeys(db: DB): Map<string, string> {
  return new Map((stmt(db, 'SELECT name, public_key FROM pins').all() as { name: string; public_key: string }[]).map((r) => [r.name, r.public_key]));
}

/** The orders whose card depends on `id` (the deps table the indexer keeps with each card), by order id. */
export function dependentsOf(db: DB, id: string): string[] {
  return stmt(db, 'SELECT order_id FROM deps WHERE dep = ? ORDER BY order_id').pluck().all(id) as string[];
}

/** The orders `agent` ever claimed (its holds, ended or not) and those addressed to it, each once. */
export function claimedOrdersOf(db: DB, agent: string): string[] {
  // Its claims, and the orders addressed to it (their holder is the assignee): a retirement releases both.
  return stmt(db, 'SELECT order_id FROM holds WHERE agent = ? UNION SELECT order_id FROM cards WHERE holder = ?').pluck().all(agent, agent) as string[];
}

/** The agents row of a canonical name (a roster entry), or null when the roster has none. */
export function storedAgent(db: DB, name: string): StoredAgent | null {
  const row = stmt(db, 'SELECT summary FROM agents WHERE name = ?').get(name) as { summary: string } | undefined;
  return row ? (JSON.parse(row.summary) as StoredAgent) : null;
}

// --- what the serve process's alert engine asks (lib/alerts/engine.ts) ---

/** The first change seq after `seq`, or null when there is none (the feed's oldest rows may have been pruned). */
export function firstSeqAfter(db: DB, seq: number): number | null {
  return (stmt(db, 'SELECT MIN(seq) AS s FROM changes WHERE seq > ?').get(seq) as { s: number | null }).s;
}

/** The order ids of the change feed's rows after `after` up to `upTo` ('*': everything), in feed order. */
export function changedOrderIds(db: DB, after: number, upTo: number): Iterable<string> {
  return stmt(db, 'SELECT order_id FROM changes WHERE seq > ? AND seq <= ?').pluck().iterate(after, upTo) as Iterable<string>;
}

/** Every card in the Needs attention and Stale lanes: id, lane and card fingerprint (no card parsed). */
export function pagingCards(db: DB): Iterable<{ order_id: string; lane: string; fp: number | null }> {
  return stmt(db, "SELECT order_id, lane, fp FROM cards WHERE lane IN ('attention', 'stale')").iterate() as Iterable<{ order_id: string; lane: string; fp: number | null }>;
}

/** One card's lane and fingerprint, or undefined when there is no such card. */
export function cardLane(db: DB, id: string): { lane: string; fp: number | null } | undefined {
  return stmt(db, 'SELECT lane, fp FROM cards WHERE order_id = ?').get(id) as { lane: string; fp: number | null } | undefined;
}

/** One card as stored, or null when there is no such card. */
export function storedCard(db: DB, id: string): Card | null {
  const row = stmt(db, 'SELECT card FROM cards WHERE order_id = ?').get(id) as { card: string } | undefined;
  return row ? (JSON.parse(row.card) as Card) : null;
}

/** The distinct (path, code) of the problems with one of `codes`. */
export function problemsWithCodes<C extends string>(db: DB, codes: readonly C[]): { path: string; problem: C }[] {
  return stmt(db, `SELECT DISTINCT path, problem FROM problems WHERE problem IN (${codes.map(() => '?').join(', ')})`).all(...codes) as { path: string; problem: C }[];
}

/** The detail and line of one problem (the first stored), or undefined. */
export function problemDetail(db: DB, path: string | null, problem: string): { detail: string; line: number | null } | undefined {
  return stmt(db, 'SELECT detail, line FROM problems WHERE path = ? AND problem = ? LIMIT 1').get(path, problem) as { detail: string; line: number | null } | undefined;
}
