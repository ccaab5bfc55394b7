import 'server-only';
/**
 * Read side of the fleet history: the holds of a window (GET /api/holds, a keyset page at a time
 * over (claimed_ms, order_id, agent)), and what /history draws (GET /api/history: the holds, the
 * agents' rows and numbers, the operator acts). A hold is in the window [from, to) when its claim
 * arrived before `to` and it had not ended before `from` (one still held runs to now). Every
 * instant is this machine's clock. Never writes.
 */
import type { DB } from '../db';
import { stmt } from './statements';
import { decodeCursor, encodeCursor } from './queries';
import { staleAfterMsOf } from '../store/meta';
import { actsBetween } from './activity';
import { holdRow, silencesOf, type Hold, type HoldRow, type Silence } from '../../ledger/holds';
import { HoldTally, type HistoryWindow } from '../../ledger/hold-numbers';
import { fitRange, LONGEST_RANGE, RANGES, type RangeName } from '../../query/window';
import { groupQuery, type QueryTerm } from '../../query/query';
import type { HistoryAgent, HistoryResponse, HoldsResponse, StoredAgent } from '../types';

/** Holds per page of GET /api/holds unless `limit` says otherwise, and the most a page may ask for. */
export const HOLDS_PAGE_SIZE = 200;
export const MAX_HOLDS_LIMIT = 1000;
/** How many holds /history draws at most (the first by claim arrival); the numbers count them all. */
export const HISTORY_DRAWN = 2000;
/** How many operator acts /history marks at most. */
export const HISTORY_ACTS = 500;

/** What selects holds: the window, the query's terms (lib/ui/query.ts historyQueryOf), and one order. */
export interface HoldFilters {
  readonly window: HistoryWindow;
  readonly terms: readonly QueryTerm[];
  readonly order?: string;
  /** The range the window is, when it is a named range before now (the answers echo it). */
  readonly range?: RangeName;
  /** Whether nobody asked for a window: fitFilters picks it. */
  readonly fitted?: boolean;
}

const JSON_LIST = 'SELECT value FROM json_each(?)';

/**
 * The FROM and WHERE of the holds the filters select (`h`: holds; `c`: the order's card, joined
 * only when a term asks about it). A kind's values are one argument or one JSON list, so the SQL
 * depends only on which kinds are used and how many values each has.
 */
export function holdsWhere(f: HoldFilters): { from: string; args: unknown[] } {
  const g = groupQuery(f.terms);
  const parts = ['h.claimed_ms < ?', '(h.ended_ms IS NULL OR h.ended_ms >= ?)'];
  const args: unknown[] = [f.window.to_ms, f.window.from_ms];
  const add = (sql: string, ...a: unknown[]) => {
    parts.push(sql);
    args.push(...a);
  };
  const list = (xs: readonly string[]) => JSON.stringify(xs);
  const inList = (col: string, xs: readonly string[]) => (xs.length === 1 ? add(`${col} = ?`, xs[0]) : add(`${col} IN (${JSON_LIST})`, list(xs)));
  if (g.agent.in.length > 0) inList('h.agent', g.agent.in);
  if (g.agent.out.length > 0) add(`h.agent NOT IN (${JSON_LIST})`, list(g.agent.out));
  if (g.project.in.length > 0) inList('h.project', g.project.in);
  if (g.project.out.length > 0) add(`h.project NOT IN (${JSON_LIST})`, list(g.project.out));
  if (f.order !== undefined) add('h.order_id = ?', f.order.toLowerCase());
  for (const w of g.text.in) add('instr(h.search, ?) > 0', w);
  for (const w of g.text.out) add('instr(h.search, ?) = 0', w);
  const card = g.holder.in.length + g.holder.out.length + g.lane.in.length + g.lane.out.length + g.state.in.length + g.state.out.length + g.flag.in.length + g.flag.out.length > 0;
  if (g.holder.in.length > 0) add(`c.holder IN (${JSON_LIST})`, list(g.holder.in));
  if (g.holder.out.length > 0) add(`(c.holder IS NULL OR c.holder NOT IN (${JSON_LIST}))`, list(g.holder.out));
  if (g.lane.in.length > 0) add(`c.lane IN (${JSON_LIST})`, list(g.lane.in));
  if (g.lane.out.length > 0) add(`c.lane NOT IN (${JSON_LIST})`, list(g.lane.out));
  if (g.state.in.length > 0) add(`c.state IN (${JSON_LIST})`, list(g.state.in));
  if (g.state.out.length > 0) add(`c.state NOT IN (${JSON_LIST})`, list(g.state.out));
  if (g.flag.in.length > 0) add(`EXISTS (SELECT 1 FROM json_each(?) j WHERE instr(c.flags, ' ' || j.value || ' ') > 0)`, list(g.flag.in));
  if (g.flag.out.length > 0) add(`NOT EXISTS (SELECT 1 FROM json_each(?) j WHERE instr(c.flags, ' ' || j.value || ' ') > 0)`, list(g.flag.out));
  return { from: `FROM holds h${card ? ' JOIN cards c ON c.order_id = h.order_id' : ''} WHERE ${parts.join(' AND ')}`, args };
}

