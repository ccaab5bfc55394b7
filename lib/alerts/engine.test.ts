/**
 * The engine's incremental decisions (engine.ts): after the first look at everything it decides
 * only on the orders the change feed names, the problems, and the rows in a quiet period, and
 * that must decide as a look at everything would. A synthetic index (real cards of vector 06
 * under other ids, change rows written as the indexer writes them), this machine's clock faked,
 * a command target writing each payload to a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, type DB } from '../index/db';
import { channelStateOf } from '../index/channel-state';
import { VECTORS_DIR } from '../../test/support/vectors';
import { AlertEngine } from './engine';
import { alertsStatus } from './status';
import type { AlertPayload } from './payload';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const card = channelStateOf(path.join(VECTORS_DIR, '06-stale-no-heartbeat/channel')).orders[0];

/** Stores `id` as the stale card of vector 06 (or in `lane`), and (`feed`) a change row for it, as the indexer's settle does. */
function putCard(db: DB, id: string, lane: 'stale' | 'queue', fp: number, feed = true): void {
  if (!card) throw new Error('vector 06 has no order');
  const c = { ...card, order_id: id, lane, state: lane === 'stale' ? 'stale' : 'open' };
  db.prepare('INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, next_ms, card, fp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)').run(
    id,
    id,
    lane,
    c.state,
    c.holder,
    ' fang ',
    ' ',
    id,
    JSON.stringify(c),
    fp,
  );
  if (feed) db.prepare('INSERT INTO changes (order_id, at_ms) VALUES (?, 0)').run(id);
}

describe('AlertEngine, incrementally', () => {
  it('keeps an order in its quiet period while another order changes, and sends each when its period ends', async () => {
    const db = openMemory();
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-engine-')), 'got.jsonl');
    cleanup.push(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
    let now = 1_000_000;
    const engine = new AlertEngine({ db, channel: '/x/alpha', staleAfterMs: 300_000, targets: [{ kind: 'command', command: `cat >> '${out}'` }], afterMs: 1000, baseUrl: 'http://b', clock: () => now });
    cleanup.push(() => engine.stop());
    const got = (): [string, string | undefined][] =>
      fs.existsSync(out) ? fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AlertPayload).map((p) => [p.event, p.order_id]) : [];
    const openKeys = () => alertsStatus(db, now).open.map((o) => [o.order_id, o.sent_ms !== null]).sort();
    const step = async (atMs: number) => {
      now = atMs;
      engine.poke();
      await engine.idle();
    };

    putCard(db, 'a', 'stale', 1);
    engine.start(); // the first decision looks at everything
    await engine.idle();
    expect(openKeys()).toEqual([['a', false]]); // in its quiet period

    putCard(db, 'b', 'stale', 2); // the change feed names b alone
    await step(1_000_500);
    expect(openKeys()).toEqual([
      ['a', false],
      ['b', false],
    ]);
    expect(got()).toEqual([]);

    await step(1_001_000); // a's period ends (nothing changed: no change row)
    expect(got()).toEqual([['stale', 'a']]);
    await step(1_001_500);
    expect(got()).toEqual([
      ['stale', 'a'],
      ['stale', 'b'],
    ]);

    putCard(db, 'a', 'queue', 3); // a leaves the lane: gone, resolved 1 s later
    await step(1_002_000);
    expect(got()).toHaveLength(2);
    await step(1_003_000);
    expect(got()).toEqual([
      ['stale', 'a'],
      ['stale', 'b'],
      ['resolved', 'a'],
    ]);
    expect(openKeys()).toEqual([['b', true]]);
  });

  it("a '*' in the change feed makes it look at everything: a card that changed without its own row is seen", async () => {
    const db = openMemory();
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-engine-')), 'got.jsonl');
    cleanup.push(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
    const engine = new AlertEngine({ db, channel: '/x/alpha', staleAfterMs: 300_000, targets: [{ kind: 'command', command: `cat >> '${out}'` }], baseUrl: 'http://b' });
    cleanup.push(() => engine.stop());
    engine.start();
    await engine.idle();
    putCard(db, 'c', 'stale', 1, false); // no row names c ...
    engine.poke();
    await engine.idle();
    expect(fs.existsSync(out)).toBe(false); // ... so a decision on the feed alone does not see it
    db.prepare("INSERT INTO changes (order_id, at_ms) VALUES ('*', 0)").run(); // everything changed
    engine.poke();
    await engine.idle();
    expect(fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AlertPayload).order_id)).toEqual(['c']);
  });
});
