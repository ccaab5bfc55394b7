/**
 * GET /api/board and GET /api/orders/:id of a hub: vectors 01, 03 and 09 and the real ferry's
 * alpha channel, indexed by a Hub (the real indexer) each into its own file, read through the
 * registry as the web process reads them. Every order of the four is on the board once, with its
 * channel, in the lane the board of that channel alone gives it; `channel:` narrows; vectors 03
 * and 09 both hold an order t1 (running in one, done in the other) and the two never mix; a
 * lane's pages, walked with the cursor, are the lane in (sort key, channel, order id) order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { soloRegistryFile, writeRegistry } from '../hub/registry';
import { nodeVerify } from '../index/disk/node-verify';
import { openMemory, readDbOf } from '../index/db';
import { Indexer } from '../index/indexer';
import { runEndpoint, type Endpoint } from './endpoint';
import { boardGet } from './board-get';
import { orderGet } from './order-get';
import { decodeHubCursor } from './hub-board';
import type { Answer } from './answer';
import type { BoardResponse, HubBoardResponse, HubCard, LanePage, Lane } from './types';
import { copyFerryChannel, copyVectorChannel, removeFolder, servedHub, tempFolder } from '../../test/support/hub';

const STALE_AFTER_MS = 300_000;
const INDEXER = { watch: false, verify: nodeVerify, workers: 0 } as const;

let t: string;
let served: { stop(): Promise<void> };
const roots: Record<string, string> = {};

/** order id -> lane of `root` indexed alone (a serve of that one channel), through GET /api/board of its own index. */
async function boardAlone(root: string): Promise<Record<string, string>> {
  const db = openMemory();
  const ix = new Indexer({ root, db, staleAfterMs: STALE_AFTER_MS, ...INDEXER });
  await ix.start();
  await ix.stop();
  const hubFile = process.env.CLAIMBOARD_HUB;
  delete process.env.CLAIMBOARD_HUB;
  try {
    const b = json(runEndpoint(boardGet, { url: '/api/board', header: () => null, params: {} }, { open: () => db })) as BoardResponse;
    return Object.fromEntries(b.lanes.flatMap((l) => l.cards.map((c) => [c.order_id, l.lane])));
  } finally {
    process.env.CLAIMBOARD_HUB = hubFile;
    db.close();
  }
}

function json(a: ReturnType<typeof runEndpoint>): unknown {
  if (a instanceof Promise || 'stream' in a) throw new Error('not bytes at once');
  return JSON.parse(a.body.toString('utf8')) as unknown;
}
const get = (endpoint: Endpoint<unknown>, url: string, params: Record<string, string> = {}) => {
  const a = runEndpoint(endpoint, { url, header: () => null, params }) as Answer;
  return { status: a.status, body: JSON.parse(a.body.toString('utf8')) as Record<string, unknown> };
};
const board = (q = '') => get(boardGet, `/api/board${q}`).body as unknown as HubBoardResponse;
const where = (b: { lanes: readonly { lane: Lane; cards: readonly HubCard[] }[] }) => b.lanes.flatMap((l) => l.cards.map((c) => `${c.channel}/${c.order_id}:${l.lane}`)).sort();

beforeAll(async () => {
  t = tempFolder('cb-hub-board-');
  const parent = path.join(t, 'channels');
  roots.v01 = copyVectorChannel('01-open', path.join(parent, 'v01'));
  roots.v03 = copyVectorChannel('03-claimed-fresh', path.join(parent, 'v03'));
  roots.v09 = copyVectorChannel('09-done', path.join(parent, 'v09'));
  roots.alpha = copyFerryChannel('alpha', path.join(t, 'ferry-alpha'));
  served = await servedHub(t, { parents: [parent], specs: [{ name: 'alpha', root: roots.alpha }], staleAfterMs: STALE_AFTER_MS });
});

afterAll(async () => {
  await served.stop();
  removeFolder(t);
});