/**
 * The filters with the window fitted to their holds at `nowMs` (fitRange): the earliest claim
 * arrival among the holds they select in the longest range before now decides the range. One
 * indexed read (claims by arrival, the first that qualifies).
 */
export function fitFilters(db: DB, f: HoldFilters, nowMs: number): HoldFilters {
  const w = holdsWhere({ ...f, window: { from_ms: nowMs - RANGES[LONGEST_RANGE], to_ms: nowMs } });
  const earliest = stmt(db, `SELECT h.claimed_ms ${w.from} ORDER BY h.claimed_ms LIMIT 1`).pluck().get(...w.args) as number | undefined;
  const range = fitRange(earliest ?? null, nowMs);
  return { ...f, window: { from_ms: nowMs - RANGES[range], to_ms: nowMs }, range, fitted: true };
}

/** A page cursor: the last row's claim arrival, then `<order> <agent>` (names hold no space). */
export function holdCursor(h: Pick<Hold, 'claimed_ms' | 'order_id' | 'agent'>): string {
  return encodeCursor(h.claimed_ms, `${h.order_id} ${h.agent}`);
}

/** A cursor's position, or null when it is not one of holdCursor's. */
export function decodeHoldCursor(c: string): [number, string, string] | null {
  const d = decodeCursor(c);
  const parts = d ? d[1].split(' ') : [];
  return d && parts.length === 2 ? [d[0], parts[0] as string, parts[1] as string] : null;
}

/** The silences the index saw inside holds of these orders, by `<order> <agent>`. */
function seenGaps(db: DB, orders: readonly string[]): Map<string, Silence[]> {
  const out = new Map<string, Silence[]>();
  if (orders.length === 0) return out;
  const rows = stmt(db, `SELECT order_id, agent, from_ms, to_ms FROM hold_gaps WHERE order_id IN (${JSON_LIST})`).all(JSON.stringify([...new Set(orders)])) as { order_id: string; agent: string; from_ms: number; to_ms: number }[];
  for (const r of rows) {
    const k = `${r.order_id} ${r.agent}`;
    let l = out.get(k);
    if (!l) out.set(k, (l = []));
    l.push({ from_ms: r.from_ms, to_ms: r.to_ms });
  }
  return out;
}

/** Stored holds as rows: each with its silences at `nowMs`. */
function rowsOf(db: DB, texts: readonly string[], nowMs: number, staleAfterMs: number): HoldRow[] {
  const holds = texts.map((t) => JSON.parse(t) as Hold);
  const gaps = seenGaps(db, holds.map((h) => h.order_id));
  return holds.map((h) => holdRow(h, gaps.get(`${h.order_id} ${h.agent}`) ?? [], nowMs, staleAfterMs));
}

/**
 * GET /api/holds: the holds the filters select, by claim arrival (ties by order, then agent),
 * `limit` after `cursor` (null: from the first). Throws on a cursor decodeHoldCursor refuses (the
 * route checks it first).
 */
export function holdsPage(db: DB, f: HoldFilters, cursor: string | null, nowMs: number, limit = HOLDS_PAGE_SIZE): HoldsResponse {
  const after = cursor === null ? null : decodeHoldCursor(cursor);
  if (cursor !== null && after === null) throw new Error('not a cursor from this API');
  const w = holdsWhere(f);
  const sql = `SELECT h.hold ${w.from}${after ? ' AND (h.claimed_ms, h.order_id, h.agent) > (?, ?, ?)' : ''} ORDER BY h.claimed_ms, h.order_id, h.agent LIMIT ?`;
  const texts = stmt(db, sql)
    .pluck()
    .all(...w.args, ...(after ?? []), limit + 1) as string[];
  const staleAfterMs = staleAfterMsOf(db);
  const holds = rowsOf(db, texts.slice(0, limit), nowMs, staleAfterMs);
  const last = holds[holds.length - 1];
  return { holds, next_cursor: texts.length > limit && last ? holdCursor(last) : null, from_ms: f.window.from_ms, to_ms: f.window.to_ms, range: f.range ?? null, fitted: f.fitted === true, now_ms: nowMs, stale_after_ms: staleAfterMs };
}

