/**
 * GET /api/board with a query, through the real route handler on an index the
 * real Indexer builds from the end-to-end fixture's vectors (10, 11, 20; every file arrives as it
 * is copied, within their stale_after): `q` filters in SQL, the old parameters still work as
 * terms, a lane's next page keeps the query, and a query that does not parse is a 400 saying why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET } from './route';
import { openWriter, type DB } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { encodeCursor } from '@/lib/index/read/queries';
import { VECTORS_DIR } from '@/test/support/vectors';
import type { BoardResponse, LanePage } from '@/lib/api/types';

let dir = '';
let db: DB;
let ix: Indexer;
const savedDb = process.env.CLAIMBOARD_DB;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-board-route-'));
  const root = path.join(dir, 'channel');
  for (const v of ['10-review-states', '11-give-up-ack-reopen', '20-dependencies']) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  const file = path.join(dir, 'index.sqlite');
  db = openWriter(file);
  ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, workers: 0 });
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

async function get(query: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await GET(new Request(`http://127.0.0.1:3000/api/board?${new URLSearchParams(query).toString()}`));
  return { status: res.status, body: await res.json() };
}

/** The ids per lane of a board answer, lanes with none left out. */
const lanes = (b: BoardResponse) => Object.fromEntries(b.lanes.filter((l) => l.count > 0).map((l) => [l.lane, l.cards.map((c) => c.order_id)]));

describe('GET /api/board?q=', () => {
  it('filters by the query; lanes it leaves out are empty (expect.json of 10, 11, 20)', async () => {
    const all = await get({});
    expect(lanes(all.body as BoardResponse)).toEqual({ attention: ['c', 'g1'], running: ['g3'], review: ['ra'], queue: ['a', 'b', 'd', 'rc'], done: ['e', 'g2', 'rb'] });
    const r = await get({ q: 'lane:queue -state:blocked' });
    expect(r.status).toBe(200);
    expect(lanes(r.body as BoardResponse)).toEqual({ queue: ['a', 'd', 'rc'] });
    expect((r.body as BoardResponse).lanes.map((l) => l.lane)).toEqual(['attention', 'stale', 'running', 'review', 'queue', 'done']);
    expect(lanes((await get({ q: '-agent:fang -agent:wisp' })).body as BoardResponse)).toEqual({ attention: ['c'], running: ['g3'], queue: ['a', 'b', 'd'] });
    expect(lanes((await get({ q: 'agent:Wisp "delivery unknown"' })).body as BoardResponse)).toEqual({});
    expect(lanes((await get({ q: '"delivery unknown"' })).body as BoardResponse)).toEqual({ attention: ['g1'] });
  });

  it('the old parameters are terms of the query, with q or alone; every flag of the union is accepted', async () => {
    expect(lanes((await get({ agent: 'fang', state: 'gave_up' })).body as BoardResponse)).toEqual({ attention: ['g1'] });
    expect(lanes((await get({ state: 'blocked' })).body as BoardResponse)).toEqual({ attention: ['c'], queue: ['b'] });
    expect(lanes((await get({ q: 'lane:done', agent: 'fang' })).body as BoardResponse)).toEqual({ done: ['e', 'rb'] });
    const r = await get({ flag: 'no_worker_left' });
    expect(r.status).toBe(200);
    expect(lanes(r.body as BoardResponse)).toEqual({});
  });

  it("a lane's next page keeps the query: after e in Done, without wisp's, rb alone", async () => {
    const done = (await get({ q: '-agent:wisp' })).body as BoardResponse;
    const e = done.lanes.find((l) => l.lane === 'done')?.cards[0];
    expect(e?.order_id).toBe('e');
    const sortMs = (db.prepare('SELECT sort_ms FROM cards WHERE order_id = ?').get('e') as { sort_ms: number }).sort_ms;
    const r = await get({ lane: 'done', q: '-agent:wisp', cursor: encodeCursor(sortMs, 'e') });
    expect(r.status).toBe(200);
    const page = r.body as LanePage;
    expect([page.lane, page.count, page.cards.map((c) => c.order_id), page.next_cursor]).toEqual(['done', 2, ['rb'], null]);
  });

  it('a lane page of `limit` cards: 2 of Queue (a, b, d, rc) are a and b, and a cursor to d and rc', async () => {
    const r = await get({ lane: 'queue', limit: '2' });
    expect(r.status).toBe(200);
    const page = r.body as LanePage;
    expect([page.count, page.cards.map((c) => c.order_id)]).toEqual([4, ['a', 'b']]);
    expect(page.next_cursor).not.toBeNull();
    const rest = (await get({ lane: 'queue', cursor: page.next_cursor!, limit: '300' })).body as LanePage;
    expect([rest.cards.map((c) => c.order_id), rest.next_cursor]).toEqual([['d', 'rc'], null]);
  });

  it.each([
    [{ lane: 'queue', limit: '0' }, /^limit: Too small/],
    [{ lane: 'queue', limit: '301' }, /^limit: Too big/],
    [{ lane: 'queue', limit: '2.5' }, /^limit: /],
    [{ q: 'foo:bar' }, /^q: unknown key "foo:"; the keys are agent, lane, flag, state, age, project, holder .* \(at character 1\)$/],
    [{ q: 'lane:stale age:1h' }, /^q: age: say older or newer than how long: age:>1h \(older\) or age:<1h \(newer\) \(at character 16\)$/],
    [{ q: 'age:>2y' }, /^q: age: "y" is not a unit; the units are s, m, h and d/],
    [{ q: 'flag:nope' }, /^q: flag: "nope" is not a flag/],
    [{ q: 'x'.repeat(501) }, /^q: Too big/],
    [{ state: 'running' }, /^state: Invalid option/],
    [{ agent: 'fa ng' }, /^q: agent parameter: agent: "fa ng" is not an agent name/],
  ])('%j is a 400 with the reason in words', async (query, reason) => {
    const r = await get(query);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(reason) });
  });
});
