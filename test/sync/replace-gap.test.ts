/**
 * Found by test/sync/syncthing.test.ts (assertion 2), fixed by the indexer's vanish grace.
 *
 * Syncthing (1.19, Debian's) replaces a changed file on the RECEIVING side in two steps:
 * `unlinkat(<file>)`, then `renameat(.syncthing.<file>.tmp, <file>)` (lib/model
 * folder_sendrecv.go performFinish: deleteItemOnDisk, then RenameOrCopy). Seen with strace on
 * the pair's side B: 0.8-3 ms between the two calls when idle, more under load. An index pass
 * that lands in between (the unlink's own folder event when the rename is late, or a pass for
 * another reason: the clock wake-up at the claim's stale time, the periodic rescan) finds no
 * heartbeat, and a fresh claim whose own arrival is older than stale_after shows `stale`
 * (`no_heartbeat`, `heartbeat: null`) until the rename's event brings it back. docs/channel-format.md
 * says a fresh claim must not show stale; the same gap would briefly drop a rewritten roster
 * entry (agents/<name>.json) from the agents the board knows (the last describe).
 *
 * This test imitates the receiving side with a gap long enough that the unlink's own event
 * triggers a pass inside it (@parcel/watcher batches ~50 ms, the indexer debounces 30 ms). The
 * indexer believes a file that vanished for a grace (IndexerOptions.vanishGraceMs, 1 s) and looks
 * again, so no sample may show the order stale.
 *
 * The second test catches the other order of the two steps: the look lists the file, and the
 * pass's read finds it gone (a card with `heartbeat: null` and a bad_record "unreadable", seen
 * by the Syncthing test on a loaded machine). The unlink is made to land exactly there, so the
 * test does not depend on timing; with no grace the same pass shows the gap (the control).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openMemory } from '../../lib/index/db';
import { listOrderFolder } from '../../lib/index/disk/read-channel';
import { Indexer } from '../../lib/index/indexer';
import { publicKeyOf } from '../../lib/demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder } from '../../lib/demo/write';
import { seedOf } from '../support/channel-builder';
import type { Card } from '../../lib/ledger/derive';
import { until } from '../support/until';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A channel in a temp folder (removed after the test): order `live`, claimed by fang, whose run r1 has written a heartbeat. */
function oneClaimWithHeartbeat() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-gap-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const ops = { name: 'ops', seedHex: seedOf('ops') };
  const fang = { name: 'fang', seedHex: seedOf('fang') };
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
  writeAgent(root, { name: 'fang', role: 'worker', publicKey: publicKeyOf(fang) });
  writeOrder(root, ops, { id: 'live', project_id: 'sync', payload: {} });
  writeClaim(root, fang, 'live');
  const run = { run: 'r1', pid: 4242 };
  writeHeartbeat(root, fang, 'live', run);
  return { root, fang, run };
}

