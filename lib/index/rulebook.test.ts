/**
 * Stored cards follow the rulebook (lib/ledger/rulebook-version.ts): an index whose cards another
 * rulebook derived (or that predates the version row) derives every order again when it opens,
 * finished orders included; one derived by this rulebook keeps its cards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, type DB } from './db';
import { Indexer } from './indexer';
import { readMeta, writeMeta, deleteMeta } from './store/meta';
import { nodeVerify } from './disk/node-verify';
import { VECTORS_DIR } from '../../test/support/vectors';
import { RULEBOOK_VERSION } from '../ledger/rulebook-version';
import * as q from './read/queries';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Vector 10 (ra awaiting review, rb accepted, rc sent back with no run) indexed once, the indexer stopped. */
async function indexed(): Promise<{ root: string; db: DB }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-rulebook-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.cpSync(path.join(VECTORS_DIR, '10-review-states', 'channel'), root, { recursive: true });
  const db = openMemory();
  const first = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
  await first.start();
  await first.stop();
  return { root, db };
}

/** What an older rulebook stored: rc in Running, and rb (finished) flagged review_loop in Needs attention. */
function storeOlderCards(db: DB): void {
  db.prepare(`UPDATE cards SET lane = 'running', card = json_set(card, '$.lane', 'running') WHERE order_id = 'rc'`).run();
  db.prepare(`UPDATE cards SET lane = 'attention', flags = ' review_loop ', card = json_set(card, '$.lane', 'attention', '$.flags', json('["review_loop"]')) WHERE order_id = 'rb'`).run();
}

const lanes = (db: DB) => ['ra', 'rb', 'rc'].map((id) => `${id}:${q.order(db, id, Date.now())?.card.lane}:${q.order(db, id, Date.now())?.card.flags.join(',')}`);

async function warmStart(root: string, db: DB, said: string[]): Promise<void> {
  const warm = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify, log: (l) => said.push(l) });
  cleanup.push(() => warm.stop());
  await warm.start();
}

describe('an index derived by another rulebook', () => {
  it('records the rulebook that derived its cards', async () => {
    const { db } = await indexed();
    expect(readMeta(db, 'rulebook')).toBe(RULEBOOK_VERSION);
    expect(lanes(db)).toEqual(['ra:review:', 'rb:done:', 'rc:queue:']);
  });

  it('derives every order again when it opens, finished ones included, and records this rulebook', async () => {
    const { root, db } = await indexed();
    storeOlderCards(db);
    writeMeta(db, 'rulebook', '0.0000000000000000');
    expect(lanes(db)).toEqual(['ra:review:', 'rb:attention:review_loop', 'rc:running:']);
    const said: string[] = [];
    await warmStart(root, db, said);
    expect(lanes(db)).toEqual(['ra:review:', 'rb:done:', 'rc:queue:']);
    expect(readMeta(db, 'rulebook')).toBe(RULEBOOK_VERSION);
    expect(said).toContain(`index: the stored cards were derived by rulebook 0.0000000000000000; deriving every order again with rulebook ${RULEBOOK_VERSION}`);
  });

  it('an index older than the version row is derived again too', async () => {
    const { root, db } = await indexed();
    storeOlderCards(db);
    deleteMeta(db, 'rulebook');
    await warmStart(root, db, []);
    expect(lanes(db)).toEqual(['ra:review:', 'rb:done:', 'rc:queue:']);
  });

  it('cards this rulebook derived are not derived again (the folders are unchanged: the stored cards stand)', async () => {
    const { root, db } = await indexed();
    storeOlderCards(db);
    const said: string[] = [];
    await warmStart(root, db, said);
    // Nothing changed on disk and the version is this rulebook's: a warm start trusts the stored
    // cards (here tampered with), which shows the derivation above is the version's doing.
    expect(lanes(db)).toEqual(['ra:review:', 'rb:attention:review_loop', 'rc:running:']);
    expect(said.some((l) => l.includes('deriving every order again'))).toBe(false);
  });
});
