/**
 * GET /metrics, through the real route handlers in this process on indexes
 * the real Indexer builds from copies of conformance channels (conformance/vectors): the answer
 * parses as the Prometheus text format (test/support/prometheus.ts), its lane gauges equal
 * GET /api/board's counts and the lanes each vector's expect.json says, its problems per code
 * those expect.json lists; the ages are computed from the rules (stale_after, the clock given
 * to the indexer); the index lag counts the files a live pass stored and nothing else.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as metricsGET } from './route';
import { GET as boardGET } from '../api/board/route';
import { openWriter, type DB } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { passStats } from '@/lib/index/writer/metrics-record';
import { recordFailure, recordSuccess, storeConfig, storeDecision } from '@/lib/alerts/store';
import { metricsFigures, metricsText, METRICS_CONTENT_TYPE } from '@/lib/api/metrics';
import { loadExpect, VECTORS_DIR } from '@/test/support/vectors';
import { parseMetrics, sampleValue, type Family } from '@/test/support/prometheus';
import { LANES } from '@/lib/ledger/derive';
import type { BoardResponse } from '@/lib/api/types';

let cleanup: (() => void | Promise<void>)[] = [];
const savedDb = process.env.CLAIMBOARD_DB;
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
  if (savedDb === undefined) delete process.env.CLAIMBOARD_DB;
  else process.env.CLAIMBOARD_DB = savedDb;
});

/** The channels of `vectors` copied into one fresh folder (now: every file arrives as it is copied). */
function channelOf(vectors: readonly string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-metrics-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'channel');
  for (const v of vectors) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  return root;
}

/** Indexes `root` into a database file with the real Indexer (no watcher: passes are driven by the test) and points the routes at it. */
async function indexOf(root: string, clock: () => number = Date.now): Promise<{ db: DB; ix: Indexer }> {
  const file = path.join(path.dirname(root), 'index.sqlite');
  const db = openWriter(file);
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock, watch: false, workers: 0, vanishGraceMs: 0 });
  await ix.start();
  cleanup.push(async () => {
    await ix.stop();
    db.close();
  });
  process.env.CLAIMBOARD_DB = file;
  return { db, ix };
}

async function scrape(headers: Record<string, string> = {}): Promise<{ res: Response; families: Map<string, Family> }> {
  const res = await metricsGET(new Request('http://127.0.0.1:3000/metrics', { headers }));
  return { res, families: parseMetrics(await res.text()) };
}

/** GET /api/board. `tag` makes the query string new: the route caches answers by it (1 s), and another test's index may have the same change seq. */
async function boardOf(tag: string): Promise<BoardResponse> {
  const res = await boardGET(new Request(`http://127.0.0.1:3000/api/board?t=${tag}`));
  expect(res.status).toBe(200);
  return (await res.json()) as BoardResponse;
}

/** Per lane, per (lane, state) and per flag, how many orders the vectors' expect.json put there. */
function expected(vectors: readonly string[]) {
  const lanes = new Map<string, number>(LANES.map((l) => [l, 0]));
  const laneStates = new Map<string, number>();
  const flags = new Map<string, number>();
  for (const v of vectors) {
    for (const o of Object.values(loadExpect(v).orders ?? {})) {
      lanes.set(o.lane, (lanes.get(o.lane) ?? 0) + 1);
      laneStates.set(`${o.lane} ${o.state}`, (laneStates.get(`${o.lane} ${o.state}`) ?? 0) + 1);
      for (const f of o.flags) flags.set(f, (flags.get(f) ?? 0) + 1);
    }
  }
  return { lanes, laneStates, flags };
}