const NOT_IN_ROSTER = '(not in the roster)';

/**
 * GET /api/history: every hold of the window under the filters (the numbers count them all; the
 * first HISTORY_DRAWN are drawn), its agents by role and name with their numbers and clock
 * offsets, the fleet's numbers, and the operator acts that arrived in the window.
 */
export function historyView(db: DB, f: HoldFilters, nowMs: number): HistoryResponse {
  const w = holdsWhere(f);
  const staleAfterMs = staleAfterMsOf(db);
  // Every hold of the window as the numbers read it (columns, no JSON), with the silences the
  // index saw in the window (one read of hold_gaps); the drawn ones in full, as GET /api/holds has them.
  const seen = new Map<string, Silence[]>();
  const gapRows = stmt(db, 'SELECT order_id, agent, from_ms, to_ms FROM hold_gaps WHERE to_ms >= ? AND from_ms < ?').raw().all(f.window.from_ms, f.window.to_ms) as [string, string, number, number][];
  for (const [o, a, from_ms, to_ms] of gapRows) {
    const k = `${o} ${a}`;
    const l = seen.get(k);
    if (l) l.push({ from_ms, to_ms });
    else seen.set(k, [{ from_ms, to_ms }]);
  }
  const tally = new HoldTally(f.window, nowMs, staleAfterMs);
  const orders = new Set<string>();
  let total = 0;
  const light = stmt(db, `SELECT h.order_id, h.agent, h.claimed_ms, h.ended_ms, h.ending, h.beat_ms, h.delivered ${w.from}`).raw();
  for (const [order_id, agent, claimed_ms, ended_ms, ending, beat_ms, delivered] of light.iterate(...w.args) as Iterable<[string, string, number, number | null, HoldRow['ending'], number | null, number]>) {
    const silences = silencesOf({ claimed_ms, ended_ms, beat_ms }, seen.get(`${order_id} ${agent}`) ?? [], nowMs, staleAfterMs);
    tally.add({ order_id, agent, claimed_ms, ended_ms, ending, delivered: delivered === 1, silences });
    orders.add(order_id);
    total++;
  }
  const texts = stmt(db, `SELECT h.hold ${w.from} ORDER BY h.claimed_ms, h.order_id, h.agent LIMIT ?`)
    .pluck()
    .all(...w.args, HISTORY_DRAWN) as string[];
  const rows = rowsOf(db, texts, nowMs, staleAfterMs);
  const numbers = tally.agents();
  const roster = new Map((stmt(db, 'SELECT name, summary FROM agents').all() as { name: string; summary: string }[]).map((r) => [r.name, JSON.parse(r.summary) as StoredAgent]));
  const agents: HistoryAgent[] = numbers
    .map((n): HistoryAgent => {
      const a = roster.get(n.agent);
      return { name: n.agent, role: a?.role ?? NOT_IN_ROSTER, retired: a?.retired ?? false, clock_offset_ms: a?.clock_offset_ms ?? null, numbers: n };
    })
    .sort((x, y) => (x.role === y.role ? (x.name < y.name ? -1 : 1) : x.role === NOT_IN_ROSTER ? 1 : y.role === NOT_IN_ROSTER ? -1 : x.role < y.role ? -1 : 1));
  // Under a query, the acts on what it selected: the orders of its holds, and its agents.
  const filtered = f.terms.length > 0 || f.order !== undefined;
  const names = new Set(agents.map((a) => a.name));
  const acts = actsBetween(db, f.window.from_ms, f.window.to_ms, Number.MAX_SAFE_INTEGER)
    .filter((a) => !filtered || a.orders.some((o) => orders.has(o)) || (a.agent !== null && names.has(a.agent)))
    .slice(0, HISTORY_ACTS)
    .map((a) => ({
    key: a.key,
    act: a.act,
    operator: a.operator,
    order_id: a.order_id,
    agent: a.agent,
    orders: a.orders,
    detail: a.detail,
    reason: a.reason,
    writer_time: a.writer_time,
    arrival_ms: a.arrival_ms as number,
  }));
  return {
    from_ms: f.window.from_ms,
    to_ms: f.window.to_ms,
    range: f.range ?? null,
    fitted: f.fitted === true,
    now_ms: nowMs,
    stale_after_ms: staleAfterMs,
    holds: rows,
    total,
    drawn_limit: HISTORY_DRAWN,
    agents,
    fleet: tally.fleet(),
    acts,
    acts_limit: HISTORY_ACTS,
  };
}
