/**
 * The reaper's holds in the index: a real Indexer over a real folder, with a hold
 * written into the reaper's state folder (writeReaperState, as the reaper does). The held order
 * counts as every other flagged card: in Needs attention's count and its keyset pages (here on
 * page 2: 31 given-up orders sort before it), found by `flag:dead_run_held` and nothing else,
 * in /api/orders' card and /metrics' attention per flag; it leaves the lane when the hold ends
 * (the order released, or the hold gone from the state file while the indexer was not running).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../db';
import { Indexer } from '../indexer';
import { changesSince, decodeCursor, lanePage, latestSeq, order, PAGE_SIZE } from '../read/queries';
import { indexFigures } from '../read/metrics-queries';
import { nodeVerify } from '../disk/node-verify';
import { parseQuery, type QueryTerm } from '../../query/query';
import { publicKeyOf, type Identity } from '../../demo/identity';
import { writeAgent, writeClaim, writeGiveup, writeHeartbeat, writeOrder, writeRelease } from '../../demo/write';
import { seedOf } from '../../../test/support/channel-builder';
import { stateFileOf, writeReaperState, type ReaperHold } from '../../local/reaper-state';
import { HOLDS_REREAD_MS } from './local-holds';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-holds-ix-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const who = (name: string): Identity => ({ name, seedHex: seedOf(name) });
const ops = who('ops');
const fang = who('fang');
const wisp = who('wisp');
const STALE_MS = 5_000;
/** The indexer's clock 10 s ahead of the files' arrivals: every heartbeat written here is stale (10 s > 5 s). */
const clock = () => Date.now() + 10_000;