describe('GET /metrics', () => {
  it("parses as the text format; its lane gauges equal /api/board's counts and the vectors' lanes", async () => {
    // The three vectors the end-to-end fixture merges (ids apart, one roster); their ages (at most 10 s) are within stale_after.
    const vectors = ['10-review-states', '11-give-up-ack-reopen', '20-dependencies'];
    await indexOf(channelOf(vectors));
    const { res, families } = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
    expect(METRICS_CONTENT_TYPE).toMatch(/^text\/plain; version=0\.0\.4/);
    const board = await boardOf('lanes');
    const want = expected(vectors);
    for (const page of board.lanes) {
      expect(sampleValue(families, 'claimboard_lane_orders', { lane: page.lane }), page.lane).toBe(page.count);
      expect(page.count, page.lane).toBe(want.lanes.get(page.lane));
    }
    expect(families.get('claimboard_lane_orders')?.samples).toHaveLength(LANES.length);
    // Per lane and state: exactly the pairs the vectors say, and summing to the lane gauges.
    const pairs = families.get('claimboard_orders')?.samples.map((s) => [`${s.labels.lane} ${s.labels.state}`, s.value] as const) ?? [];
    expect(new Map(pairs)).toEqual(want.laneStates);
    // Attention flags: every flag listed, each with the number of orders the vectors flag so.
    const flagged = families.get('claimboard_attention_items')?.samples ?? [];
    expect(flagged.length).toBeGreaterThanOrEqual(11);
    for (const s of flagged) expect(s.value, s.labels.flag).toBe(want.flags.get(s.labels.flag ?? '') ?? 0);
    expect([...want.flags.keys()].sort()).toEqual(['gave_up', 'missing_dependency']);
    expect(sampleValue(families, 'claimboard_index_up')).toBe(1);
    expect(sampleValue(families, 'claimboard_index_ready')).toBe(1);
    // Nothing is stale in these vectors; the web process's own metrics follow.
    expect(sampleValue(families, 'claimboard_oldest_stale_claim_age_seconds')).toBe(0);
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
    expect(families.get('nodejs_heap_size_used_bytes')?.type).toBe('GAUGE');
    // A second scrape registers nothing twice (a Registry per scrape; the process registry once).
    expect((await scrape()).res.status).toBe(200);
  });

  it("problems per code are 17-bad-signatures' expect.json problems; signatures verified are the indexer's count", async () => {
    const { ix } = await indexOf(channelOf(['17-bad-signatures']));
    const { families } = await scrape();
    const byCode = new Map<string, number>();
    for (const p of loadExpect('17-bad-signatures').problems ?? []) byCode.set(p.problem, (byCode.get(p.problem) ?? 0) + 1);
    for (const s of families.get('claimboard_problems')?.samples ?? []) expect(s.value, s.labels.code).toBe(byCode.get(s.labels.code ?? '') ?? 0);
    expect(byCode.size).toBe(3);
    expect(sampleValue(families, 'claimboard_problems', { code: 'invalid_signature' })).toBe(1);
    expect(sampleValue(families, 'claimboard_lane_orders', { lane: 'attention' })).toBe(3);
    expect(sampleValue(families, 'claimboard_attention_items', { flag: 'bad_record' })).toBe(3);
    expect(families.get('claimboard_signatures_verified_total')?.type).toBe('COUNTER');
    expect(ix.verifiedCount).toBeGreaterThan(0);
    expect(sampleValue(families, 'claimboard_signatures_verified_total')).toBe(ix.verifiedCount);
  });

  it('the oldest stale claim and each agent are aged on the indexer clock from arrivals here (06-stale-no-heartbeat)', async () => {
    const root = channelOf(['06-stale-no-heartbeat']);
    // expect.json: the claim arrived 3600 s before now; stale_after is 300 s, so the claim went stale 3300 s ago.
    const claimArrival = fs.statSync(path.join(root, 'tasks/ichabod-1650/claim.fang.json')).ctimeMs;
    const now = claimArrival + loadExpect('06-stale-no-heartbeat').age_s!['tasks/ichabod-1650/claim.fang.json']! * 1000;
    const { db } = await indexOf(root, () => now);
    const families = parseMetrics(await metricsText([{ channel: 'channel', figures: metricsFigures(db, now), nowMs: now }]));
    expect(sampleValue(families, 'claimboard_lane_orders', { lane: 'stale' })).toBe(1);
    expect(sampleValue(families, 'claimboard_orders', { lane: 'stale', state: 'stale' })).toBe(1);
    expect(sampleValue(families, 'claimboard_oldest_stale_claim_age_seconds')).toBeCloseTo(3600 - 300, 6);
    // fang's only file is its claim (its roster entry is signed by ops): its last arrival is the claim's.
    expect(sampleValue(families, 'claimboard_agent_last_arrival_age_seconds', { agent: 'fang' })).toBeCloseTo(3600, 6);
  });

  it('index lag: a live pass counts the re-arrived file alone; attention age runs from when the index first stored the order there', async () => {
    const root = channelOf(['15-late-result']); // t1 in Needs attention (late_result)
    let now = Date.now();
    const firstIndexAt = now;
    const { db, ix } = await indexOf(root, () => now);
    let families = parseMetrics(await metricsText([{ channel: 'channel', figures: metricsFigures(db, now), nowMs: now }]));
    expect(families.has('claimboard_index_lag_seconds')).toBe(false); // the first index is not a live pass
    expect(sampleValue(families, 'claimboard_index_passes_total')).toBe(0);
    // The order file arrives again (replaced by a copy: a new ctime); the pass that stores it runs 1.5 s later.
    const order = path.join(root, 'tasks/t1/order.json');
    fs.copyFileSync(order, order + '.tmp');
    fs.renameSync(order + '.tmp', order);
    const arrival = fs.statSync(order).ctimeMs;
    now = arrival + 1500;
    ix.request('tasks/t1');
    ix.pump();
    const scrapeAt = arrival + 4000;
    families = parseMetrics(await metricsText([{ channel: 'channel', figures: metricsFigures(db, scrapeAt), nowMs: scrapeAt }]));
    expect(sampleValue(families, 'claimboard_index_lag_seconds')).toBeCloseTo(1.5, 6);
    expect(passStats(db)?.lag?.files).toBe(1); // order.json alone: the folder's other files arrived before its previous pass
    expect(sampleValue(families, 'claimboard_index_lag_measured_age_seconds')).toBeCloseTo(2.5, 6);
    expect(sampleValue(families, 'claimboard_index_last_pass_age_seconds')).toBeCloseTo(2.5, 6);
    expect(sampleValue(families, 'claimboard_index_passes_total')).toBe(1);
    expect(sampleValue(families, 'claimboard_lane_orders', { lane: 'attention' })).toBe(1);
    expect(sampleValue(families, 'claimboard_oldest_attention_age_seconds')).toBeCloseTo((scrapeAt - firstIndexAt) / 1000, 6);
    // The folder goes: no order is left in Needs attention, and its age is 0.
    fs.rmSync(path.join(root, 'tasks/t1'), { recursive: true });
    now += 1000;
    ix.request('tasks/t1');
    ix.pump();
    families = parseMetrics(await metricsText([{ channel: 'channel', figures: metricsFigures(db, now), nowMs: now }]));
    expect(sampleValue(families, 'claimboard_lane_orders', { lane: 'attention' })).toBe(0);
    expect(sampleValue(families, 'claimboard_oldest_attention_age_seconds')).toBe(0);
    expect(sampleValue(families, 'claimboard_index_lag_seconds')).toBeCloseTo(1.5, 6); // that pass stored no new file: the last measurement stands
  });

  it("alerts sent, failed, owed and failing per target are what the alert engine's store recorded", async () => {
    const { db } = await indexOf(channelOf(['01-open']));
    let families = (await scrape()).families;
    expect(sampleValue(families, 'claimboard_alerts_configured')).toBe(0);
    expect(families.get('claimboard_alerts_sent_total')?.samples).toEqual([]);
    const t0 = Date.now();
    const hook = { id: 'a1b2c3', kind: 'webhook', label: 'https://hooks.example/…' } as const;
    const cmd = { id: 'd4e5f6', kind: 'command', label: 'notify-send' } as const;
    storeConfig(db, { targets: [hook, cmd], after_ms: 0, base_url: 'http://127.0.0.1:3000' }, t0);
    // The hook: two deliveries, then an attempt that fails and will be retried (failing, nothing given up).
    recordSuccess(db, 1, hook.id, t0 + 1);
    recordSuccess(db, 2, hook.id, t0 + 2);
    recordFailure(db, 3, hook.id, t0 + 3, 'no answer within 10 s', t0 + 60_000);
    // The command: one message given up on, and one still owed.
    recordFailure(db, 4, cmd.id, t0 + 4, 'exit 1', null);
    storeDecision(db, { put: [], drop: [], send: [], resolve: [], wakeMs: null }, [{ target: cmd.id, event: 'resolved', grp: 'g', payload: '{}' }], t0 + 5);
    families = (await scrape()).families;
    expect(sampleValue(families, 'claimboard_alerts_configured')).toBe(1);
    expect(sampleValue(families, 'claimboard_alerts_sent_total', { target: hook.id, kind: 'webhook' })).toBe(2);
    expect(sampleValue(families, 'claimboard_alerts_failed_total', { target: hook.id })).toBe(0);
    expect(sampleValue(families, 'claimboard_alerts_failing', { target: hook.id })).toBe(1);
    expect(sampleValue(families, 'claimboard_alerts_pending', { target: hook.id })).toBe(0);
    expect(sampleValue(families, 'claimboard_alerts_sent_total', { target: cmd.id, kind: 'command', label: 'notify-send' })).toBe(0);
    expect(sampleValue(families, 'claimboard_alerts_failed_total', { target: cmd.id })).toBe(1);
    expect(sampleValue(families, 'claimboard_alerts_pending', { target: cmd.id })).toBe(1);
    expect(families.get('claimboard_alerts_failed_total')?.type).toBe('COUNTER');
  });

  it('without an index: 200 with claimboard_index_up 0 and the process metrics only', async () => {
    process.env.CLAIMBOARD_DB = path.join(os.tmpdir(), `cb-no-index-${process.pid}.sqlite`);
    const { res, families } = await scrape();
    expect(res.status).toBe(200);
    expect(sampleValue(families, 'claimboard_index_up')).toBe(0);
    expect([...families.keys()].filter((n) => n.startsWith('claimboard_'))).toEqual(['claimboard_index_up']);
    expect(families.has('process_resident_memory_bytes')).toBe(true);
  });
});
