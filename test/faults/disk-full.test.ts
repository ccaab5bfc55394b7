/**
 * Fault: the index database's disk fills up. The reported bug: `serve --db`
 * on a 3 MB tmpfs, the disk filled, twenty new order folders written into the channel, the
 * space freed: the new orders never reached the board. The cause: a pass that failed with
 * SQLITE_FULL rolled its transaction back, but the indexer had already remembered the folders'
 * new fingerprints in memory (looks.ts), so no later look saw them changed.
 *
 * Here the database lives on a real 3 MB tmpfs (mounted in a private mount namespace by
 * `unshare -m`, so nothing outside the test sees it; needs root: skipped, and said, without).
 * While full: the board stays the last good one, the indexer says it is degraded and why, and
 * retries; once space is freed it catches up, its board equals a fresh index of the folder, the
 * folder is byte-identical to what was written, and PRAGMA integrity_check says ok.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory, openWriter } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';
import { readHealth } from '../../lib/index/health';
import { VECTORS_DIR } from '../support/vectors';
import { folderSnapshot } from '../support/folder';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { ChannelBuilder } from '../support/channel-builder';

const writeFile = (file: string, bytes: Uint8Array) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
};

/** Whether this process may mount a tmpfs (root; the mount is undone in afterAll). */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-mnt-probe-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
  if (r.status === 0) spawnSync('umount', [probe]);
  fs.rmdirSync(probe);
  return r.status === 0;
}

const mountable = canMount();
if (!mountable) console.warn('disk-full.test.ts: skipped: needs root to mount a 3 MB tmpfs for the index (uid ' + String(process.getuid?.()) + ')');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-diskfull-'));
const mnt = path.join(tmp, 'db');
afterAll(() => {
  if (mountable) spawnSync('umount', ['-l', mnt]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Fills the file system holding `file` until it refuses a write (ENOSPC); returns bytes written. */
function fill(file: string): number {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let n = 0;
  try {
    for (;;) n += fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  }
  // The last partial block, byte by byte's coarser cousin: whatever is left below 64 KiB.
  try {
    for (;;) n += fs.writeSync(fd, Buffer.alloc(512, 1));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  }
  fs.closeSync(fd);
  return n;
}

async function until(cond: () => boolean, boundMs: number): Promise<number | null> {
  const t0 = Date.now();
  for (;;) {
    if (cond()) return Date.now() - t0;
    if (Date.now() - t0 > boundMs) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!mountable)('the index database disk fills up', () => {
  it('keeps the last good board, says so, and catches up when space returns', async () => {
    fs.mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt]);
    const root = path.join(tmp, 'channel');
    fs.cpSync(path.join(VECTORS_DIR, '17-bad-signatures', 'channel'), root, { recursive: true });
    const dbFile = path.join(mnt, 'index.db');
    const db = openWriter(dbFile);
    const lines: string[] = [];
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, rescanMs: 100, verify: nodeVerify, log: (l) => lines.push(l) });
    await ix.start();
    try {
      const before = ix.state.orders.map((c) => c.order_id).sort();
      expect(before).toEqual(['t1', 't2', 't3']);
      expect(readHealth(dbFile).state).toBe('ok');

      const filler = path.join(mnt, 'filler');
      expect(fill(filler)).toBeGreaterThan(1024 * 1024); // most of the 3 MB was free
      // Twenty new order folders, really signed by the vector channel's operator (ops).
      const b = new ChannelBuilder();
      for (let i = 0; i < 20; i++) b.order(`n${i}`);
      for (const e of b.entries()) if (e.type === 'file' && e.bytes) writeFile(path.join(root, e.path), e.bytes);
      const written = folderSnapshot(root);

      // While full: the indexer's passes fail; the board is the last good one and it says so.
      expect(await until(() => readHealth(dbFile).state === 'degraded', 60_000)).not.toBeNull();
      const h = readHealth(dbFile);
      expect(h.state === 'degraded' && /SQLITE_FULL|full/i.test(h.reason)).toBe(true);
      expect(ix.state.orders.map((c) => c.order_id).sort()).toEqual(before);
      await new Promise((r) => setTimeout(r, 1500)); // a few retries, still full
      expect(ix.state.orders.map((c) => c.order_id).sort()).toEqual(before);
      expect(lines.filter((l) => /degraded/.test(l)).length).toBe(1); // said once, not per retry

      // Space returns: caught up within the retry period (1 s) and a look.
      fs.rmSync(filler);
      const fresh = openMemory();
      const fx = new Indexer({ root, db: fresh, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
      await fx.start();
      await fx.stop();
      const want = JSON.stringify(fx.state);
      expect(fx.state.orders.length).toBe(23); // t1-t3 and the twenty new ones
      const caughtUp = await until(() => JSON.stringify(ix.state) === want, 60_000);
      expect(caughtUp).not.toBeNull();
      expect(readHealth(dbFile).state).toBe('ok');
      expect(lines.some((l) => /writing again/.test(l))).toBe(true);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(folderSnapshot(root)).toEqual(written);
    } finally {
      await ix.stop();
      db.close();
    }
  });
});
