/**
 * A hub of three channels on real folders (conformance vectors 01 and 09, and the real ferry's
 * alpha channel), each indexed into its own file by its own indexer: every channel's cards are
 * those an index of that channel alone gives; a channel folder added to the parent is served
 * at the next rescan, and when it goes it leaves with one line and stays listed as gone, its
 * index kept, while the other channels' boards stay exactly as they were. Rescans are called
 * here, not waited for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from './hub';
import { readRegistry } from './registry';
import { closeWriter, openReader, openWriter } from '../index/db';
import { Indexer } from '../index/indexer';
import { nodeVerify } from '../index/disk/node-verify';
import { copyFerryChannel, copyVectorChannel, tempFolders } from '../../test/support/hub';

const temp = tempFolders();
const hubs: Hub[] = [];
// Registered after tempFolders' hook, so it runs before it: the hubs stop before their folders go.
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.stop();
});

const STALE_AFTER_MS = 300_000;
const INDEXER = { watch: false, verify: nodeVerify, workers: 0 } as const;

/** order id -> lane, of the index file at `file`. */
function lanesIn(file: string): Record<string, string> {
  const db = openReader(file);
  try {
    return Object.fromEntries((db.prepare('SELECT order_id, lane FROM cards ORDER BY order_id').all() as { order_id: string; lane: string }[]).map((r) => [r.order_id, r.lane]));
  } finally {
    db.close();
  }
}

/** order id -> lane of `root` indexed alone into a file of its own (a serve of that one channel). */
async function lanesAlone(root: string, file: string): Promise<Record<string, string>> {
  const db = openWriter(file);
  const ix = new Indexer({ root, db, staleAfterMs: STALE_AFTER_MS, ...INDEXER });
  await ix.start();
  await ix.stop();
  closeWriter(db);
  return lanesIn(file);
}

/** The three channels: `v01` and `v09` in a parent folder, `alpha` named on its own. */
function threeChannels(t: string): { parent: string; alpha: string } {
  const parent = path.join(t, 'channels');
  copyVectorChannel('01-open', path.join(parent, 'v01'));
  copyVectorChannel('09-done', path.join(parent, 'v09'));
  const alpha = copyFerryChannel('alpha', path.join(t, 'ferry-alpha'));
  return { parent, alpha };
}

function hubOf(t: string, parent: string, alpha: string, lines: string[], now: () => number, dbFileOf?: (root: string) => string): Hub {
  const index = path.join(t, 'index');
  const hub = new Hub({
    specs: [{ name: 'alpha', root: alpha }],
    parents: [parent],
    registryFile: path.join(index, 'channels.json'),
    dbFileOf: dbFileOf ?? ((root) => path.join(index, `${path.basename(root)}.sqlite`)),
    staleAfterMsOf: () => STALE_AFTER_MS,
    now,
    log: (l) => lines.push(l),
    indexer: INDEXER,
  });
  hubs.push(hub);
  return hub;
}

