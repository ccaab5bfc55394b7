/**
 * The data behind the stale-threshold report on real folders and a real Indexer: heartbeat gaps
 * observed live (and not across a restart), run durations from claim to result, time in lane
 * with the board's own notion of age, and GET /api/tuning's report built from them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, openWriter, type DB } from '../db';
import { Indexer } from '../indexer';
import { isKnownAgent, tuningReport } from './tuning-queries';
import { GAPS_SINCE_KEY } from '../writer/beat-gaps';
import { VECTORS_DIR } from '../../../test/support/vectors';
import { nodeVerify } from '../disk/node-verify';
import { bucketOf } from '../../ledger/tuning';
import { LANES } from '../../ledger/derive';

let cleanup: (() => void)[] = [];
/** Every indexer a test made: stopped before its folders are removed, also when the test failed half-way. */
let indexers: Indexer[] = [];
afterEach(async () => {
  for (const ix of indexers) await ix.stop();
  indexers = [];
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

/** A new Indexer, stopped after the test. */
function indexer(...args: ConstructorParameters<typeof Indexer>): Indexer {
  const ix = new Indexer(...args);
  indexers.push(ix);
  return ix;
}

function tmp(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function channelCopy(...vectors: string[]): string {
  const dir = tmp('cb-tune-');
  for (const v of vectors) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), dir, { recursive: true, force: false, errorOnExist: false });
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rewrites a heartbeat with a new `at` as ferry does (a temp file renamed over it); returns its new ctime (its arrival here, ms). */
function beat(root: string, rel: string, n: number): number {
  const file = path.join(root, rel);
  const hb = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  hb.at = `2026-11-20T09:${String(10 + n).padStart(2, '0')}:00Z`;
  const tmpFile = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  fs.writeFileSync(tmpFile, JSON.stringify(hb));
  fs.renameSync(tmpFile, file);
  return fs.lstatSync(file).ctimeMs;
}

function runRow(db: DB, order: string, agent: string) {
  return db.prepare('SELECT gaps, max_gap_ms, last_arrival_ms FROM runs WHERE order_id = ? AND agent = ?').get(order, agent) as { gaps: number; max_gap_ms: number | null; last_arrival_ms: number };
}
const gapCount = (db: DB) => (db.prepare('SELECT COALESCE(SUM(n), 0) AS n FROM beat_gaps').get() as { n: number }).n;

describe('heartbeat gaps', () => {
  it('records each gap between arrivals this process saw, and none across a restart', async () => {
    const root = channelCopy('03-claimed-fresh');
    const file = path.join(tmp('cb-tune-db-'), 'index.sqlite');
    const HB = 'tasks/t1/heartbeat.fang.json';
    let db = openWriter(file);
    let ix = indexer({ root, db, staleAfterMs: 250, watch: false, verify: nodeVerify });
    const started = Date.now();
    await ix.start();
    expect(Number((db.prepare('SELECT value FROM meta WHERE key = ?').get(GAPS_SINCE_KEY) as { value: string }).value)).toBeGreaterThanOrEqual(started);
    // A ctime is read off the kernel's coarse clock, up to a tick (10 ms at most) behind Date.now():
    // a heartbeat written within a tick of the start could arrive "before" it and its gap would not
    // count as seen live (beat-gaps.ts). The first one is written well past a tick.
    await sleep(50);
    const pass = () => {
      ix.request(null);
      ix.pump();
    };
    // The copied heartbeat arrived before this indexer started: the first rewrite's gap spans a
    // time nobody watched and is not recorded; it is the first arrival seen live.
    const arrivals = [beat(root, HB, 0)];
    pass();
    expect(runRow(db, 't1', 'fang').gaps).toBe(0);
    expect(runRow(db, 't1', 'fang').last_arrival_ms).toBe(arrivals[0]);
    const pauses = [300, 300, 300, 300, 450];
    for (const [i, p] of pauses.entries()) {
      await sleep(p);
      arrivals.push(beat(root, HB, i + 1));
      pass();
    }
    const expected = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number));
    // each gap is the pause: timers are late, never early, and the pass between writes adds a
    // little; ctimes are taken from the kernel's coarse clock (a tick, up to 10 ms, early)
    for (const [i, g] of expected.entries()) {
      expect(g).toBeGreaterThanOrEqual((pauses[i] as number) - 10);
      expect(g).toBeLessThan((pauses[i] as number) + 1000);
    }
    const row = runRow(db, 't1', 'fang');
    expect(row.gaps).toBe(5);
    expect(row.max_gap_ms).toBe(Math.max(...expected));
    expect(row.max_gap_ms).toBeGreaterThanOrEqual(440);
    // per agent, one count per gap in its bucket
    const buckets = db.prepare("SELECT bucket, n FROM beat_gaps WHERE agent = 'fang' ORDER BY bucket").all() as { bucket: number; n: number }[];
    const want = new Map<number, number>();
    for (const g of expected) want.set(bucketOf(g), (want.get(bucketOf(g)) ?? 0) + 1);
    expect(buckets).toEqual([...want].sort((a, b) => a[0] - b[0]).map(([bucket, n]) => ({ bucket, n })));

    // The report: 5 gaps from 1 run, all beyond a 250 ms threshold; too few for a suggestion.
    const rep = tuningReport(db, null, Date.now());
    expect([rep.gaps.count, rep.gaps.max_ms, rep.gaps.beyond_threshold, rep.gaps.share_beyond, rep.stale_after_ms]).toEqual([5, Math.max(...expected), 5, 1, 250]);
    expect(rep.suggestion.suggested_ms).toBeNull();
    expect(rep.suggestion.not_enough).toBe('not enough data: 5 heartbeat gaps seen from 1 run; the suggestion needs 30 from 3');
    expect(rep.would_flag.current).toEqual({ threshold_ms: 250, runs: 1, of_runs: 1, examples: [{ order_id: 't1', agent: 'fang', run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', max_gap_ms: Math.max(...expected) }] });
    expect(rep.would_flag.suggested).toBeNull();
    expect(tuningReport(db, 'FANG', Date.now()).gaps.count).toBe(5);
    expect(tuningReport(db, 'wisp', Date.now()).gaps.count).toBe(0);

    // Restart on the same database; a heartbeat written while it was down is the first arrival
    // the new process sees: the gap from the last one the old process saw spans the restart.
    await ix.stop();
    db.close();
    await sleep(200);
    const whileDown = beat(root, HB, 20);
    db = openWriter(file);
    ix = indexer({ root, db, staleAfterMs: 250, watch: false, verify: nodeVerify });
    await ix.start();
    expect(runRow(db, 't1', 'fang')).toEqual({ gaps: 5, max_gap_ms: Math.max(...expected), last_arrival_ms: whileDown });
    await sleep(100);
    const afterStart = beat(root, HB, 21);
    pass();
    // the gap from whileDown (before this start) to afterStart is not recorded either ...
    expect(runRow(db, 't1', 'fang')).toEqual({ gaps: 5, max_gap_ms: Math.max(...expected), last_arrival_ms: afterStart });
    await sleep(100);
    const next = beat(root, HB, 22);
    pass();
    // ... the next one is: both arrivals seen by this process
    expect(runRow(db, 't1', 'fang').gaps).toBe(6);
    expect(gapCount(db)).toBe(6);
    expect(next - afterStart).toBeGreaterThan(0);
    await ix.stop();
    db.close();
  });
});

describe('run durations and time in lane', () => {
  it('a run lasts from its claim to its result on the holder clock: 09:05 to 09:30 is 25 min', async () => {
    const root = channelCopy('09-done');
    const db = openMemory();
    const ix = indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    await ix.stop();
    expect(db.prepare('SELECT agent, run_ms FROM holds').all()).toEqual([{ agent: 'fang', run_ms: 25 * 60_000 }]);
    const rep = tuningReport(db, null, Date.now());
    expect([rep.runs.count, rep.runs.p50_ms, rep.runs.max_ms]).toEqual([1, 25 * 60_000, 25 * 60_000]);
    expect(tuningReport(db, 'fang', Date.now()).runs.count).toBe(1);
    expect(tuningReport(db, 'fang', Date.now()).lanes).toEqual([]);
    expect(tuningReport(db, 'nebra', Date.now()).runs.count).toBe(0);
  });

  it("a card's age reference is the board's: staleness reference, else the holder's heartbeat, else the newest file", async () => {
    // stale (heartbeat lapsed and agent silent), fresh claim, done, a double run, a late result
    const vectors = ['04-stale-heartbeat-lapsed', '05-stale-agent-silent', '03-claimed-fresh', '09-done', '14-double-run', '15-late-result', '20-dependencies'];
    for (const v of vectors) {
      const root = channelCopy(v);
      const db = openMemory();
      const staleAfterMs = 300_000;
      const ix = indexer({ root, db, staleAfterMs, watch: false, verify: nodeVerify });
      await ix.start();
      await ix.stop();
      const rows = db
        .prepare(
          `SELECT order_id, lane, age_ref_ms AS ref,
             COALESCE(json_extract(c.card, '$.since_ms') - ?, json_extract(c.card, '$.heartbeat.arrival_ms'), (SELECT MAX(f.arrival_ms) FROM files f WHERE f.order_dir = c.order_dir AND f.type = 'file')) AS board
           FROM cards c ORDER BY order_id`,
        )
        .all(staleAfterMs) as { order_id: string; lane: string; ref: number | null; board: number }[];
      expect(rows.length, v).toBeGreaterThan(0);
      for (const r of rows) expect(r.ref, `${v} ${r.order_id}`).toBe(r.board);

      // Per lane: the count, and the oldest card is the one with the smallest reference.
      const now = Date.now();
      const rep = tuningReport(db, null, now);
      expect(rep.lanes.map((l) => l.lane)).toEqual(LANES);
      for (const l of rep.lanes) {
        const mine = rows.filter((r) => r.lane === l.lane).sort((a, b) => a.board - b.board || (a.order_id < b.order_id ? -1 : 1));
        expect(l.count, `${v} ${l.lane}`).toBe(mine.length);
        expect(l.time_in_lane.count).toBe(mine.length);
        const first = mine[0];
        expect(l.oldest, `${v} ${l.lane}`).toEqual(first ? { order_id: first.order_id, age_ms: now - first.board } : null);
        if (first) expect(l.time_in_lane.max_ms).toBe(now - first.board);
      }
    }
  });

  it('an index from before the migration gets run_ms and age_ref_ms at its next start (every folder passed again)', async () => {
    const root = channelCopy('09-done');
    const file = path.join(tmp('cb-tune-db-'), 'index.sqlite');
    let db = openWriter(file);
    let ix = indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    await ix.stop();
    // what migration 9 leaves: the new columns empty, no folder remembered
    db.exec('UPDATE holds SET run_ms = NULL; UPDATE cards SET age_ref_ms = NULL; DELETE FROM dirs;');
    db.close();
    db = openWriter(file);
    ix = indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    await ix.stop();
    expect(db.prepare('SELECT run_ms FROM holds').pluck().all()).toEqual([25 * 60_000]);
    expect(db.prepare('SELECT COUNT(*) FROM cards WHERE age_ref_ms IS NULL').pluck().get()).toBe(0);
    db.close();
  });
});

describe('which agents the report knows', () => {
  it('an agent of the roster or one that claimed something; not another name', async () => {
    const root = channelCopy('09-done');
    const db = openMemory();
    const ix = indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    await ix.stop();
    expect([isKnownAgent(db, 'fang'), isKnownAgent(db, 'Fang'), isKnownAgent(db, 'ops'), isKnownAgent(db, 'ghost')]).toEqual([true, true, true, false]);
    const rep = tuningReport(db, null, 1_000);
    expect([rep.gaps.count, rep.gaps.share_beyond, rep.gaps.p50_ms, rep.suggestion.suggested_ms]).toEqual([0, null, null, null]);
    expect(rep.suggestion.not_enough).toBe('not enough data: 0 heartbeat gaps seen from 0 runs; the suggestion needs 30 from 3');
    expect(rep.would_flag.current).toEqual({ threshold_ms: 300_000, runs: 0, of_runs: 0, examples: [] });
  });
});
