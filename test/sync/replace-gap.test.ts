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
 * entry (agents/<name>.json), making that agent's signed records unknown_signer.
 *
 * This test imitates the receiving side with a gap long enough that the unlink's own event
 * triggers a pass inside it (@parcel/watcher batches ~50 ms, the indexer debounces 30 ms). The
 * indexer believes a file that vanished for a grace (IndexerOptions.vanishGraceMs, 1 s) and looks
 * again, so no sample may show the order stale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';
import { publicKeyOf } from '../../lib/demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder } from '../../lib/demo/write';
import { seedOf } from '../support/channel-builder';
import type { Card } from '../../lib/ledger/derive';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('a file replaced as Syncthing replaces it on the receiving side (unlink, then rename)', () => {
  it('never shows a heartbeating claim as stale while its heartbeat file is briefly gone', async () => {
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
    for (let t = Date.now(); Date.now() - t < 3000 && card().holder_fresh !== true; ) await sleep(20);
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
    for (let t = Date.now(); Date.now() - t < 3000 && card().state !== 'claimed'; ) await sleep(20);
    expect(card()).toMatchObject({ state: 'claimed', holder_fresh: true });
    expect(states.filter((s) => s.startsWith('stale'))).toEqual([]);
    expect(states.filter((s) => s.includes('no heartbeat'))).toEqual([]);
  });
});