describe("a hub's GET /api/board", () => {
  it('holds every order of every channel once, with its channel, in the lane the board of that channel alone gives it', async () => {
    const want: string[] = [];
    for (const [name, root] of Object.entries(roots)) for (const [id, lane] of Object.entries(await boardAlone(root))) want.push(`${name}/${id}:${lane}`);
    const b = board();
    expect(b.hub).toBe(true);
    expect(where(b)).toEqual(want.sort());
    expect(want.length).toBe(17); // 14 of alpha, one each of the vectors
    // The vectors' lanes as their expect.json says them (their files arrived just now).
    expect(want.filter((w) => w.startsWith('v'))).toEqual(['v01/t-open:queue', 'v03/t1:running', 'v09/t1:done']);
    expect(b.channels.map((c) => [c.name, c.state, c.read, c.root])).toEqual([
      ['alpha', 'served', true, roots.alpha],
      ['v01', 'served', true, roots.v01],
      ['v03', 'served', true, roots.v03],
      ['v09', 'served', true, roots.v09],
    ]);
    // Lane counts: each channel's, and their sum.
    const running = b.lanes.find((l) => l.lane === 'running');
    expect(running?.counts.v03).toBe(1);
    expect(running?.count).toBe(Object.values(running?.counts ?? {}).reduce((n, c) => n + c, 0));
    expect(b.channels.find((c) => c.name === 'v09')?.counts).toEqual({ queue: 0, running: 0, review: 0, stale: 0, attention: 0, done: 1 });
    expect(b.index_health).toEqual({ state: 'ok' });
  });

  it('narrows to the channels `channel:` names, and leaves out those `-channel:` names', () => {
    expect(where(board('?q=channel:v09'))).toEqual(['v09/t1:done']);
    expect(where(board('?q=channel:V03+channel:v09'))).toEqual(['v03/t1:running', 'v09/t1:done']);
    const notAlpha = board('?q=-channel:alpha');
    expect(where(notAlpha)).toEqual(['v01/t-open:queue', 'v03/t1:running', 'v09/t1:done']);
    expect(notAlpha.channels.filter((c) => c.read).map((c) => c.name)).toEqual(['v01', 'v03', 'v09']);
    expect(notAlpha.lanes.reduce((n, l) => n + l.count, 0)).toBe(3);
    expect(get(boardGet, '/api/board?q=channel:"a b"').status).toBe(400);
    // A channel no one serves: nothing read, nothing counted.
    const none = board('?q=channel:nope');
    expect([where(none), none.channels.filter((c) => c.read).length, none.lanes.reduce((n, l) => n + l.count, 0), none.progress.ready_at_ms]).toEqual([[], 0, 0, null]);
    expect(board().progress.phase).toBe('ready');
  });

  it('pages a lane in (sort key, channel, order id) order: the cursor carries the channel, and the pages walked are the lane', () => {
    const queue = board().lanes.find((l) => l.lane === 'queue');
    const whole = (queue?.cards ?? []).map((c) => `${c.channel}/${c.order_id}`);
    expect(whole.length).toBeGreaterThan(2);
    expect(whole).toContain('v01/t-open');
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: LanePage = get(boardGet, `/api/board?lane=queue&limit=2${cursor ? `&cursor=${cursor}` : ''}`).body as unknown as LanePage;
      walked.push(...page.cards.map((c) => `${(c as HubCard).channel}/${c.order_id}`));
      cursor = page.next_cursor;
      if (cursor) expect(decodeHubCursor(cursor)?.[1]).toBe(walked[walked.length - 1]?.split('/')[0]);
    } while (cursor);
    expect(walked).toEqual(whole);
  });
});

describe("a hub's GET /api/orders/:id", () => {
  it('answers the one channel that holds the id, with its channel; two holding it is a 409 naming both; ?channel= says which', () => {
    const open = get(orderGet, '/api/orders/t-open', { id: 't-open' });
    expect([open.status, open.body.channel, (open.body.card as HubCard).order_id]).toEqual([200, 'v01', 't-open']);
    const both = get(orderGet, '/api/orders/t1', { id: 't1' });
    expect(both).toEqual({
      status: 409,
      body: { error: 'conflict', message: 'order t1 is in 2 channels (v03, v09): say which with ?channel=<name>', channels: ['v03', 'v09'] },
    });
    const done = get(orderGet, '/api/orders/t1?channel=v09', { id: 't1' });
    expect([done.status, done.body.channel, (done.body.card as HubCard).lane]).toEqual([200, 'v09', 'done']);
    const running = get(orderGet, '/api/orders/t1?channel=V03', { id: 't1' });
    expect([running.status, running.body.channel, (running.body.card as HubCard).lane]).toEqual([200, 'v03', 'running']);
    expect(get(orderGet, '/api/orders/t1?channel=v01', { id: 't1' })).toEqual({ status: 404, body: { error: 'not_found', message: 'no order t1 in channel v01' } });
    expect(get(orderGet, '/api/orders/t1?channel=nope', { id: 't1' })).toEqual({ status: 404, body: { error: 'not_found', message: 'no channel nope is served here' } });
  });
});

describe('a registry of one channel', () => {
  it("answers the board as a serve of one channel always did, each card naming its channel", () => {
    const file = path.join(t, 'index', 'v09.sqlite');
    const registry = soloRegistryFile(path.join(t, 'solo.sqlite'));
    writeRegistry(registry, [{ name: 'v09', root: roots.v09 ?? '', db: file, state: 'served', why: null, since_ms: 0 }]);
    process.env.CLAIMBOARD_HUB = registry;
    try {
      const viaRegistry = board() as unknown as BoardResponse;
      delete process.env.CLAIMBOARD_HUB;
      process.env.CLAIMBOARD_DB = file;
      const viaDb = board() as unknown as BoardResponse;
      expect('hub' in viaRegistry).toBe(false);
      expect(viaRegistry.lanes.flatMap((l) => l.cards.map((c) => [(c as HubCard).channel, c.order_id]))).toEqual([['v09', 't1']]);
      // The same answer (the channel read from the registry or named after its folder alike).
      expect({ ...viaRegistry, now_ms: 0 }).toEqual({ ...viaDb, now_ms: 0 });
      expect(fs.existsSync(registry)).toBe(true);
      expect(readDbOf(file).open).toBe(true);
    } finally {
      delete process.env.CLAIMBOARD_DB;
      process.env.CLAIMBOARD_HUB = path.join(t, 'index', 'channels.json');
    }
  });
});