describe('a file replaced as Syncthing replaces it on the receiving side (unlink, then rename)', () => {
  it('never shows a heartbeating claim as stale while its heartbeat file is briefly gone', async () => {
    const { root, fang, run } = oneClaimWithHeartbeat();

    const staleAfterMs = 1500;
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs, watch: true });
    await ix.start();
    cleanup.push(() => ix.stop());
    const card = () => JSON.parse((db.prepare("SELECT card FROM cards WHERE order_id = 'live'").get() as { card: string }).card) as Card;

    // Heartbeats replaced atomically (as a local writer does) until the claim itself is older
    // than stale_after: from then on only the heartbeat keeps the order fresh.
    const t0 = Date.now();
    while (Date.now() - t0 < staleAfterMs + 300) {
      writeHeartbeat(root, fang, 'live', run);
      await sleep(250);
    }
    await until(() => card().holder_fresh === true, 60_000);
    expect(card()).toMatchObject({ state: 'claimed', holder_fresh: true });

    // Now as Syncthing's puller does it: the new content aside, unlink, (a gap), rename.
    const states: string[] = [];
    const sampler = setInterval(() => {
      const c = card();
      states.push(`${c.state}${c.heartbeat ? '' : ' (no heartbeat)'}`);
    }, 2);
    const target = path.join(root, 'tasks/live/heartbeat.fang.json');
    const tmp = path.join(root, 'tasks/live/.syncthing.heartbeat.fang.json.tmp');
    try {
      // Six replaces: each gap gets its own folder event, so a pass lands inside several of them.
      for (let i = 0; i < 6; i++) {
        fs.writeFileSync(tmp, JSON.stringify({ order_id: 'live', agent: 'fang', run: run.run, pid: run.pid, at: new Date().toISOString() }, null, 2));
        fs.unlinkSync(target);
        await sleep(400);
        fs.renameSync(tmp, target);
        await sleep(300);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(states.length).toBeGreaterThan(100);
    // Back to fresh once the rename's event is seen.
    await until(() => card().state === 'claimed', 60_000);
    expect(card()).toMatchObject({ state: 'claimed', holder_fresh: true });
    expect(states.filter((s) => s.startsWith('stale'))).toEqual([]);
    expect(states.filter((s) => s.includes('no heartbeat'))).toEqual([]);
  });

  /** A channel of one claimed order with a heartbeat, indexed (no watching: passes run on pump()), and the heartbeat's paths. */
  async function claimedWithHeartbeat(vanishGraceMs: number) {
    const { root } = oneClaimWithHeartbeat();
    const db = openMemory();
    // An hour's stale window: the claim is fresh throughout; what is checked is the heartbeat the card shows.
    const ix = new Indexer({ root, db, staleAfterMs: 3_600_000, watch: false, vanishGraceMs });
    await ix.start({ watchLater: true });
    cleanup.push(() => ix.stop());
    const card = () => JSON.parse((db.prepare("SELECT card FROM cards WHERE order_id = 'live'").get() as { card: string }).card) as Card;
    const target = path.join(root, 'tasks/live/heartbeat.fang.json');
    const tmp = path.join(root, 'tasks/live/.syncthing.heartbeat.fang.json.tmp');
    /** Syncthing's replace with a pass between its unlink and its rename: the look lists the file, the pass's read finds it gone. */
    const passBetweenUnlinkAndRename = () => {
      fs.writeFileSync(tmp, JSON.stringify({ order_id: 'live', agent: 'fang', run: 'r1', pid: 4242, at: '2026-12-06T12:00:00Z' }, null, 2));
      const open = fs.openSync;
      const spy = vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
        if (p === target && fs.existsSync(target)) fs.unlinkSync(target);
        return (open as (...a: unknown[]) => number)(p, ...rest);
      }));
      try {
        ix.request('tasks/live');
        ix.pump();
      } finally {
        spy.mockRestore();
      }
    };
    /** The same with the unlink just after the look listed the folder: the pass's own listing (the folder's second) lacks the file. Returns how many times the folder was listed. */
    const passAfterUnlink = () => {
      fs.writeFileSync(tmp, JSON.stringify({ order_id: 'live', agent: 'fang', run: 'r1', pid: 4242, at: '2026-12-06T12:00:00Z' }, null, 2));
      const folder = path.dirname(target);
      const opendir = fs.opendirSync;
      let listed = 0;
      const spy = vi.spyOn(fs, 'opendirSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
        if (p === folder && ++listed === 2) fs.unlinkSync(target);
        return (opendir as (...a: unknown[]) => fs.Dir)(p, ...rest);
      }));
      try {
        ix.request('tasks/live');
        ix.pump();
      } finally {
        spy.mockRestore();
      }
      return listed;
    };
    return { ix, card, target, tmp, passBetweenUnlinkAndRename, passAfterUnlink };
  }

  it('holds back a pass whose read finds a listed file gone, and stores the folder once the file is back', async () => {
    const { ix, card, target, tmp, passBetweenUnlinkAndRename } = await claimedWithHeartbeat(60_000);
    const before = card();
    expect(before).toMatchObject({ state: 'claimed', holder_fresh: true, flags: [] });
    expect(before.heartbeat).not.toBeNull();
    passBetweenUnlinkAndRename();
    expect(fs.existsSync(target)).toBe(false);
    // The pass was held back: the card is the one stored before, heartbeat and all.
    expect(card()).toEqual(before);
    fs.renameSync(tmp, target);
    ix.request('tasks/live');
    ix.pump();
    const after = card();
    expect(after).toMatchObject({ state: 'claimed', holder_fresh: true, flags: [] });
    expect(after.heartbeat?.at).toBe('2026-12-06T12:00:00Z');
  });

  it('holds back a pass whose listing lacks a file stored before, the look having listed it a moment earlier', async () => {
    const { ix, card, target, tmp, passAfterUnlink } = await claimedWithHeartbeat(60_000);
    const before = card();
    expect(before.heartbeat).not.toBeNull();
    // Listed twice: by the look (the file there), then by the pass (gone).
    expect(passAfterUnlink()).toBe(2);
    expect(card()).toEqual(before);
    fs.renameSync(tmp, target);
    ix.request('tasks/live');
    ix.pump();
    expect(card()).toMatchObject({ state: 'claimed', holder_fresh: true, flags: [] });
    expect(card().heartbeat?.at).toBe('2026-12-06T12:00:00Z');
  });

  it('with no grace, the pass after the unlink stores the claim without its heartbeat (the control)', async () => {
    const { card, passAfterUnlink } = await claimedWithHeartbeat(0);
    expect(passAfterUnlink()).toBe(2);
    expect(card()).toMatchObject({ state: 'claimed', heartbeat: null, flags: [] });
  });

  it('with no grace, the same pass stores the gap: no heartbeat, and the file said unreadable (the control)', async () => {
    const { card, passBetweenUnlinkAndRename } = await claimedWithHeartbeat(0);
    passBetweenUnlinkAndRename();
    const c = card();
    expect(c.heartbeat).toBeNull();
    expect(c.flags).toEqual(['bad_record']);
    expect(c.alerts).toEqual([{ flag: 'bad_record', text: 'heartbeat.fang.json: unreadable' }]);
  });

  it('says a folder listing whose named file was gone by its lstat vanished, and lists the rest', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-gap-'));
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.mkdirSync(path.join(root, 'tasks/live'), { recursive: true });
    for (const f of ['order.json', 'claim.fang.json', 'heartbeat.fang.json']) fs.writeFileSync(path.join(root, 'tasks/live', f), '{}');
    const target = path.join(root, 'tasks/live/heartbeat.fang.json');
    expect(listOrderFolder(root, 'live')?.vanished).toBeUndefined();
    const lstat = fs.lstatSync;
    const spy = vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (p === target && fs.existsSync(target)) fs.unlinkSync(target);
      return (lstat as (...a: unknown[]) => fs.Stats)(p, ...rest);
    }));
    try {
      const l = listOrderFolder(root, 'live');
      expect(l?.vanished).toBe(true);
      expect(l?.entries.map((e) => e.rel)).toEqual(['tasks/live/claim.fang.json', 'tasks/live/order.json']);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('a channel-level file replaced as Syncthing replaces it (the roster entry agents/fang.json)', () => {
  /** The one-claim channel, indexed (no watching: reads run on pump()), with the roster entry's paths and the replace's two halves. */
  async function indexed(vanishGraceMs: number) {
    const { root, fang } = oneClaimWithHeartbeat();
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 3_600_000, watch: false, vanishGraceMs });
    await ix.start({ watchLater: true });
    cleanup.push(() => ix.stop());
    const card = () => JSON.parse((db.prepare("SELECT card FROM cards WHERE order_id = 'live'").get() as { card: string }).card) as Card;
    const agents = () => (db.prepare('SELECT name FROM agents ORDER BY name').all() as { name: string }[]).map((r) => r.name);
    const target = path.join(root, 'agents/fang.json');
    const tmp = path.join(root, 'agents/.syncthing.fang.json.tmp');
    // The same entry again, a new file (Syncthing's temp file holds the new version).
    fs.copyFileSync(target, tmp);
    /** Runs a look and a read of the channel level with `unlink` spied in where it lands. */
    const readWith = (spyOn: 'openSync' | 'opendirSync', when: (p: fs.PathLike, n: number) => boolean) => {
      const real = fs[spyOn] as (...a: unknown[]) => unknown;
      let n = 0;
      const spy = vi.spyOn(fs, spyOn).mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
        if (when(p, ++n) && fs.existsSync(target)) fs.unlinkSync(target);
        return real(p, ...rest);
      }) as never);
      try {
        ix.request('agents/fang.json');
        ix.pump();
      } finally {
        spy.mockRestore();
      }
    };
    /** The read's open of the entry finds it gone (the look listed it). */
    const readBetweenUnlinkAndRename = () => readWith('openSync', (p) => p === target);
    let agentsListed = 0;
    /** The read's own listing of agents/ (after the look's) lacks the entry. */
    const readAfterUnlink = () => readWith('opendirSync', (p) => p === path.dirname(target) && ++agentsListed === 2);
    /** Runs `read`, then Syncthing's rename: the read was held back (the card and the agents as before), and nothing changes once the entry is back and read. */
    const heldUntilBack = (read: () => void) => {
      const before = card();
      expect(before).toMatchObject({ state: 'claimed', holder: 'fang', flags: [] });
      expect(agents()).toEqual(['fang', 'ops']);
      read();
      expect(fs.existsSync(target)).toBe(false);
      expect(card()).toEqual(before);
      expect(agents()).toEqual(['fang', 'ops']);
      fs.renameSync(tmp, target);
      ix.request('agents/fang.json');
      ix.pump();
      expect(card()).toEqual(before);
      expect(agents()).toEqual(['fang', 'ops']);
    };
    return { ix, fang, card, agents, target, readBetweenUnlinkAndRename, readAfterUnlink, heldUntilBack, listedAgents: () => agentsListed };
  }

  it('holds back a read whose open finds the entry gone, and reads it once the entry is back', async () => {
    const { readBetweenUnlinkAndRename, heldUntilBack } = await indexed(60_000);
    heldUntilBack(readBetweenUnlinkAndRename);
  });

  it('holds back a read whose listing lacks an entry the last read found', async () => {
    const { readAfterUnlink, heldUntilBack, listedAgents } = await indexed(60_000);
    heldUntilBack(readAfterUnlink);
    // Listed by the look (the entry there), then by the read (gone).
    expect(listedAgents()).toBeGreaterThanOrEqual(2);
  });

  it('stores an entry removed for good once the grace has ended', async () => {
    const { ix, card, agents, target, readBetweenUnlinkAndRename } = await indexed(50);
    const before = card();
    readBetweenUnlinkAndRename();
    expect(card()).toEqual(before);
    expect(agents()).toEqual(['fang', 'ops']);
    expect(fs.existsSync(target)).toBe(false);
    // Past the grace (50 ms; waiting longer changes nothing), the channel level is read as it is.
    await sleep(200);
    ix.request('agents');
    ix.pump();
    expect(agents()).toEqual(['ops']);
  });

  it('with no grace, the read stores the roster without the entry: fang leaves the agents page (the control)', async () => {
    const { agents, readBetweenUnlinkAndRename } = await indexed(0);
    readBetweenUnlinkAndRename();
    expect(agents()).toEqual(['ops']);
  });
});
