import 'server-only';
/**
 * What GET /metrics reads from the index (read-only, one snapshot): counts of cards by lane,
 * state and flag, problems by code, each roster agent's latest arrival, what the indexer
 * recorded about itself (progress, metrics-record.ts). The exposition, with the alert targets'
 * counts beside these, is lib/api/metrics.ts.
 */
import type { DB } from '../db';
import type { Lane, OrderState } from '../../ledger/derive';
import type { IndexProgress } from '../types';
import { progressOf } from './queries';
import { oldestAttentionSince, passStats, type PassStatsRow } from '../writer/metrics-record';

/** Everything /metrics shows of the index. Instants are ms on this machine's clock. */
export interface IndexFigures {
  /** Cards per lane (every lane; what /api/board counts with no filter). */
  readonly lanes: ReadonlyMap<Lane, number>;
  /** Cards per (lane, state), only the pairs that occur. */
  readonly laneStates: readonly { readonly lane: Lane; readonly state: OrderState; readonly count: number }[];
  /** Cards carrying each attention flag (a card with two flags counts under both). */
  readonly flags: ReadonlyMap<string, number>;
  /** The earliest `since_ms` of a stale claim (a card whose holder's heartbeat or claim stopped arriving), or null when none is stale. */
  readonly oldestStaleSinceMs: number | null;
  /** The earliest moment this index first stored a card now in Needs attention there, or null when the lane is empty or not yet recorded. */
  readonly oldestAttentionSinceMs: number | null;
  /** Problem rows per code. */
  readonly problems: ReadonlyMap<string, number>;
  /** Roster agents with the latest arrival here of a file they wrote (null: none arrived). */
  readonly agents: readonly { readonly name: string; readonly retired: boolean; readonly lastArrivalMs: number | null }[];
  readonly progress: IndexProgress;
  /** What the indexer recorded at its last pass, or null before it recorded one. */
  readonly pass: PassStatsRow | null;
}

const readers = new WeakMap<DB, () => IndexFigures>();

/** The index's figures for /metrics, read in one transaction (so the counts agree with each other). */
export function indexFigures(db: DB): IndexFigures {
  let read = readers.get(db);
  if (!read) readers.set(db, (read = db.transaction(() => readFigures(db))));
  return read();
}

function readFigures(db: DB): IndexFigures {
  const lanes = new Map<Lane, number>();
  const laneStates: { lane: Lane; state: OrderState; count: number }[] = [];
  for (const r of db.prepare('SELECT lane, state, COUNT(*) AS n FROM cards GROUP BY lane, state ORDER BY lane, state').all() as { lane: Lane; state: OrderState; n: number }[]) {
    laneStates.push({ lane: r.lane, state: r.state, count: r.n });
    lanes.set(r.lane, (lanes.get(r.lane) ?? 0) + r.n);
  }
  // cards.flags is ' f1 f2 ' (pass-writer.ts writeCard); only flagged cards have a word in it.
  const flags = new Map<string, number>();
  for (const r of db.prepare("SELECT flags FROM cards WHERE lane = 'attention'").all() as { flags: string }[]) {
    for (const f of r.flags.split(' ')) if (f) flags.set(f, (flags.get(f) ?? 0) + 1);
  }
  // A card's sort_ms is its since_ms, or 0 without one (pass-writer.ts writeCard), and only a stale
  // claim has a since_ms: the lane index answers without reading the cards.
  const stale = db.prepare("SELECT MIN(sort_ms) AS t FROM cards WHERE lane IN ('stale', 'attention') AND sort_ms > 0").get() as { t: number | null };
  const oldestAttention = oldestAttentionSince(db);
  const problems = new Map<string, number>();
  for (const r of db.prepare('SELECT problem, COUNT(*) AS n FROM problems GROUP BY problem').all() as { problem: string; n: number }[]) problems.set(r.problem, r.n);
  const agents = (
    db.prepare("SELECT name, json_extract(summary, '$.retired') AS retired, json_extract(summary, '$.last_arrival_ms') AS t FROM agents ORDER BY name").all() as {
      name: string;
      retired: number | null;
      t: number | null;
    }[]
  ).map((r) => ({ name: r.name, retired: r.retired === 1, lastArrivalMs: typeof r.t === 'number' ? r.t : null }));
  return {
    lanes,
    laneStates,
    flags,
    oldestStaleSinceMs: stale.t,
    oldestAttentionSinceMs: oldestAttention,
    problems,
    agents,
    progress: progressOf(db),
    pass: passStats(db),
  };
}
