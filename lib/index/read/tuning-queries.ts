import 'server-only';
/**
 * GET /api/tuning[?agent=<name>]: the stale-threshold report (lib/ledger/tuning-types.ts
 * `TuningReport`, docs/tuning.md), read from the index in one transaction. Read-only.
 *
 * - Heartbeat gaps: the counts per log bucket the indexer observed live (`beat_gaps`, written by
 *   beat-gaps.ts), their percentiles estimated from the buckets; per run the longest gap
 *   (`runs.max_gap_ms`) for what a threshold would have flagged.
 * - Run durations: `holds.run_ms` (claim to first result, the holder's own clock).
 * - Time in lane: per card, now − `cards.age_ref_ms` (the arrival its age counts from, the board's
 *   `age:` reference), this machine's clock: one numeric column per lane, no card parsed.
 * Cost: one pass over the cards' age column and the holds' run column; at 100,000 orders some
 * tens of ms.
 */
import type { DB } from '../db';
import { stmt } from './statements';
import { LANES, type Lane } from '../../ledger/derive';
import { countBeyond, distributionOfBuckets, distributionOfSamples, suggestThreshold, wouldFlag, type BucketCount } from '../../ledger/tuning';
import type { FlaggedRun, LaneAge, TuningReport } from '../../ledger/tuning-types';
import { GAPS_SINCE_KEY } from '../writer/beat-gaps';
import { channelRootOf, readMeta, staleAfterMsOf } from '../store/meta';

/**
 * A card's age reference when its row predates `age_ref_ms` (written by an older indexer, or a
 * test's own row): board-where.ts's REF, read from the card's JSON. The indexer writes the
 * column with every card, so this runs only for such rows.
 */
const REF_FALLBACK =
  "json_extract(c.card, '$.since_ms') - ?, json_extract(c.card, '$.heartbeat.arrival_ms'), (SELECT MAX(f.arrival_ms) FROM files f WHERE f.order_dir = c.order_dir AND f.type = 'file')";

/** Whether `name` (lowercased, as the agent page looks names up) is an agent of this index: in the roster, or it claimed or ran something. */
export function isKnownAgent(db: DB, name: string): boolean {
  const n = name.toLowerCase();
  return (
    stmt(db, 'SELECT 1 FROM agents WHERE name = ?').get(n) !== undefined ||
    stmt(db, 'SELECT 1 FROM holds WHERE agent = ? LIMIT 1').get(n) !== undefined ||
    stmt(db, 'SELECT 1 FROM runs WHERE agent = ? LIMIT 1').get(n) !== undefined ||
    stmt(db, 'SELECT 1 FROM cards WHERE holder = ? LIMIT 1').get(n) !== undefined
  );
}

const readers = new WeakMap<DB, (agent: string | null, nowMs: number) => TuningReport>();

/**
 * The tuning report for the whole channel (`agent` null) or one agent (lowercased; `lanes` then
 * empty), at `nowMs` (this machine's clock, ms). The caller checks the agent with
 * {@link isKnownAgent} first (an unknown one gets an empty report here, not an error).
 */
export function tuningReport(db: DB, agent: string | null, nowMs: number): TuningReport {
  let read = readers.get(db);
  if (!read) readers.set(db, (read = db.transaction((a: string | null, now: number) => readReport(db, a, now))));
  return read(agent === null ? null : agent.toLowerCase(), nowMs);
}

