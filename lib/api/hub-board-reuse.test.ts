/**
 * hubBoard computes a channel's board again only when that channel's index changed (its version
 * moved) or its last board is more than a second old; otherwise it uses the board it computed
 * before. Two channels (vectors 01 and 03), each indexed into its own in-memory index; the test
 * names each index's version. The proof of reuse: a channel whose index changed while its
 * version is held still shows its earlier board, until its version moves or a second passes.
 */
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { nodeVerify } from '../index/disk/node-verify';
import { openMemory, type DB } from '../index/db';
import { Indexer } from '../index/indexer';
import type { ChannelView } from './channels';
import { hubBoard } from './hub-board';
import { copyVectorChannel, copyVectorOrder, removeFolder, tempFolder } from '../../test/support/hub';

const STALE_AFTER_MS = 300_000;
const t = tempFolder('cb-hub-reuse-');
afterAll(() => removeFolder(t));
afterEach(() => vi.useRealTimers());

/** Indexes `root` into `db` (again: a warm start finds what changed). */
async function index(root: string, db: DB): Promise<void> {
  const ix = new Indexer({ root, db, staleAfterMs: STALE_AFTER_MS, watch: false, verify: nodeVerify, workers: 0 });
  await ix.start();
  await ix.stop();
}

describe("a hub's board of channels, each computed again only when it changed", () => {
  it('uses a channel\'s board while its version holds (its index changed or not), and a new one when the version moves or after a second', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-06T12:00:00Z') });
    const a = copyVectorChannel('01-open', path.join(t, 'a'));
    const b = copyVectorChannel('03-claimed-fresh', path.join(t, 'b'));
    const dbs = { a: openMemory(), b: openMemory() };
    await index(a, dbs.a);
    await index(b, dbs.b);
    const versions = new Map([
      ['a', 'a1'],
      ['b', 'b1'],
    ]);
    const channels: ChannelView[] = (['a', 'b'] as const).map((name) => ({ name, state: 'served', why: null, dbFile: null, db: () => dbs[name] }));
    const ids = () => hubBoard(channels, [], true, versions).lanes.flatMap((l) => l.cards.map((c) => `${c.channel}/${c.order_id}:${l.lane}`)).sort();
    expect(ids()).toEqual(['a/t-open:queue', 'b/t1:running']);

    // An order arrives in b (vector 02's, offered to fang): b's index has it, its version is held.
    copyVectorOrder('02-offered', 't-off', b);
    await index(b, dbs.b);
    vi.advanceTimersByTime(500);
    expect(ids()).toEqual(['a/t-open:queue', 'b/t1:running']); // b's board as computed before

    // b's version moves: its board is computed again.
    versions.set('b', 'b2');
    expect(ids()).toEqual(['a/t-open:queue', 'b/t-off:queue', 'b/t1:running']);

    // a's version moves (its board computed now); then an order arrives in a, its version held:
    // a's board is used again for a second after it was computed, then computed again.
    versions.set('a', 'a2');
    expect(ids()).toEqual(['a/t-open:queue', 'b/t-off:queue', 'b/t1:running']);
    copyVectorOrder('02-offered', 't-off', a);
    await index(a, dbs.a);
    vi.advanceTimersByTime(1000);
    expect(ids()).toEqual(['a/t-open:queue', 'b/t-off:queue', 'b/t1:running']);
    vi.advanceTimersByTime(1);
    expect(ids()).toEqual(['a/t-off:queue', 'a/t-open:queue', 'b/t-off:queue', 'b/t1:running']);
    for (const db of Object.values(dbs)) db.close();
  });
});