const terms = (text: string): readonly QueryTerm[] => {
  const p = parseQuery(text);
  if (!p.ok) throw new Error(p.reason);
  return p.terms;
};
const ids = (p: { cards: readonly { order_id: string }[] }) => p.cards.map((c) => c.order_id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * 31 orders given up by wisp (Needs attention, no staleness reference: sort_ms 0, so they come
 * first), fang's stale run `o-held` (heartbeat pid 4242, run r1) and wisp's stale run `o-stale`.
 */
function channel(): string {
  const root = fs.mkdtempSync(path.join(tmp, 'ch-'));
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
  writeAgent(root, { name: 'fang', role: 'worker', publicKey: publicKeyOf(fang) });
  writeAgent(root, { name: 'wisp', role: 'worker', publicKey: publicKeyOf(wisp) });
  for (let i = 0; i < PAGE_SIZE + 1; i++) {
    const id = `g-${String(i).padStart(2, '0')}`;
    writeOrder(root, ops, { id, project_id: 'p', payload: { task: id } });
    writeClaim(root, wisp, id);
    writeHeartbeat(root, wisp, id, { run: `run-${id}`, pid: 7 });
    writeGiveup(root, wisp, id, { run: `run-${id}`, reason: 'retry ceiling reached', attempts: 3 });
  }
  for (const [id, agent, pid] of [['o-held', fang, 4242], ['o-stale', wisp, 4343]] as const) {
    writeOrder(root, ops, { id, project_id: 'p', payload: { task: id } });
    writeClaim(root, agent, id);
    writeHeartbeat(root, agent, id, { run: 'r1', pid });
  }
  return root;
}

function holdOf(root: string, stateDir: string): ReaperHold {
  const hold: ReaperHold = {
    order_id: 'o-held',
    agent: 'fang',
    run: 'r1',
    pid: 4242,
    verdict: 'dead',
    text: 'dead: pid 4242 is gone on this machine',
    held_at_ms: Date.parse('2026-12-01T17:00:00Z'),
    held_at: '2026-12-01T17:00:00Z',
    heartbeat_arrival_ms: fs.statSync(path.join(root, 'tasks/o-held/heartbeat.fang.json')).ctimeMs,
  };
  writeReaperState(stateDir, { version: 1, channel: root, agent: 'fang', updated_at_ms: hold.held_at_ms, runs: [], holds: [hold] });
  return hold;
}

const HELD_TEXT = 'dead run held for review since 2026-12-01 17:00 UTC: pid 4242 is gone on this machine';

describe('reaper holds in the index', () => {
  it('a held card is on page 2 of Needs attention, found by flag:dead_run_held alone, counted per flag; a release ends it', async () => {
    const root = channel();
    const stateDir = path.join(tmp, 'state-1');
    holdOf(root, stateDir);
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: STALE_MS, clock, watch: false, verify: nodeVerify, reaperState: stateDir, vanishGraceMs: 0 });
    await ix.start();
    try {
      const now = clock();
      // 31 given up + the held one; the Stale lane keeps only wisp's stale run.
      const p1 = lanePage(db, 'attention', [], null, PAGE_SIZE, now);
      expect([p1.count, p1.cards.length, ids(p1).includes('o-held')]).toEqual([PAGE_SIZE + 2, PAGE_SIZE, false]);
      const cursor = p1.next_cursor === null ? null : decodeCursor(p1.next_cursor);
      const p2 = lanePage(db, 'attention', [], cursor, PAGE_SIZE, now);
      expect(ids(p2)).toEqual(['g-30', 'o-held']);
      const held = p2.cards[1];
      expect([held?.state, held?.flags, held?.alerts]).toEqual(['stale', ['dead_run_held'], [{ flag: 'dead_run_held', text: HELD_TEXT }]]);
      expect(ids(lanePage(db, 'stale', [], null, PAGE_SIZE, now))).toEqual(['o-stale']);

      // The query finds exactly the held order, in its lane; its negation leaves it out.
      const q = terms('flag:dead_run_held');
      expect([ids(lanePage(db, 'attention', q, null, PAGE_SIZE, now)), lanePage(db, 'attention', q, null, PAGE_SIZE, now).count]).toEqual([['o-held'], 1]);
      expect(lanePage(db, 'stale', q, null, PAGE_SIZE, now).count).toBe(0);
      expect(lanePage(db, 'attention', terms('-flag:dead_run_held'), null, PAGE_SIZE, now).count).toBe(PAGE_SIZE + 1);
      // /api/orders and /metrics read the same card.
      expect(order(db, 'o-held', now)?.card.flags).toEqual(['dead_run_held']);
      const figures = indexFigures(db);
      expect([figures.flags.get('dead_run_held'), figures.flags.get('gave_up'), figures.lanes.get('attention'), figures.lanes.get('stale')]).toEqual([1, PAGE_SIZE + 1, PAGE_SIZE + 2, 1]);

      // fang's own release (what a reset, or ferry's next start, writes): the order is Open and the hold is over.
      writeRelease(root, fang, 'o-held', 'fang', 'worker died mid-run', { fileName: 'ferryman' });
      ix.request('tasks/o-held/release.fang.json');
      ix.pump();
      const after = order(db, 'o-held', clock())?.card;
      expect([after?.state, after?.lane, after?.flags]).toEqual(['open', 'queue', []]);
      expect(lanePage(db, 'attention', [], null, PAGE_SIZE, clock()).count).toBe(PAGE_SIZE + 1);
      expect(lanePage(db, 'attention', q, null, PAGE_SIZE, clock()).count).toBe(0);
    } finally {
      await ix.stop();
    }
  });

  it('a hold recorded while serving raises the card within a look; one gone from the state file while stopped is dropped at the next start', async () => {
    const root = channel();
    const stateDir = path.join(tmp, 'state-2');
    const db = openMemory();
    const opts = { root, db, staleAfterMs: STALE_MS, clock, watch: false, verify: nodeVerify, reaperState: stateDir, vanishGraceMs: 0 } as const;
    const ix = new Indexer(opts);
    await ix.start();
    try {
      expect(order(db, 'o-held', clock())?.card.lane).toBe('stale');
      const seq = latestSeq(db);
      holdOf(root, stateDir);
      // No file of the channel changed: the next look (the state folder is read at most once per HOLDS_REREAD_MS) settles the order again.
      await sleep(HOLDS_REREAD_MS + 50);
      ix.request(null);
      ix.pump();
      expect(order(db, 'o-held', clock())?.card.alerts).toEqual([{ flag: 'dead_run_held', text: HELD_TEXT }]);
      expect(ids(lanePage(db, 'attention', terms('flag:dead_run_held'), null, PAGE_SIZE, clock()))).toEqual(['o-held']);
      // The change feed names it, so a board already open refetches (/api/events).
      expect(changesSince(db, seq)?.orders).toContain('o-held');
    } finally {
      await ix.stop();
    }
    // The hold removed while no indexer runs: a warm start over the same index drops the stored flag.
    fs.rmSync(stateFileOf(stateDir, root, 'fang'));
    const again = new Indexer(opts);
    await again.start();
    try {
      const c = order(db, 'o-held', clock())?.card;
      expect([c?.lane, c?.flags]).toEqual(['stale', []]);
      expect(lanePage(db, 'attention', terms('flag:dead_run_held'), null, PAGE_SIZE, clock()).count).toBe(0);
    } finally {
      await again.stop();
    }
  });
});
