/**
 * Folder events are hints and the looks are the truth (lib/index/indexer.ts): which folders
 * are watched, a change in a folder nobody watches, and a file rewritten in place while the
 * indexer was stopped (no folder's own identity changes: only the sweep can find it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../db';
import { Indexer } from '../indexer';
import { FolderWatch } from '../disk/folder-watch';
import { VECTORS_DIR } from '../../../test/support/vectors';
import { nodeVerify } from '../disk/node-verify';
import { ChannelBuilder } from '../../../test/support/channel-builder';
import * as q from '../read/queries';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function channelCopy(vector: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-looks-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(path.join(VECTORS_DIR, vector, 'channel'), dir, { recursive: true });
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `f` every 20 ms until it returns true or `ms` pass; returns its last answer. */
async function until(f: () => boolean, ms = 60_000): Promise<boolean> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (f()) return true;
    await sleep(20);
  }
  return f();
}

describe('the looks behind folder events', () => {
  it('watches the channel level and the folders of unfinished orders; a finished order\'s folder is found by the quick look, then watched', async () => {
    // Vector 10: ra awaiting_review (Review), rb accepted (Done), rc changes_requested (Queue).
    const root = channelCopy('10-review-states');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, verify: nodeVerify, rescanMs: 100 });
    cleanup.push(() => ix.stop());
    await ix.start();
    expect(q.order(db, 'rb', Date.now())?.card.lane).toBe('done');
    expect(ix.watched).toEqual(['', 'agents', 'tasks', 'tasks/ra', 'tasks/rc']);
    // Memory keeps the unfinished orders and their folders; rb's are the index's.
    expect(ix.memory).toEqual({ orders: 2, folders: 2 });
    // A malformed claim lands in rb's folder: a problem row, so rb is flagged bad_record and
    // leaves the Done lane; no event tells of it, the quick look does.
    fs.writeFileSync(path.join(root, 'tasks/rb/claim.zed.json'), '{');
    expect(await until(() => q.order(db, 'rb', Date.now())?.card.flags.includes('bad_record') ?? false)).toBe(true);
    expect(q.order(db, 'rb', Date.now())?.card.lane).toBe('attention');
    expect(ix.watched).toContain('tasks/rb');
    expect(ix.memory).toEqual({ orders: 3, folders: 3 });
  });

  it('a warm start trusts folders whose own identity is unchanged; its first sweep finds a file rewritten in place meanwhile', async () => {
    // Vector 13: t2 is claimed by fang.
    const root = channelCopy('13-retired');
    const db = openMemory();
    const first = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await first.start();
    await first.stop();
    expect(q.order(db, 't2', Date.now())?.card.holder).toBe('fang');
    // Rewritten in place (same inode, no entry added or removed): t2's folder keeps its identity.
    const folder = path.join(root, 'tasks/t2');
    const before = fs.statSync(folder);
    fs.writeFileSync(path.join(folder, 'claim.fang.json'), '{');
    const after = fs.statSync(folder);
    expect([after.mtimeMs, after.ctimeMs, after.ino]).toEqual([before.mtimeMs, before.ctimeMs, before.ino]);
    const warm = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify, rescanMs: 60_000 });
    cleanup.push(() => warm.stop());
    await warm.start();
    // The malformed claim is a problem row: nobody holds t2 and it is flagged.
    expect(await until(() => q.order(db, 't2', Date.now())?.card.holder === null)).toBe(true);
    expect(q.order(db, 't2', Date.now())?.card.flags).toContain('bad_record');
  });
  it('a warm start looks at the unfinished orders\' folders before it is ready, the finished orders\' in the sweep\'s first slices just after', async () => {
    // Vector 10: ra awaiting_review (Review), rb accepted (Done), rc changes_requested (Queue).
    const root = channelCopy('10-review-states');
    const db = openMemory();
    const first = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await first.start();
    await first.stop();
    // While nothing runs, a malformed claim lands in rb's folder and in rc's.
    fs.writeFileSync(path.join(root, 'tasks/rb/claim.zed.json'), '{');
    fs.writeFileSync(path.join(root, 'tasks/rc/claim.zed.json'), '{');
    const said: string[] = [];
    const warm = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify, rescanMs: 60_000, log: (l) => said.push(l) });
    cleanup.push(() => warm.stop());
    await warm.start();
    // Ready: rc (live) was looked at; rb (finished) is still as stored: its look is the sweep's, next.
    expect(q.order(db, 'rc', Date.now())?.card.flags).toContain('bad_record');
    expect(q.order(db, 'rb', Date.now())?.card.lane).toBe('done');
    expect(await until(() => q.order(db, 'rb', Date.now())?.card.flags.includes('bad_record') ?? false, 60_000)).toBe(true);
    expect(said.some((l) => l.startsWith("index: the finished orders' folders looked at after the warm start"))).toBe(true);
  });
  it('past the watch budget, an unfinished order\'s folder is polled: its change shows long before the next quick look, and it is watched from then on', async () => {
    // Vector 10: ra (Review) and rc (Running) unfinished, rb finished. One watch for the two.
    const root = channelCopy('10-review-states');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, verify: nodeVerify, rescanMs: 60_000, maxWatches: 1 });
    cleanup.push(() => ix.stop());
    await ix.start();
    await sleep(100);
    const watchedOrders = () => ix.watched.filter((d) => d.startsWith('tasks/'));
    expect(watchedOrders()).toHaveLength(1);
    const unwatched = ['ra', 'rc'].find((d) => !ix.watched.includes(`tasks/${d}`))!;
    // No event comes from it, and the quick look is a minute away: the poll finds it.
    fs.writeFileSync(path.join(root, `tasks/${unwatched}/claim.zed.json`), '{');
    expect(await until(() => q.order(db, unwatched, Date.now())?.card.flags.includes('bad_record') ?? false, 60_000)).toBe(true);
    expect(watchedOrders()).toEqual([`tasks/${unwatched}`]);
  });
  it('when tasks/ itself is replaced, the order folders in the new one are watched', async () => {
    const root = channelCopy('10-review-states');
    const db = openMemory();
    // Looks far apart: only folder events can tell of the change below in time.
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, verify: nodeVerify, rescanMs: 60_000 });
    cleanup.push(() => ix.stop());
    await ix.start();
    fs.renameSync(path.join(root, 'tasks'), path.join(root, 'tasks-old'));
    fs.cpSync(path.join(root, 'tasks-old'), path.join(root, 'tasks'), { recursive: true });
    fs.rmSync(path.join(root, 'tasks-old'), { recursive: true });
    await sleep(300); // the replacement is seen (an event on the channel root)
    fs.writeFileSync(path.join(root, 'tasks/rc/claim.zed.json'), '{');
    expect(await until(() => q.order(db, 'rc', Date.now())?.card.flags.includes('bad_record') ?? false, 60_000)).toBe(true);
  });
  // At once: the indexer sees the symlink where tasks/ was. Seen gone first: it empties the board,
  // then sees the symlink appear.
  for (const seenGoneFirst of [false, true]) {
    it(`a tasks/ replaced by a symlink${seenGoneFirst ? ' after the indexer saw it gone' : ''} is never followed: no orders, one symlink problem, live and after a fresh start`, async () => {
      const root = channelCopy('10-review-states');
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-looks-elsewhere-'));
      cleanup.push(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
      const db = openMemory();
      const ix = new Indexer({ root, db, staleAfterMs: 300_000, verify: nodeVerify, rescanMs: 100 });
      cleanup.push(() => ix.stop());
      await ix.start();
      const orders = () => q.board(db, [], Date.now(), false).lanes.reduce((n, l) => n + l.count, 0);
      expect(orders()).toBe(3);
      fs.renameSync(path.join(root, 'tasks'), path.join(elsewhere, 'tasks'));
      if (seenGoneFirst) expect(await until(() => orders() === 0)).toBe(true);
      fs.symlinkSync(path.join(elsewhere, 'tasks'), path.join(root, 'tasks'));
      const symlinkProblem = (d: typeof db) => q.problems(d).problems.filter((p) => p.path === 'tasks').map((p) => p.problem);
      expect(await until(() => orders() === 0 && symlinkProblem(db).length === 1)).toBe(true);
      expect(symlinkProblem(db)).toEqual(['symlink']);
      const fresh = openMemory();
      const again = new Indexer({ root, db: fresh, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
      await again.start();
      await again.stop();
      expect(q.board(fresh, [], Date.now(), false).lanes.map((l) => l.count)).toEqual([0, 0, 0, 0, 0, 0]);
      expect(symlinkProblem(fresh)).toEqual(['symlink']);
    });
  }
  it('a start after a run killed between storing cards and settling them settles every card', async () => {
    // Vector 20: b is blocked on a, a fact settle() applies after the folder pass.
    const root = channelCopy('20-dependencies');
    const db = openMemory();
    const first = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await first.start();
    await first.stop();
    expect(q.order(db, 'b', Date.now())?.card.state).toBe('blocked');
    // What a kill between the two transactions leaves: b's card as its own folder derives it
    // (not yet blocked), and the mark that cards are waiting to be settled.
    const row = db.prepare("SELECT card FROM cards WHERE order_id = 'b'").get() as { card: string };
    const provisional = { ...JSON.parse(row.card), state: 'open' };
    db.prepare("UPDATE cards SET state = 'open', card = ? WHERE order_id = 'b'").run(JSON.stringify(provisional));
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('unsettled', '1')").run();
    const again = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await again.start();
    await again.stop();
    expect(q.order(db, 'b', Date.now())?.card.state).toBe('blocked');
    expect((db.prepare("SELECT value FROM meta WHERE key = 'unsettled'").get() as { value: string }).value).toBe('0');
  });

  it("a finished order that settle flags (its dependency's folder gone) is watched once, not passed again and again", async () => {
    // Vector 20 plus x: depends on a, claimed and delivered by fang (done).
    const root = channelCopy('20-dependencies');
    for (const e of new ChannelBuilder().order('x', { depends_on: ['a'] }).claim('x', 'fang').result('x', 'fang', 1).entries()) {
      if (e.type !== 'file' || !e.bytes || !e.path.startsWith('tasks/x/')) continue;
      fs.mkdirSync(path.dirname(path.join(root, e.path)), { recursive: true });
      fs.writeFileSync(path.join(root, e.path), e.bytes);
    }
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, verify: nodeVerify, rescanMs: 100, vanishGraceMs: 0 });
    cleanup.push(() => ix.stop());
    await ix.start();
    expect(q.order(db, 'x', Date.now())?.card).toMatchObject({ state: 'done', lane: 'done', flags: [] });
    // a's folder goes: x is flagged missing_dependency by settle (its pass alone reads it done, unflagged).
    fs.rmSync(path.join(root, 'tasks/a'), { recursive: true });
    expect(await until(() => q.order(db, 'x', Date.now())?.card.flags.includes('missing_dependency') ?? false)).toBe(true);
    expect(await until(() => ix.watched.includes('tasks/x'))).toBe(true);
    // Settled: nothing changes x any more. Passing its folder again after each new watch wrote a
    // change row for x every few ms (the provisional card, then the settled one).
    await sleep(300);
    const seq = q.latestSeq(db);
    await sleep(1000);
    expect(q.changesSince(db, seq)?.orders ?? []).not.toContain('x');
    expect(q.order(db, 'x', Date.now())?.card.lane).toBe('attention');
  });
});

describe('FolderWatch', () => {
  it('reports entries changed in a watched directory, relative to the root, until unwatched', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-watch-'));
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.mkdirSync(path.join(root, 'tasks/a'), { recursive: true });
    const seen: string[] = [];
    const w = new FolderWatch(root, (rel) => seen.push(rel));
    cleanup.push(() => w.close());
    expect(w.watch('tasks/a')).toBe(true);
    expect(w.watch('tasks/a')).toBe(false); // already watched
    expect(w.watch('tasks/missing')).toBe(false);
    expect(w.list()).toEqual(['tasks/a']);
    fs.writeFileSync(path.join(root, 'tasks/a/claim.x.json'), '{}');
    expect(await until(() => seen.includes('tasks/a/claim.x.json'), 60_000)).toBe(true);
    w.unwatch('tasks/a');
    expect(w.size).toBe(0);
    seen.length = 0;
    fs.writeFileSync(path.join(root, 'tasks/a/claim.y.json'), '{}');
    await sleep(200);
    expect(seen).toEqual([]);
  });
});
