/**
 * Fault: the index database is deleted, or replaced by another file, while serving. The writer
 * would go on writing into a file no path names (or one moved away), and a connection opened
 * afresh (a restarted web server, `claimboard` tools) would find no index or another one. The
 * indexer notices at its next look (the file at the path is not the one it opened: device and
 * inode), says so (a log line, index_health `index_rebuilding`), moves a replacement aside,
 * builds a new index from the folder, and readers (db.ts readDb) reopen by the path. Each case
 * ends with the new file's board equal to a fresh index of the folder, the folder byte-identical,
 * and PRAGMA integrity_check ok. When the rebuild itself fails (the channel folder went too), the
 * failure is said once, the last good board is kept, and the rebuild is tried every second until
 * it succeeds: never an unhandled rejection, which would end a serve.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openMemory, openReader, openWriter, readDb } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';
import { readHealth, healthFileOf } from '../../lib/index/health';
import type { IndexHealth } from '../../lib/index/types';

/** Every health the indexer wrote (a small folder is rebuilt in milliseconds: sampling the file could miss it). */
const told: IndexHealth[] = [];
vi.mock('../../lib/index/health', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/index/health')>();
  return {
    ...real,
    writeHealth: (file: string, h: IndexHealth) => {
      told.push(h);
      return real.writeHealth(file, h);
    },
  };
});
import { VECTORS_DIR } from '../support/vectors';
import { folderSnapshot } from '../support/folder';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { ChannelBuilder } from '../support/channel-builder';
import { until } from '../support/until';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-dbswap-'));
const savedDb = process.env.CLAIMBOARD_DB;
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  if (savedDb === undefined) delete process.env.CLAIMBOARD_DB;
  else process.env.CLAIMBOARD_DB = savedDb;
});

function channel(name: string): string {
  const root = path.join(tmp, name);
  fs.cpSync(path.join(VECTORS_DIR, '17-bad-signatures', 'channel'), root, { recursive: true });
  const b = new ChannelBuilder();
  for (let i = 0; i < 5; i++) b.order(`n${i}`);
  for (const e of b.entries()) {
    if (e.type !== 'file' || !e.bytes) continue;
    fs.mkdirSync(path.dirname(path.join(root, e.path)), { recursive: true });
    fs.writeFileSync(path.join(root, e.path), e.bytes);
  }
  return root;
}

/** The cards a reader of the file at the path sees, by id. */
const cardsAt = (file: string) => {
  const db = openReader(file);
  try {
    return db.prepare('SELECT order_id, card FROM cards ORDER BY order_id').all();
  } finally {
    db.close();
  }
};

async function freshCards(root: string) {
  const db = openMemory();
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
  await ix.start();
  await ix.stop();
  return db.prepare('SELECT order_id, card FROM cards ORDER BY order_id').all();
}

