/**
 * A board query (lib/query/query.ts, grouped by groupQuery) as SQL over one lane of `cards`
 * aliased `c`, for lanePage (queries.ts). A kind's values are one argument (one value) or one
 * JSON list read with json_each (several), so the SQL text depends only on which kinds a query
 * uses and whether each has one value or more (a bounded set of shapes, prepared once each).
 *
 * - `agent`: card_agents (the holder and every agent its double run or late result involves,
 *   lowercased). One wanted agent is the index's own order (card_agents as the outer loop);
 *   several OR through IN, excluded ones through NOT IN, of the lane's card_agents rows.
 * - `holder`: `c.holder` (canonical); an excluded holder keeps the cards nobody holds.
 * - `lane`: decides whether the lane is read at all (laneAllowed).
 * - `state`: `c.state` IN / NOT IN. `flag`: a word of `c.flags` (' f1 f2 '), any wanted, none excluded.
 * - `project`: the card's `project_id`, lowercased. Free text: words of `c.search` (lowercase id,
 *   holder, project, reason, state, flags), every wanted one, no excluded one.
 * - `age`: now − the card's reference arrival, this machine's clock (ms): for a stale card
 *   (`since_ms` set) `since_ms` − stale_after, the arrival its staleness runs from; else the
 *   holder's heartbeat arrival; else the newest arrival of a file in the order's folder.
 */
import type { Lane } from '../../ledger/derive';
import { laneAllowed, type AgeBound, type QueryGroups } from '../../query/query';

/** The FROM and WHERE of one lane's page and count, and the table alias whose (sort_ms, order_id) orders it. */
export interface LaneWhere {
  /** `FROM … WHERE …` (the lane condition first). */
  readonly from: string;
  /** Its arguments, in order. */
  readonly args: readonly unknown[];
  /** `a` (card_agents, the one-agent order) or `c` (cards). */
  readonly key: 'a' | 'c';
  /** When the count can be read from card_agents alone: the agent (nothing else filters). */
  readonly agentOnly: string | null;
  /** Nothing but the lane filters: the count is the lane's (lane_counts). */
  readonly unfiltered: boolean;
}

const JSON_LIST = 'SELECT value FROM json_each(?)';
const REF =
  "COALESCE(json_extract(c.card, '$.since_ms') - ?, json_extract(c.card, '$.heartbeat.arrival_ms'), (SELECT MAX(f.arrival_ms) FROM files f WHERE f.order_dir = c.order_dir AND f.type = 'file'))";

/**
 * The SQL of `lane` under the query, or null when the query leaves the lane empty (a `lane:`
 * term names other lanes). `nowMs`: this machine's clock; `staleAfterMs`: the index's stale_after.
 */
export function laneWhere(lane: Lane, g: QueryGroups, nowMs: number, staleAfterMs: number): LaneWhere | null {
  if (!laneAllowed(g, lane)) return null;
  const parts: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, ...a: unknown[]) => {
    parts.push(sql);
    args.push(...a);
  };
  const list = (xs: readonly string[]) => JSON.stringify(xs);

  // One value: a plain comparison (json_each in a correlated subquery costs ~2.5x per card); several: one JSON list.
  const anyOf = (xs: readonly string[], one: string, many: string, arg: (x: string) => string) =>
    xs.length === 1 ? add(one, arg(xs[0] as string)) : add(many, list(xs));
  const word = (x: string) => ` ${x} `;
  const same = (x: string) => x;

  const oneAgent = g.agent.in.length === 1 ? (g.agent.in[0] as string) : null;
  // Not correlated: SQLite reads the lane's rows of these agents once per statement (card_agents' key is agent, lane, …).
  const agentsHere = `SELECT x.order_id FROM card_agents x WHERE x.lane = ? AND x.agent IN (${JSON_LIST})`;
  if (g.agent.in.length > 1) add(`c.order_id IN (${agentsHere})`, lane, list(g.agent.in));
  if (g.agent.out.length > 0) add(`c.order_id NOT IN (${agentsHere})`, lane, list(g.agent.out));
  if (g.holder.in.length > 0) add(`c.holder IN (${JSON_LIST})`, list(g.holder.in));
  if (g.holder.out.length > 0) add(`(c.holder IS NULL OR c.holder NOT IN (${JSON_LIST}))`, list(g.holder.out));
  if (g.state.in.length > 0) add(`c.state IN (${JSON_LIST})`, list(g.state.in));
  if (g.state.out.length > 0) add(`c.state NOT IN (${JSON_LIST})`, list(g.state.out));
  if (g.flag.in.length > 0) anyOf(g.flag.in, 'instr(c.flags, ?) > 0', "EXISTS (SELECT 1 FROM json_each(?) j WHERE instr(c.flags, ' ' || j.value || ' ') > 0)", word);
  if (g.flag.out.length > 0) anyOf(g.flag.out, 'instr(c.flags, ?) = 0', "NOT EXISTS (SELECT 1 FROM json_each(?) j WHERE instr(c.flags, ' ' || j.value || ' ') > 0)", word);
  if (g.project.in.length > 0) add(`lower(json_extract(c.card, '$.project_id')) IN (${JSON_LIST})`, list(g.project.in));
  if (g.project.out.length > 0) add(`lower(json_extract(c.card, '$.project_id')) NOT IN (${JSON_LIST})`, list(g.project.out));
  if (g.text.in.length > 0) anyOf(g.text.in, 'instr(c.search, ?) > 0', 'NOT EXISTS (SELECT 1 FROM json_each(?) j WHERE instr(c.search, j.value) = 0)', same);
  if (g.text.out.length > 0) anyOf(g.text.out, 'instr(c.search, ?) = 0', 'NOT EXISTS (SELECT 1 FROM json_each(?) j WHERE instr(c.search, j.value) > 0)', same);
  // age > X ⇔ ref < now − X; age ≥ X ⇔ ref ≤ now − X; age < X ⇔ ref > now − X; age ≤ X ⇔ ref ≥ now − X.
  const bound = (b: AgeBound | null, older: boolean) => {
    if (!b) return;
    const op = older ? (b.strict ? '<' : '<=') : b.strict ? '>' : '>=';
    add(`${REF} ${op} ?`, staleAfterMs, nowMs - b.ms);
  };
  bound(g.age.min, true);
  bound(g.age.max, false);

  const rest = parts.map((p) => ` AND ${p}`).join('');
  if (oneAgent !== null) {
    // CROSS JOIN keeps card_agents the outer loop: its primary key is (agent, lane, sort_ms, order_id).
    return {
      from: `FROM card_agents a CROSS JOIN cards c ON c.order_id = a.order_id WHERE a.agent = ? AND a.lane = ?${rest}`,
      args: [oneAgent, lane, ...args],
      key: 'a',
      agentOnly: parts.length === 0 ? oneAgent : null,
      unfiltered: false,
    };
  }
  return { from: `FROM cards c WHERE c.lane = ?${rest}`, args: [lane, ...args], key: 'c', agentOnly: null, unfiltered: parts.length === 0 };
}
