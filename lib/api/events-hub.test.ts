/**
 * GET /api/events and GET /metrics of a hub: vectors 03 and 09 (both hold an order t1) indexed
 * by a Hub each into its own file, read through the registry as the web process reads them. The
 * stream starts at each channel's latest change (`hello` has one position per channel); a change
 * in one channel is sent named by it, with that channel's seq, and moves only its position. Each
 * index series of /metrics is labelled with its channel; the process's are not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub } from '../hub/hub';
import { nodeVerify } from '../index/disk/node-verify';
import { readDbOf } from '../index/db';
import { latestSeq } from '../index/read/queries';
import { runEndpoint } from './endpoint';
import { eventsGet } from './events-get';
import { metricsGet } from './metrics-get';
import type { Answer } from './answer';
import { parseMetrics, sampleValue } from '../../test/support/prometheus';
import { ChangeFeed } from './change-feed';
import type { ChannelView } from './channels';
import { copyVectorChannel, removeFolder, tempFolder } from '../../test/support/hub';

const INDEXER = { watch: false, verify: nodeVerify, workers: 0 } as const;

let t: string;
let hub: Hub;
const roots: Record<string, string> = {};
const dbOf = (name: string) => path.join(t, 'index', `${name}.sqlite`);
const saved = { hub: process.env.CLAIMBOARD_HUB, db: process.env.CLAIMBOARD_DB };

beforeAll(async () => {
  t = tempFolder('cb-hub-events-');
  const parent = path.join(t, 'channels');
  roots.v03 = copyVectorChannel('03-claimed-fresh', path.join(parent, 'v03'));
  roots.v09 = copyVectorChannel('09-done', path.join(parent, 'v09'));
  hub = new Hub({
    specs: [],
    parents: [parent],
    registryFile: path.join(t, 'index', 'channels.json'),
    dbFileOf: (root) => dbOf(path.basename(root)),
    staleAfterMsOf: () => 300_000,
    log: () => {},
    indexer: INDEXER,
  });
  await hub.start(3_600_000);
  process.env.CLAIMBOARD_HUB = path.join(t, 'index', 'channels.json');
  delete process.env.CLAIMBOARD_DB;
});

afterAll(async () => {
  await hub.stop();
  for (const [k, v] of [['CLAIMBOARD_HUB', saved.hub], ['CLAIMBOARD_DB', saved.db]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  removeFolder(t);
});

/** A file in t1 of `name` that is not a claim (a problem of order t1), indexed now. */
function breakT1(name: string, file: string): void {
  fs.writeFileSync(path.join(roots[name] ?? '', 'tasks', 't1', file), 'not json');
  const ix = hub.indexerOf(name);
  if (!ix) throw new Error(`${name} is not served`);
  ix.request(`tasks/t1/${file}`);
  ix.pump();
}

describe("a hub's GET /api/events", () => {
  it('starts at each channel\'s position and sends a change named by its channel, with that channel\'s seq', async () => {
    const a = await runEndpoint(eventsGet, { url: '/api/events', params: {}, header: () => null });
    if (!('stream' in a)) throw new Error('expected a stream');
    const reader = a.stream.getReader();
    const text = async () => new TextDecoder().decode((await reader.read()).value);
    const before = { v03: latestSeq(readDbOf(dbOf('v03'))), v09: latestSeq(readDbOf(dbOf('v09'))) };
    expect(before.v03).toBeGreaterThan(0);
    expect(await text()).toBe(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ cursor: before })}\n\n`);
    breakT1('v09', 'claim.wisp.json');
    const after = latestSeq(readDbOf(dbOf('v09')));
    expect(after).toBeGreaterThan(before.v09);
    expect(await text()).toBe(`event: changed\ndata: ${JSON.stringify({ channel: 'v09', seq: after, orders: ['t1'], all: false })}\n\n`);
    await reader.cancel();
    // v03 did not move: its t1 is not the one that changed.
    expect(latestSeq(readDbOf(dbOf('v03')))).toBe(before.v03);
  });
});

describe('ChangeFeed', () => {
  const view = (name: string, state: 'served' | 'gone' = 'served'): ChannelView => ({ name, state, why: null, dbFile: null, db: () => readDbOf(dbOf(name)) });

  it('keeps one position per channel; a channel that comes or goes after the first poll is a change naming no order', () => {
    let list: ChannelView[] = [view('v03')];
    const feed = new ChangeFeed(() => list);
    expect(feed.poll()).toEqual([]);
    const s03 = latestSeq(readDbOf(dbOf('v03')));
    expect(feed.cursor()).toEqual({ v03: s03 });
    list = [view('v03'), view('v09')];
    const s09 = latestSeq(readDbOf(dbOf('v09')));
    expect(feed.poll()).toEqual([{ channel: 'v09', seq: s09, orders: [], all: false }]);
    breakT1('v03', 'claim.wisp.json');
    const n03 = latestSeq(readDbOf(dbOf('v03')));
    expect(feed.poll()).toEqual([{ channel: 'v03', seq: n03, orders: ['t1'], all: false }]);
    expect(feed.cursor()).toEqual({ v03: n03, v09: s09 });
    list = [view('v03'), view('v09', 'gone')];
    expect(feed.poll()).toEqual([{ channel: 'v09', seq: s09, orders: [], all: false }]);
    expect(feed.cursor()).toEqual({ v03: n03 });
    expect(feed.poll()).toEqual([]);
  });

  it('follows a channel whose index cannot be opened yet from the poll that first opens it', () => {
    let openable = false;
    const late: ChannelView = { ...view('v09'), db: () => (openable ? readDbOf(dbOf('v09')) : (() => { throw new Error('not yet'); })()) };
    const feed = new ChangeFeed(() => [late]);
    expect([feed.poll(), feed.cursor()]).toEqual([[], {}]);
    openable = true;
    const s09 = latestSeq(readDbOf(dbOf('v09')));
    expect([feed.poll(), feed.cursor()]).toEqual([[{ channel: 'v09', seq: s09, orders: [], all: false }], { v09: s09 }]);
  });
});

describe("a hub's GET /metrics", () => {
  it('labels each index series with its channel, and leaves the process series unlabelled', async () => {
    const a = (await runEndpoint(metricsGet, { url: '/metrics', params: {}, header: () => null })) as Answer;
    const text = a.body.toString('utf8');
    expect(text).toContain('claimboard_index_up{channel="v09"} 1\n');
    const families = parseMetrics(text);
    // v03's t1 and v09's t1 (their lanes moved by the tests above) are one order each: never summed into one series.
    const inLanes = (channel: string) => (families.get('claimboard_lane_orders')?.samples ?? []).filter((s) => s.labels.channel === channel).reduce((n, s) => n + s.value, 0);
    expect([inLanes('v03'), inLanes('v09')]).toEqual([1, 1]);
    expect(['v03', 'v09'].map((channel) => sampleValue(families, 'claimboard_index_up', { channel }))).toEqual([1, 1]);
    // Every claimboard_ series names a channel; no process_ series does.
    const named = (prefix: string) => [...families.values()].filter((f) => f.name.startsWith(prefix)).flatMap((f) => f.samples.map((s) => 'channel' in s.labels));
    expect(named('claimboard_').length).toBeGreaterThan(20);
    expect(new Set(named('claimboard_'))).toEqual(new Set([true]));
    expect(named('process_').length).toBeGreaterThan(0);
    expect(new Set(named('process_'))).toEqual(new Set([false]));
  });
});
