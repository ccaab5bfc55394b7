/**
 * Correctness at scale: on a generated channel of 2,000 orders (10,000 under
 * CLAIMBOARD_TEST_FULL=1, ~59,000 files; bench/generate.ts), the board of an index kept up to date through 600 changes (some told by
 * path, as folder events do; some found by full looks, as the periodic looks do) equals the
 * board of a fresh index of the final folder (docs/channel-format.md: the index is a cache of the
 * folder). The cold indexes run on a worker thread besides this one, as at this size in
 * production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate';
import { Rng } from '../../test/fuzz/mutate';
import { folderChanger } from '../../test/support/folder-changer';
import { openMemory, type DB } from './db';
import { Indexer } from './indexer';
import { sized } from '../../test/support/size';

const ORDERS = sized(2_000, 10_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-scale-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Everything a reader can see, in a comparable form. */
function board(db: DB) {
  return {
    cards: db.prepare('SELECT order_id, order_dir, lane, state, holder, agents, flags, sort_ms, card FROM cards ORDER BY order_id').all(),
    problems: db.prepare('SELECT path, problem, detail, line, order_id FROM problems ORDER BY path, problem, line, detail').all(),
    ledger: db.prepare('SELECT path, entries, intact, broken_at FROM ledger_files ORDER BY path').all(),
    // An agent's clock offset is the median over the runs this index has seen over time (runs of
    // heartbeats since deleted included): history a fresh index cannot have. The rest must agree.
    agents: (db.prepare('SELECT name, summary FROM agents ORDER BY name').all() as { name: string; summary: string }[]).map((a) => ({ ...JSON.parse(a.summary), clock_offset_ms: undefined })),
    deps: db.prepare('SELECT order_id, dep FROM deps ORDER BY order_id, dep').all(),
  };
}

describe(`at ${ORDERS.toLocaleString('en')} orders`, () => {
  it('the board kept up to date through 600 changes equals a fresh index of the final folder', async () => {
    const root = generateChannel(ORDERS, path.join(tmp, 'gen')).root;
    // One clock for both indexes, later than every arrival: states are compared, not ages.
    const now = Date.now() + 600_000;
    const opts = { root, staleAfterMs: 1_800_000, clock: () => now, watch: false, vanishGraceMs: 0, workers: 1 } as const;
    const kept = openMemory();
    const ix = new Indexer({ ...opts, db: kept });
    await ix.start();
    expect((kept.prepare('SELECT COUNT(*) AS n FROM cards').get() as { n: number }).n).toBe(ORDERS);
    const change = folderChanger(root, new Rng(5_2026));
    for (let round = 0; round < 12; round++) {
      const touched: string[] = [];
      for (let i = 0; i < 50; i++) {
        const t = change();
        if (t) touched.push(t);
      }
      if (round % 2 === 0) for (const t of touched) ix.request(t); // told by path
      else ix.request(null); // found by a full look
      ix.pump();
    }
    await ix.stop();
    const fresh = openMemory();
    const again = new Indexer({ ...opts, db: fresh });
    await again.start();
    await again.stop();
    const want = board(fresh);
    expect(want.cards.length).toBeGreaterThan(ORDERS - 200);
    const got = board(kept);
    if (process.env.SCALE_DEBUG) {
      for (const k of ['cards', 'problems', 'ledger', 'deps'] as const) {
        const a = new Set(got[k].map((x) => JSON.stringify(x)));
        const b = new Set(want[k].map((x) => JSON.stringify(x)));
        console.log(k, 'only kept:', [...a].filter((x) => !b.has(x)).slice(0, 3), 'only fresh:', [...b].filter((x) => !a.has(x)).slice(0, 3));
      }
    }
    expect(got).toEqual(want);
  });
});
