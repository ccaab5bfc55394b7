/**
 * Fault: the channel folder disappears (renamed away) and comes back later,
 * then a different folder appears at the same path. Meanwhile: no crash, the board is kept but
 * its answer says the folder is missing (index_health folder_missing; the header shows it), and
 * POST /api/actions refuses with that reason (503 index_unavailable) before reading the body.
 * When a folder is back, the board equals a fresh index of what is there, and nothing was
 * written into either folder (byte-identical).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory, openWriter } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';
import { healthFileOf, readHealth } from '../../lib/index/health';
import { VECTORS_DIR } from '../support/vectors';
import { folderSnapshot } from '../support/folder';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { POST } from '../../app/api/actions/route';
import { until } from '../support/until';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-gone-'));
const saved = { db: process.env.CLAIMBOARD_DB };
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  for (const [k, v] of [['CLAIMBOARD_DB', saved.db]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function freshState(root: string): Promise<string> {
  const db = openMemory();
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
  await ix.start();
  await ix.stop();
  return JSON.stringify(ix.state);
}

const act = () =>
  POST(new Request('http://127.0.0.1:3000/api/actions', { method: 'POST', headers: { 'content-type': 'application/json', host: '127.0.0.1:3000' }, body: JSON.stringify({ kind: 'ack' }) }));

describe('the channel folder disappears and comes back', () => {
  it('says missing, refuses actions, and shows what is there once a folder is back (the same, then another)', async () => {
    const root = path.join(tmp, 'channel');
    const away = path.join(tmp, 'away');
    fs.cpSync(path.join(VECTORS_DIR, '17-bad-signatures', 'channel'), root, { recursive: true });
    const other = path.join(tmp, 'other');
    fs.cpSync(path.join(VECTORS_DIR, '20-dependencies', 'channel'), other, { recursive: true });
    const file = path.join(tmp, 'index.db');
    const db = openWriter(file);
    const lines: string[] = [];
    // Watching, as serve does: the watches must follow the folder that comes back.
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, rescanMs: 100, verify: nodeVerify, log: (l) => lines.push(l) });
    await ix.start();
    process.env.CLAIMBOARD_DB = file;
    try {
      const first = JSON.stringify(ix.state);
      expect(ix.state.orders.map((c) => c.order_id).sort()).toEqual(['t1', 't2', 't3']);
      const written = folderSnapshot(root);
      const writtenOther = folderSnapshot(other);

      fs.renameSync(root, away);
      // The action endpoint refuses at once (it looks at the folder itself), before the indexer noticed.
      const r0 = await act();
      expect(r0.status).toBe(503);
      expect(((await r0.json()) as { message: string }).message).toMatch(/^the channel folder is missing \(no such folder: .*\): no action is accepted/);
      expect(await until(() => readHealth(file).state === 'degraded', 60_000)).toBe(true);
      const h = readHealth(file);
      expect(h.state === 'degraded' ? h.code : h.state).toBe('folder_missing');
      await new Promise((r) => setTimeout(r, 1500)); // looks meanwhile find nothing: the board is kept, not emptied
      expect(JSON.stringify(ix.state)).toBe(first);
      expect(lines.filter((l) => /is missing/.test(l)).length).toBe(1);

      // Back as it was.
      fs.renameSync(away, root);
      expect(await until(() => readHealth(file).state === 'ok', 60_000)).toBe(true);
      expect(JSON.stringify(ix.state)).toBe(await freshState(root));
      expect(lines.some((l) => /channel folder is back/.test(l))).toBe(true);

      // Gone again, and a different channel comes in its place.
      fs.renameSync(root, away);
      expect(await until(() => readHealth(file).state === 'degraded', 60_000)).toBe(true);
      expect((await act()).status).toBe(503);
      fs.renameSync(other, root);
      expect(await until(() => readHealth(file).state === 'ok', 60_000)).toBe(true);
      const want = await freshState(root);
      expect(await until(() => JSON.stringify(ix.state) === want, 60_000)).toBe(true);
      expect(ix.state.orders.map((c) => c.order_id).sort()).toEqual(JSON.parse(want).orders.map((c: { order_id: string }) => c.order_id).sort());
      expect(ix.state.orders.some((c) => c.order_id === 't1')).toBe(false);
      // The action endpoint takes requests again (this one fails on its body, past the folder check).
      expect((await act()).status).not.toBe(503);

      expect(folderSnapshot(away)).toEqual(written);
      expect(folderSnapshot(root)).toEqual(writtenOther);
    } finally {
      await ix.stop();
      db.close();
      fs.rmSync(healthFileOf(file), { force: true });
    }
  });
});
