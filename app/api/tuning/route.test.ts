/**
 * GET /api/tuning through the real route handler on an index the real Indexer builds (vectors 10
 * and 11: four claims delivered 09:05 to 09:30, one give-up): the channel's report with every lane,
 * one agent's without lanes, an unknown agent a 404 and a name that is no name a 400, in the error
 * shape of the other routes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET } from './route';
import { openWriter, type DB } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { VECTORS_DIR } from '@/test/support/vectors';
import { LANES } from '@/lib/ledger/derive';
import type { TuningReport } from '@/lib/ledger/tuning-types';

let dir = '';
let db: DB;
let ix: Indexer;
const savedDb = process.env.CLAIMBOARD_DB;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-tuning-route-'));
  const root = path.join(dir, 'channel');
  for (const v of ['10-review-states', '11-give-up-ack-reopen']) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  const file = path.join(dir, 'index.sqlite');
  db = openWriter(file);
  ix = new Indexer({ root, db, staleAfterMs: 120_000, watch: false, workers: 0 });
  await ix.start();
  process.env.CLAIMBOARD_DB = file;
});

afterAll(async () => {
  await ix.stop();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (savedDb === undefined) delete process.env.CLAIMBOARD_DB;
  else process.env.CLAIMBOARD_DB = savedDb;
});

async function get(query: string): Promise<{ status: number; body: unknown }> {
  const res = await GET(new Request(`http://127.0.0.1:3000/api/tuning${query}`));
  return { status: res.status, body: await res.json() };
}

describe('GET /api/tuning', () => {
  it("answers the channel's report: the threshold in force, run durations, every lane", async () => {
    const { status, body } = await get('');
    expect(status).toBe(200);
    const r = body as TuningReport;
    expect([r.agent, r.stale_after_ms, r.channel]).toEqual([null, 120_000, path.join(dir, 'channel')]);
    expect(r.lanes.map((l) => l.lane)).toEqual(LANES);
    // every order of the two vectors has a card in one lane
    expect(r.lanes.reduce((s, l) => s + l.count, 0)).toBe((db.prepare('SELECT COUNT(*) FROM cards').pluck().get() as number));
    // the runs with a result: the same agent's claim at 09:05 and result at 09:30 in each
    const withResult = db.prepare('SELECT COUNT(*) FROM holds WHERE run_ms IS NOT NULL').pluck().get() as number;
    expect(withResult).toBeGreaterThan(0);
    expect([r.runs.count, r.runs.p50_ms, r.runs.max_ms]).toEqual([withResult, 25 * 60_000, 25 * 60_000]);
    // nothing was observed live: no gaps, no suggestion
    expect([r.gaps.count, r.suggestion.suggested_ms, r.would_flag.suggested]).toEqual([0, null, null]);
  });

  it("answers one agent's report without lanes; an empty agent parameter is the channel", async () => {
    const fang = await get('?agent=fang');
    expect(fang.status).toBe(200);
    expect([(fang.body as TuningReport).agent, (fang.body as TuningReport).lanes]).toEqual(['fang', []]);
    expect((fang.body as TuningReport).runs.count).toBe(db.prepare("SELECT COUNT(*) FROM holds WHERE agent = 'fang' AND run_ms IS NOT NULL").pluck().get());
    expect(((await get('?agent=')).body as TuningReport).agent).toBeNull();
  });

  it('an unknown agent is a 404 and a name that is no name a 400, saying so', async () => {
    expect(await get('?agent=ghost')).toEqual({ status: 404, body: { error: 'not_found', message: 'no agent ghost in this channel' } });
    const bad = await get('?agent=..%2Fx');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'bad_request', message: 'agent: not an agent name' });
  });
});
