/**
 * boardForPage (lib/api/board-get.ts), the board the page is rendered with (app/page.tsx), on
 * an index the real Indexer builds from a copy of vectors 10 and 11: the lanes their
 * expect.json files say, the same board GET /api/board answers for the same query, and null
 * (the page then fetches and shows the error itself) where the API answers an error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { boardForPage } from './board-get';
import { GET as boardGET } from '@/app/api/board/route';
import { openWriter } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { loadExpect, VECTORS_DIR } from '@/test/support/vectors';
import type { BoardResponse } from './types';

const VECTORS = ['10-review-states', '11-give-up-ack-reopen'];
const saved = { db: process.env.CLAIMBOARD_DB, token: process.env.CLAIMBOARD_READ_TOKEN };
let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
  for (const [k, v] of [['CLAIMBOARD_DB', saved.db], ['CLAIMBOARD_READ_TOKEN', saved.token]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** The vectors' channels copied into one folder, indexed by the real Indexer, the routes pointed at it. */
async function indexed(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-board-page-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'channel');
  for (const v of VECTORS) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  const file = path.join(dir, 'index.sqlite');
  const db = openWriter(file);
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, workers: 0, vanishGraceMs: 0 });
  await ix.start();
  cleanup.push(async () => {
    await ix.stop();
    db.close();
  });
  process.env.CLAIMBOARD_DB = file;
}

const lanesOf = (b: BoardResponse) => Object.fromEntries(b.lanes.map((l) => [l.lane, l.cards.map((c) => c.order_id).sort()]));

describe('boardForPage', () => {
  it("is the board of the vectors' expect.json, as GET /api/board answers it", async () => {
    await indexed();
    const want: Record<string, string[]> = { attention: [], stale: [], running: [], review: [], queue: [], done: [] };
    for (const v of VECTORS) for (const [id, o] of Object.entries(loadExpect(v).orders ?? {})) want[o.lane]!.push(id);
    for (const ids of Object.values(want)) ids.sort();

    const page = boardForPage('');
    expect(page).not.toBeNull();
    expect(lanesOf(page!)).toEqual(want);
    const api = (await (await boardGET(new Request('http://127.0.0.1:3000/api/board'))).json()) as BoardResponse;
    expect(lanesOf(page!)).toEqual(lanesOf(api));
    expect(page!.lanes.map((l) => l.count)).toEqual(api.lanes.map((l) => l.count));
  });

  it("answers for the URL's query: only the orders it matches", async () => {
    await indexed();
    const page = boardForPage(`?${new URLSearchParams({ q: 'lane:review' }).toString()}`);
    const want = VECTORS.flatMap((v) => Object.entries(loadExpect(v).orders ?? {}).filter(([, o]) => o.lane === 'review').map(([id]) => id)).sort();
    expect(want.length).toBeGreaterThan(0);
    expect(Object.values(lanesOf(page!)).flat().sort()).toEqual(want);
  });

  it('is null where the API answers an error: a query it refuses, no index', async () => {
    await indexed();
    const bad = `?${new URLSearchParams({ q: 'state:nonsense' }).toString()}`;
    expect((await boardGET(new Request(`http://127.0.0.1:3000/api/board${bad}`))).status).toBe(400);
    expect(boardForPage(bad)).toBeNull();

    process.env.CLAIMBOARD_DB = path.join(os.tmpdir(), 'cb-board-page-no-such-index', 'index.sqlite');
    expect(boardForPage('')).toBeNull();
  });

  it('does not ask for the read token: the proxy checks it for the page (proxy.ts), while the API asks itself', async () => {
    await indexed();
    process.env.CLAIMBOARD_READ_TOKEN = 'a-read-token-of-32-characters-at-least';
    expect((await boardGET(new Request('http://127.0.0.1:3000/api/board'))).status).toBe(401);
    expect(boardForPage('')).not.toBeNull();
  });
});