describe('Hub', () => {
  it('indexes each channel into its own file, with the lanes of that channel served alone', async () => {
    const t = temp();
    const { parent, alpha } = threeChannels(t);
    const lines: string[] = [];
    const hub = hubOf(t, parent, alpha, lines, () => 5000);
    await hub.start(3_600_000);
    const index = path.join(t, 'index');

    expect(hub.registry()).toEqual([
      { name: 'alpha', root: alpha, db: path.join(index, 'ferry-alpha.sqlite'), state: 'served', why: null, since_ms: 5000 },
      { name: 'v01', root: path.join(parent, 'v01'), db: path.join(index, 'v01.sqlite'), state: 'served', why: null, since_ms: 5000 },
      { name: 'v09', root: path.join(parent, 'v09'), db: path.join(index, 'v09.sqlite'), state: 'served', why: null, since_ms: 5000 },
    ]);
    expect(readRegistry(path.join(index, 'channels.json')).entries).toEqual(hub.registry());

    // Both vectors hold an order t1 or t-open of their own: each file holds its channel's alone.
    expect(lanesIn(path.join(index, 'v01.sqlite'))).toEqual({ 't-open': 'queue' });
    expect(lanesIn(path.join(index, 'v09.sqlite'))).toEqual({ t1: 'done' });
    const alone = path.join(t, 'alone');
    expect(lanesIn(path.join(index, 'ferry-alpha.sqlite'))).toEqual(await lanesAlone(alpha, path.join(alone, 'alpha.sqlite')));
    expect(Object.keys(lanesIn(path.join(index, 'ferry-alpha.sqlite'))).length).toBe(14); // every order of alpha's tasks.txt
    expect(lanesIn(path.join(index, 'v01.sqlite'))).toEqual(await lanesAlone(path.join(parent, 'v01'), path.join(alone, 'v01.sqlite')));
    expect(lanesIn(path.join(index, 'v09.sqlite'))).toEqual(await lanesAlone(path.join(parent, 'v09'), path.join(alone, 'v09.sqlite')));
    expect(lines.filter((l) => /no longer served|could not start/.test(l))).toEqual([]);
  });

  it('serves a channel folder added to the parent at the next rescan, and when it goes says so once, keeps its index and lists it as gone; the others are unchanged', async () => {
    const t = temp();
    const { parent, alpha } = threeChannels(t);
    const lines: string[] = [];
    let clock = 5000;
    const hub = hubOf(t, parent, alpha, lines, () => clock);
    await hub.start(3_600_000);
    const index = path.join(t, 'index');
    const boards = () => Object.fromEntries(['ferry-alpha', 'v01', 'v09'].map((n) => [n, lanesIn(path.join(index, `${n}.sqlite`))]));
    const before = boards();

    clock = 6000;
    copyVectorChannel('02-offered', path.join(parent, 'v02'));
    expect(hub.rescan().added.map((c) => c.name)).toEqual(['v02']);
    await hub.idle();
    expect(hub.indexerOf('v02')).not.toBeNull();
    expect(lanesIn(path.join(index, 'v02.sqlite'))).toEqual(await lanesAlone(path.join(parent, 'v02'), path.join(t, 'alone', 'v02.sqlite')));
    expect(readRegistry(path.join(index, 'channels.json')).entries.map((e) => [e.name, e.state, e.since_ms])).toEqual([
      ['alpha', 'served', 5000],
      ['v01', 'served', 5000],
      ['v02', 'served', 6000],
      ['v09', 'served', 5000],
    ]);

    // The folder leaves the parent (moved away; nothing of it is deleted by the hub).
    clock = 7000;
    fs.renameSync(path.join(parent, 'v02'), path.join(t, 'v02-moved'));
    const changes = hub.rescan();
    expect(changes.removed.map((r) => [r.channel.name, r.why])).toEqual([['v02', 'folder gone']]);
    expect(hub.indexerOf('v02')).toBeNull();
    expect(lines.filter((l) => l.startsWith('channel v02'))).toEqual([
      `channel v02 (${path.join(parent, 'v02')}) is no longer served: folder gone; its cards leave the board, its index ${path.join(index, 'v02.sqlite')} is kept`,
    ]);
    expect(readRegistry(path.join(index, 'channels.json')).entries.find((e) => e.name === 'v02')).toEqual({
      name: 'v02',
      root: path.join(parent, 'v02'),
      db: path.join(index, 'v02.sqlite'),
      state: 'gone',
      why: 'folder gone',
      since_ms: 7000,
    });
    expect(hub.rescan()).toEqual({ added: [], removed: [], notices: [] });
    await hub.stop();
    expect(fs.existsSync(path.join(index, 'v02.sqlite'))).toBe(true);
    expect(boards()).toEqual(before);
    expect(before.v01).toEqual({ 't-open': 'queue' });
    expect(before.v09).toEqual({ t1: 'done' });
  });

  it("keeps a channel whose start fails out of the others' way: said once, listed as gone with why", async () => {
    const t = temp();
    const { parent, alpha } = threeChannels(t);
    const lines: string[] = [];
    // v09's index file cannot be made: it would be inside a file.
    fs.writeFileSync(path.join(t, 'a-file'), '');
    const hub = hubOf(t, parent, alpha, lines, () => 5000, (root) => path.join(t, path.basename(root) === 'v09' ? 'a-file' : 'index', `${path.basename(root)}.sqlite`));
    await hub.start(3_600_000);
    const v09 = hub.registry().find((e) => e.name === 'v09');
    expect(v09?.state).toBe('gone');
    expect(v09?.why).toBe(`its index could not start: EEXIST: file already exists, mkdir '${path.join(t, 'a-file')}'`);
    expect(lines.filter((l) => l.startsWith('v09: its index could not start'))).toHaveLength(1);
    expect(lanesIn(path.join(t, 'index', 'v01.sqlite'))).toEqual({ 't-open': 'queue' });
    expect(hub.registry().filter((e) => e.state === 'served').map((e) => e.name)).toEqual(['alpha', 'v01']);
  });

  it("on a warm start, every channel's board is up before any channel watches its folder; then all watch", async () => {
    const t = temp();
    const { parent, alpha } = threeChannels(t);
    const first = hubOf(t, parent, alpha, [], () => 5000);
    await first.start(3_600_000);
    await first.stop();

    // The same index files again (warm starts), with folder events on.
    const index = path.join(t, 'index');
    const watchingAtReady: string[][] = [];
    let hub: Hub | null = null;
    const names = ['alpha', 'v01', 'v09'];
    const watching = () => names.filter((n) => (hub?.indexerOf(n)?.watched.length ?? 0) > 0);
    hub = new Hub({
      specs: [{ name: 'alpha', root: alpha }],
      parents: [parent],
      registryFile: path.join(index, 'channels.json'),
      dbFileOf: (root) => path.join(index, `${path.basename(root)}.sqlite`),
      staleAfterMsOf: () => STALE_AFTER_MS,
      now: () => 6000,
      log: (l) => {
        if (/: index: ready in /.test(l)) watchingAtReady.push(watching());
      },
      indexer: { ...INDEXER, watch: true },
    });
    hubs.push(hub);
    await hub.start(3_600_000);
    expect(watchingAtReady).toEqual([[], [], []]);
    expect(watching()).toEqual(names);
    for (const n of names) expect(hub.indexerOf(n)?.watched).toContain('');
  });
});
