/**
 * A local agent's run whose process is gone here leaves Running at once: a real Indexer over a
 * real folder, stale_after 300 s and every heartbeat fresh, with this machine's verdict given by
 * the test (the serve wires LocalOverlay's /proc verdict). While the process lives the card is
 * Running; once it is gone, the next look moves it to Stale (its count, its pages, /api/orders),
 * its state still what ferry reads (claimed). Another agent's run is never looked at.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../db';
import { Indexer } from '../indexer';
import { lanePage, order, PAGE_SIZE } from '../read/queries';
import { DEATHS_RELOOK_MS, withLocalDeath } from './local-deaths';
import { naclVerify } from '../../ledger/nacl-verify';
import { publicKeyOf, type Identity } from '../../demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder } from '../../demo/write';
import { ChannelBuilder, seedOf } from '../../../test/support/channel-builder';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-deaths-ix-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const who = (name: string): Identity => ({ name, seedHex: seedOf(name) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ids = (p: { cards: readonly { order_id: string }[] }) => p.cards.map((c) => c.order_id);

describe('a dead local run in the index', () => {
  it('moves from Running to Stale at the next look once its process is gone, its heartbeat still fresh', async () => {
    const root = fs.mkdtempSync(path.join(tmp, 'ch-'));
    const [ops, fang, wisp] = [who('ops'), who('fang'), who('wisp')];
    writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
    for (const a of [fang, wisp]) writeAgent(root, { name: a.name, role: 'worker', publicKey: publicKeyOf(a) });
    for (const [id, agent, pid] of [['o-fang', fang, 4242], ['o-wisp', wisp, 4343]] as const) {
      writeOrder(root, ops, { id, project_id: 'p', payload: { task: id } });
      writeClaim(root, agent, id);
      writeHeartbeat(root, agent, id, { run: 'r1', pid });
    }
    let gone = false;
    const asked: string[] = [];
    const db = openMemory();
    const ix = new Indexer({
      root,
      db,
      staleAfterMs: 300_000,
      watch: false,
      verify: naclVerify,
      vanishGraceMs: 0,
      localDeath: {
        agents: ['fang'],
        isDead: (_db, card) => {
          asked.push(card.holder ?? '');
          return gone && card.heartbeat?.pid === 4242;
        },
      },
    });
    await ix.start();
    try {
      const now = Date.now();
      expect(ids(lanePage(db, 'running', [], null, PAGE_SIZE, now))).toEqual(['o-fang', 'o-wisp']);
      gone = true;
      await sleep(DEATHS_RELOOK_MS + 50);
      ix.request(null);
      ix.pump();
      const after = Date.now();
      expect(ids(lanePage(db, 'running', [], null, PAGE_SIZE, after))).toEqual(['o-wisp']);
      const stale = lanePage(db, 'stale', [], null, PAGE_SIZE, after);
      expect([ids(stale), stale.count]).toEqual([['o-fang'], 1]);
      const c = order(db, 'o-fang', after)?.card;
      expect([c?.state, c?.lane, c?.run_lane, c?.ferry.state]).toEqual(['claimed', 'stale', 'stale', 'claimed']);
      expect(asked.every((h) => h === 'fang')).toBe(true);
    } finally {
      await ix.stop();
    }
  });

  it('leaves every card but a running one with a heartbeat as it is', () => {
    const b = new ChannelBuilder().roster();
    b.order('c').claim('c', 'fang');
    b.order('h').claim('h', 'fang').heartbeat('h', 'fang');
    const s = b.derive();
    const card = (id: string) => s.orders.find((o) => o.order_id === id)!;
    expect(withLocalDeath(card('c'), () => true)).toBe(card('c')); // no heartbeat: no pid to check
    expect(withLocalDeath(card('h'), () => false)).toBe(card('h'));
    expect(withLocalDeath(card('h'), () => true)).toMatchObject({ state: 'claimed', run_lane: 'stale', lane: 'stale' });
  });
});