describe('the index database deleted or replaced while serving', () => {
  it.each(['deleted', 'replaced'] as const)('%s: detected, said, rebuilt from the folder; readers reopen it', async (how) => {
    const root = channel(`channel-${how}`);
    const file = path.join(tmp, `${how}.db`);
    const db = openWriter(file);
    const lines: string[] = [];
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, rescanMs: 100, verify: nodeVerify, log: (l) => lines.push(l) });
    await ix.start();
    process.env.CLAIMBOARD_DB = file;
    try {
      const want = await freshCards(root);
      expect(want.length).toBe(8); // t1-t3 and n0-n4
      const reader = readDb();
      expect(reader.prepare('SELECT COUNT(*) AS n FROM cards').get()).toEqual({ n: 8 });
      const written = folderSnapshot(root);
      told.length = 0;

      if (how === 'deleted') {
        fs.rmSync(file);
      } else {
        // Another index (of another channel: vector 09's one order) moved over the path.
        const other = path.join(tmp, 'other.db');
        const odb = openWriter(other);
        const ox = new Indexer({ root: path.join(VECTORS_DIR, '09-done', 'channel'), db: odb, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
        await ox.start();
        await ox.stop();
        odb.pragma('wal_checkpoint(TRUNCATE)');
        odb.close();
        told.length = 0; // its own start said ok
        fs.renameSync(other, file);
      }

      expect(await until(() => lines.some((l) => /rebuilt from the folder/.test(l)), 60_000)).toBe(true);
      expect(lines.filter((l) => new RegExp(`was ${how} (by another file )?while serving; rebuilding it from the folder`).test(l)).length).toBe(1);
      expect(told.map((h) => (h.state === 'ok' ? 'ok' : `${h.code}: ${h.reason}`))).toEqual([`index_rebuilding: the index database ${file} was ${how === 'deleted' ? 'deleted' : 'replaced by another file'} while serving`, 'ok']);
      expect(readHealth(file)).toEqual({ state: 'ok' });
      expect(cardsAt(file)).toEqual(want);
      // The web server's connection follows the path: a new connection on the new file.
      const again = readDb();
      expect(again).not.toBe(reader);
      expect(again.prepare('SELECT order_id, card FROM cards ORDER BY order_id').all()).toEqual(want);
      if (how === 'replaced') {
        const aside = fs.readdirSync(tmp).filter((n) => n.startsWith(`${how}.db.replaced-`) && !n.endsWith('-wal') && !n.endsWith('-shm'));
        expect(aside.length).toBe(1);
        expect(cardsAt(path.join(tmp, aside[0] ?? '')).length).toBe(1); // kept, untouched
      }
      // Still indexing into the new file: a new order shows.
      const b = new ChannelBuilder();
      b.order('late');
      for (const e of b.entries()) if (e.type === 'file' && e.bytes) {
        fs.mkdirSync(path.dirname(path.join(root, e.path)), { recursive: true });
        fs.writeFileSync(path.join(root, e.path), e.bytes);
      }
      expect(await until(() => cardsAt(file).length === 9, 60_000)).toBe(true);
      expect(cardsAt(file)).toEqual(await freshCards(root));
      const check = openReader(file);
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      check.close();
      delete written['tasks/late'];
      const now = folderSnapshot(root);
      for (const k of Object.keys(now)) if (k.startsWith('tasks/late')) delete now[k];
      expect(now).toEqual(written);
    } finally {
      await ix.stop();
      db.close();
      fs.rmSync(healthFileOf(file), { force: true });
    }
  });

  it('with the channel folder gone too: the failed rebuild is said once and tried every second, and done once the folder is back', async () => {
    const root = channel('channel-gone-too');
    const file = path.join(tmp, 'gone-too.db');
    const db = openWriter(file);
    const lines: string[] = [];
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, rescanMs: 100, verify: nodeVerify, log: (l) => lines.push(l) });
    await ix.start();
    try {
      const want = await freshCards(root);
      told.length = 0;
      // The index and the folder both go (a data folder holding both, deleted; here the folder moved away).
      fs.rmSync(file);
      fs.renameSync(root, `${root}.away`);
      // Two tries after the first failed (a second apart), each failing: said in one line.
      expect(await until(() => told.some((h) => h.state === 'degraded' && h.retries >= 2), 60_000)).toBe(true);
      const gone = `the index database ${file} was deleted while serving`;
      expect(lines.filter((l) => l.includes(`${gone}; rebuilding it from the folder`)).length).toBe(1);
      const failed = lines.filter((l) => l.startsWith(`index: rebuilding ${file} failed (`));
      expect(failed.length).toBe(1);
      expect(failed[0]).toMatch(/; serving the last good board, trying again every second$/);
      const h = ix.health;
      expect(h.state === 'degraded' && [h.code, h.reason.startsWith(`${gone}; rebuilding it failed: `)]).toEqual(['index_rebuilding', true]);
      // Nothing was moved aside: the file a failed try opened is this indexer's own.
      expect(fs.readdirSync(tmp).filter((n) => n.startsWith('gone-too.db.replaced-'))).toEqual([]);

      fs.renameSync(`${root}.away`, root);
      expect(await until(() => lines.some((l) => /rebuilt from the folder/.test(l)), 60_000)).toBe(true);
      expect(ix.health).toEqual({ state: 'ok' });
      expect(readHealth(file)).toEqual({ state: 'ok' });
      expect(cardsAt(file)).toEqual(want);
    } finally {
      await ix.stop();
      db.close();
    }
  });
});
