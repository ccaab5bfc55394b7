/**
 * GET /api/board says whether its board is current: the writing process's
 * health file (lib/index/health.ts) is read on every answer, cached or not, since it changes
 * with no change of the index (a full disk writes nothing).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET } from './route';
import { openWriter, type DB } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { healthFileOf, writeHealth } from '@/lib/index/health';
import { VECTORS_DIR } from '@/test/support/vectors';
import type { BoardResponse } from '@/lib/api/types';

let dir = '';
let file = '';
let db: DB;
let ix: Indexer;
const savedDb = process.env.CLAIMBOARD_DB;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-board-health-'));
  const root = path.join(dir, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '03-claimed-fresh', 'channel'), root, { recursive: true });
  file = path.join(dir, 'index.sqlite');
  db = openWriter(file);
  ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, workers: 0 });
  await ix.start();
  process.env.CLAIMBOARD_DB = file;
});

afterAll(async () => {
  await ix.stop();
  db.close();
  fs.rmSync(healthFileOf(file), { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  if (savedDb === undefined) delete process.env.CLAIMBOARD_DB;
  else process.env.CLAIMBOARD_DB = savedDb;
});

const board = async () => (await (await GET(new Request('http://127.0.0.1:3000/api/board'))).json()) as BoardResponse;

describe('GET /api/board index_health', () => {
  it('is ok after a start, degraded with the reason while the writer says so (cached answers too), ok again after', async () => {
    const ok = await board();
    expect(ok.index_health).toEqual({ state: 'ok' }); // the indexer's start said so (no health file)
    const cards = ok.lanes.reduce((n, l) => n + l.count, 0);
    const degraded = { state: 'degraded', code: 'index_write_failed', reason: 'database or disk is full', since_ms: 1_700_000_000_000, retries: 3 } as const;
    expect(writeHealth(file, degraded)).toBe(true);
    // The same query within the answer cache's second: the cached lanes, the health as it is now.
    const a = await board();
    expect(a.index_health).toEqual(degraded);
    expect(a.lanes.reduce((n, l) => n + l.count, 0)).toBe(cards);
    expect((await board()).index_health).toEqual(degraded);
    writeHealth(file, { state: 'ok' });
    expect((await board()).index_health).toEqual({ state: 'ok' });
  });

  it('a health file that does not parse reads as ok (not the index at fault)', async () => {
    fs.writeFileSync(healthFileOf(file), '{"state":"degraded"');
    expect((await board()).index_health).toEqual({ state: 'ok' });
    writeHealth(file, { state: 'ok' });
  });
});