function readReport(db: DB, agent: string | null, nowMs: number): TuningReport {
  const staleAfterMs = staleAfterMsOf(db);
  const since = readMeta(db, GAPS_SINCE_KEY);
  const one = agent !== null;

  const buckets = (
    one
      ? stmt(db, 'SELECT bucket, n FROM beat_gaps WHERE agent = ? ORDER BY bucket').all(agent)
      : stmt(db, 'SELECT bucket, SUM(n) AS n FROM beat_gaps GROUP BY bucket ORDER BY bucket').all()
  ) as BucketCount[];
  const observed = (
    one
      ? stmt(db, 'SELECT order_id, agent, run, max_gap_ms FROM runs WHERE agent = ? AND gaps > 0').all(agent)
      : stmt(db, 'SELECT order_id, agent, run, max_gap_ms FROM runs WHERE gaps > 0').all()
  ) as FlaggedRun[];
  const maxGap = observed.reduce<number | null>((m, r) => (m === null || r.max_gap_ms > m ? r.max_gap_ms : m), null);
  const gaps = distributionOfBuckets(buckets, maxGap);
  const beyond = countBeyond(gaps.histogram, staleAfterMs, maxGap);
  const suggestion = suggestThreshold(gaps, observed.length);

  const staleCards = (
    one
      ? stmt(db, "SELECT card FROM cards WHERE lane = 'stale' AND holder = ?").pluck().all(agent)
      : stmt(db, "SELECT card FROM cards WHERE lane = 'stale'").pluck().all()
  ) as string[];
  const noHeartbeat = staleCards.filter((c) => (JSON.parse(c) as { heartbeat?: unknown }).heartbeat == null).length;

  const runMs = (
    one ? stmt(db, 'SELECT run_ms FROM holds WHERE agent = ? AND run_ms IS NOT NULL').pluck().all(agent) : stmt(db, 'SELECT run_ms FROM holds WHERE run_ms IS NOT NULL').pluck().all()
  ) as number[];

  return {
    channel: channelRootOf(db) ?? '',
    agent,
    stale_after_ms: staleAfterMs,
    now_ms: nowMs,
    gaps: {
      ...gaps,
      beyond_threshold: beyond,
      share_beyond: gaps.count > 0 ? beyond / gaps.count : null,
      observed_since_ms: since,
    },
    runs: distributionOfSamples(runMs),
    suggestion,
    would_flag: {
      current: wouldFlag(observed, staleAfterMs),
      suggested: suggestion.suggested_ms === null ? null : wouldFlag(observed, suggestion.suggested_ms),
    },
    stale_now: { total: staleCards.length, stopped: staleCards.length - noHeartbeat, no_heartbeat: noHeartbeat },
    lanes: one ? [] : LANES.map((lane) => laneAge(db, lane, staleAfterMs, nowMs)),
  };
}

/**
 * One lane's count, oldest card (largest age; ties: smallest order id) and its ages' distribution.
 * The ages come from the index on (lane, age_ref_ms) alone; rows without the column (see
 * REF_FALLBACK) are read apart, and only those.
 */
function laneAge(db: DB, lane: Lane, staleAfterMs: number, nowMs: number): LaneAge {
  const refs = stmt(db, 'SELECT age_ref_ms FROM cards WHERE lane = ? AND age_ref_ms IS NOT NULL').pluck().all(lane) as number[];
  let oldest = (stmt(db, 'SELECT order_id, age_ref_ms AS ref FROM cards WHERE lane = ? AND age_ref_ms IS NOT NULL ORDER BY age_ref_ms, order_id LIMIT 1').get(lane) ?? null) as {
    order_id: string;
    ref: number;
  } | null;
  for (const r of stmt(db, `SELECT c.order_id, COALESCE(${REF_FALLBACK}) AS ref FROM cards c WHERE c.lane = ? AND c.age_ref_ms IS NULL`).all(staleAfterMs, lane) as { order_id: string; ref: number | null }[]) {
    if (r.ref === null) continue;
    refs.push(r.ref);
    if (!oldest || r.ref < oldest.ref || (r.ref === oldest.ref && r.order_id < oldest.order_id)) oldest = { order_id: r.order_id, ref: r.ref };
  }
  return {
    lane,
    count: refs.length,
    oldest: oldest ? { order_id: oldest.order_id, age_ms: Math.max(0, nowMs - oldest.ref) } : null,
    time_in_lane: distributionOfSamples(refs.map((t) => nowMs - t)),
  };
}
