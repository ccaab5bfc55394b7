/**
 * The agent page's retire preview names exactly what `claimboard retire` writes, and for each
 * order what ferry then does: on a channel where fang holds one order (a stopped run), lost a race
 * for another (wisp claimed first), gave up on a third (acknowledged: closed on the board), has a
 * fourth addressed to it (offered, never claimed) and finished a fifth (its own result: nothing to
 * release). The preview is what GET /api/agents/fang answers (the index's candidates read from the
 * folder by the act's rule); the files are those the dialog lists (plannedFiles).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelBuilder, seedOf } from '../../test/support/channel-builder';
import { openMemory } from '../index/db';
import { Indexer } from '../index/indexer';
import { agent } from '../index/read/queries';
import { naclVerify } from '../ledger/nacl-verify';
import { plannedFiles } from '../client/action-plan';
import { runAction } from '../../bin/actions';
import { retirePreview } from './retire-preview';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function channel(): string {
  const old = 2_000; // seconds before now (the builder's; on disk every file arrives now)
  const b = new ChannelBuilder(Date.now()).roster();
  b.order('holds').claim('holds', 'fang', { age: old }).heartbeat('holds', 'fang', { age: old });
  b.order('lost')
    .claim('lost', 'wisp', { claimed_at: '2026-11-20T09:01:00Z', age: old })
    .claim('lost', 'fang', { claimed_at: '2026-11-20T09:05:00Z', age: old })
    .heartbeat('lost', 'wisp', { age: old });
  b.order('gaveup').claim('gaveup', 'fang', { age: old }).giveup('gaveup', 'fang', 'retry ceiling reached', { age: old });
  b.ack('gaveup', `giveup:${b.digestOf('tasks/gaveup/giveup.fang.json')}`, { age: old });
  b.order('addressed', { assigned_to: 'fang' }, { age: old });
  b.order('finished').claim('finished', 'fang', { age: old }).result('finished', 'fang', 1, { age: old });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-retire-preview-'));
  dirs.push(root);
  for (const e of b.entries()) {
    if (e.type !== 'file' || !e.bytes) continue;
    fs.mkdirSync(path.dirname(path.join(root, e.path)), { recursive: true });
    fs.writeFileSync(path.join(root, e.path), e.bytes);
  }
  return root;
}

describe('the retire preview', () => {
  it('names exactly the paths claimboard retire writes, each order with its consequence in ferry', async () => {
    const root = channel();
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: naclVerify });
    await ix.start();
    await ix.stop();

    const steps = retirePreview({ name: 'channel', db: () => db, dbFile: null, operators: [], nudgeAs: null }, 'fang', Date.now());
    expect(steps?.map((s) => [s.order_id, s.why])).toEqual([
      ['addressed', 'addressed'],
      ['gaveup', 'gave_up'],
      ['holds', 'holds'],
      ['lost', 'lost'],
    ]);
    const effect = new Map(steps?.map((s) => [s.order_id, s.effect]));
    expect(effect.get('holds')).toBe('fang holds it: it is Open to the fleet again: the next worker that polls claims it');
    expect(effect.get('lost')).toBe("fang's claim lost: ferry reads it held by wisp; the release changes nothing");
    expect(effect.get('gaveup')).toBe(
      'fang gave up, acknowledged on this board, but ferry reads no give-up and still reads it held by fang: it is Open to the fleet again: the next worker that polls claims it',
    );
    expect(effect.get('addressed')).toBe('addressed to fang: ferry keeps offering it to fang alone after the release; supersede it to give the work to another agent');
    // The index's own reading before the folder is read names the same orders.
    expect(agent(db, 'fang', Date.now())?.retire_plan).toEqual(steps?.map((s) => s.order_id));
    db.close();

    // The folder names no channel yet: the act names it too, and the page's list says so first.
    const page = plannedFiles({ action: 'retire', agent: 'fang', orders: steps?.map((s) => s.order_id) ?? [] }, 'ops', { channelFile: true }).map((f) => f.path);
    expect(page[0]).toBe('claimboard.channel.json');
    const key = path.join(path.dirname(root), `${path.basename(root)}-ops.key`);
    fs.writeFileSync(key, seedOf('ops') + '\n', { mode: 0o600 });
    dirs.push(key);
    const done = runAction('retire', root, 'fang', { key, as: 'ops', reason: 'machine rebuilt', confirmAlive: true });
    expect(done.written).toEqual(page);
    for (const s of steps ?? []) expect(done.ferry).toContain(`${s.order_id}: ${s.effect}`);
  });
});
