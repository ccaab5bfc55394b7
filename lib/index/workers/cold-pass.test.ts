/**
 * The board before the signatures: a cold index on worker threads shows
 * every card first as derived with each signature taken as valid, marked unverified, actions on
 * it refused; then checks them behind the board. A forged record the first view showed ends as a
 * problem, and the board ends equal to an index that verified everything as it read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { beginBulkLoad, openMemory, openWriter, type DB } from '../db';
import { Indexer } from '../indexer';
import * as q from '../read/queries';
import { VECTORS_DIR } from '../../../test/support/vectors';
import { ChannelBuilder, seedOf } from '../../../test/support/channel-builder';
import { naclSign } from '../../ledger/nacl-verify';
import { signFields } from '../../ledger/sign';
import { buildAction } from '../../ledger/actions';
import { TEST_CHANNEL } from '../../../test/support/channel';
import { applyOne } from '../../actions/server';
import { ClaimboardError } from '../../errors';
import type { Card } from '../../ledger/derive';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

const sign = (name: string) => (p: string) => naclSign(seedOf(name), p);
const writeJson = (root: string, rel: string, v: unknown) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), JSON.stringify(v, null, 2));
};

/**
 * Vector 17 (t1's result carries a signature that does not verify) plus t5: fang claimed first,
 * wisp later, and a release of fang's claim in fang's name signed with wisp's key (forged).
 * `genuine`: the same records with both forged signatures made by their signers' own keys.
 */
function channel(genuine: boolean): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-cold-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.cpSync(path.join(VECTORS_DIR, '17-bad-signatures', 'channel'), root, { recursive: true });
  const b = new ChannelBuilder().order('t5').claim('t5', 'fang', { claimed_at: '2026-11-20T09:05:00Z' }).claim('t5', 'wisp', { claimed_at: '2026-11-20T09:20:00Z' });
  for (let i = 0; i < 4; i++) b.order(`n${i}`);
  for (const e of b.entries()) {
    if (e.type !== 'file' || !e.bytes || !e.path.startsWith('tasks/')) continue;
    fs.mkdirSync(path.dirname(path.join(root, e.path)), { recursive: true });
    fs.writeFileSync(path.join(root, e.path), e.bytes);
  }
  const release = { order_id: 't5', released: 'fang', releaser: 'fang', reason: 'done for today', at: '2026-11-20T09:10:00Z' };
  writeJson(root, 'tasks/t5/release.fang.json', signFields('release', release, 'fang', sign(genuine ? 'fang' : 'wisp')));
  if (genuine) {
    const rel = 'tasks/t1/result.fang.001.json';
    const forged = JSON.parse(fs.readFileSync(path.join(root, rel), 'utf8')) as Record<string, unknown>;
    writeJson(root, rel, signFields('result', forged, 'fang', sign('fang')));
  }
  return root;
}

const NOW = Date.now();
const view = (c: Card | undefined) => c && { state: c.state, lane: c.lane, holder: c.holder, flags: c.flags };
const everyCard = (db: DB) => q.board(db, [], NOW, true).lanes.flatMap((l) => l.cards);
const byId = (db: DB) => new Map(everyCard(db).map((c) => [c.order_id, c]));

async function indexOf(root: string, opts: { workers: number; onBoardVisible?: () => void | Promise<void>; onCheckHeld?: () => void }, db = openMemory()): Promise<DB> {
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => NOW, watch: false, vanishGraceMs: 0, ...opts });
  try {
    await ix.start();
  } finally {
    await ix.stop();
  }
  return db;
}

/** Everything a reader sees, comparable across two indexes of one folder. */
const snapshot = (db: DB) => ({
  cards: db.prepare('SELECT order_id, lane, state, holder, card FROM cards ORDER BY order_id').all(),
  problems: db.prepare('SELECT path, problem, line, order_id FROM problems ORDER BY path, problem').all(),
  cardAgents: db.prepare('SELECT * FROM card_agents ORDER BY agent, lane, sort_ms, order_id').all(),
  // The cold pass loads without some indexes and triggers (db.ts beginBulkLoad): they must all be back.
  schema: schemaOf(db),
});
const schemaOf = (db: DB) => db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all();

describe('cold index: the board first, the signatures checked behind it', () => {
  it('shows forged records unverified, refuses actions on them, and ends with each forgery a problem', async () => {
    const root = channel(false);
    // What the first view must be: the folder read as if every signature held (the genuine twin).
    const asIfValid = byId(await indexOf(channel(true), { workers: 0 }));
    // What it must end as: an index that verified every signature as it read.
    const verified = await indexOf(root, { workers: 0 });
    const truth = byId(verified);
    // The forgeries change what the board says: the forged result closes t1, the forged release hands t5 to wisp.
    expect(view(asIfValid.get('t1'))).not.toEqual(view(truth.get('t1')));
    expect([asIfValid.get('t5')?.holder, truth.get('t5')?.holder]).toEqual(['wisp', 'fang']);

    const db = openMemory();
    let seen: Map<string, Card> | null = null;
    let refused: unknown = null;
    await indexOf(root, {
      workers: 1,
      onBoardVisible: () => {
        seen = byId(db);
        const p = q.progressOf(db);
        expect(p.phase).toBe('verifying');
        // Every signature of the order folders that would be verified, each taken once: the
        // signed records whose signer has a key in the roster (t3's result names `ghost`, whom
        // no roster entry names: unknown_signer, no cryptography).
        expect(p.signatures_to_check).toBe(signedFilesUnder(root));
        expect(p.signatures_checked).toBe(0);
        const t5 = seen.get('t5');
        if (!t5) throw new Error('t5 not on the board');
        try {
          applyOne({ name: 'channel', db: () => db, dbFile: null, operators: [], nudgeAs: null }, buildAction({ action: 'requeue', card: t5, note: 'looks stuck' }, 'ops', sign('ops'), new Date(NOW).toISOString(), '', TEST_CHANNEL));
        } catch (e) {
          refused = e;
        }
      },
    }, db);

    const first = seen as Map<string, Card> | null;
    if (!first) throw new Error('the board was never shown unverified');
    for (const id of ['t1', 't2', 't3', 't5', 'n0']) {
      expect(view(first.get(id)), id).toEqual(view(asIfValid.get(id)));
      expect(first.get(id)?.unverified, id).toBe(true);
    }
    expect(refused).toBeInstanceOf(ClaimboardError);
    expect((refused as ClaimboardError).code).toBe('refused');
    expect((refused as ClaimboardError).message).toMatch(/^t5's card is not verified yet: .*may show a forged record/);

    // Settled: the verified truth, no card unverified, both forgeries problems and wisp not t5's holder.
    expect(snapshot(db)).toEqual(snapshot(verified));
    const end = byId(db);
    expect(view(end.get('t5'))).toEqual(view(truth.get('t5')));
    expect(end.get('t5')?.holder).toBe('fang');
    expect([...end.values()].filter((c) => c.unverified)).toEqual([]);
    const problems = db.prepare("SELECT path FROM problems WHERE problem = 'invalid_signature' ORDER BY path").pluck().all();
    expect(problems).toEqual(['tasks/t1/result.fang.001.json', 'tasks/t5/release.fang.json']);
    expect(q.progressOf(db)).toMatchObject({ phase: 'ready', signatures_checked: q.progressOf(db).signatures_to_check });
    expect(q.anyUnverified(db)).toBe(false);
  });

  it('the checks begun while the board was being made clear nothing until it shows, however long it is held', async () => {
    const root = channel(false);
    const db = openMemory();
    const orders = fs.readdirSync(path.join(root, 'tasks')).length;
    let held = 0;
    let wake = () => {};
    let during: { checked: number; unverified: number } | null = null;
    await indexOf(root, {
      workers: 1,
      onCheckHeld: () => {
        held++;
        wake();
      },
      onBoardVisible: async () => {
        // Held until a worker's check has come in (20 s at most: a check applied at once is never held, and `held` stays 0).
        if (held === 0) await new Promise<void>((r) => ((wake = r), setTimeout(r, 20_000)));
        during = { checked: q.progressOf(db).signatures_checked ?? -1, unverified: db.prepare('SELECT COUNT(*) FROM unverified').pluck().get() as number };
      },
    }, db);
    expect(held).toBeGreaterThan(0);
    expect(during).toEqual({ checked: 0, unverified: orders });
    expect(q.anyUnverified(db)).toBe(false);
    expect(q.progressOf(db)).toMatchObject({ phase: 'ready', signatures_checked: signedFilesUnder(root) });
  });

  it('a bulk load a killed process left open is ended at the next open: the same indexes and triggers as a new index', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-bulk-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'index.sqlite');
    const db = openWriter(file);
    const full = schemaOf(db);
    db.prepare("INSERT INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, card) VALUES ('t1', 't1', 'running', 'claimed', 'fang', ' fang ', '  ', 't1', 5, '{}')").run();
    beginBulkLoad(db);
    expect(schemaOf(db).length).toBe(full.length - 18); // BULK_DROPPED (db.ts): 11 indexes, 7 triggers
    // Loaded without the triggers: neither card_agents nor lane_counts has t2.
    db.prepare("INSERT INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, card) VALUES ('t2', 't2', 'attention', 'gave_up', 'wisp', ' wisp ', '  ', 't2', 7, '{}')").run();
    db.close();
    const again = openWriter(file);
    expect(schemaOf(again)).toEqual(full);
    expect(again.prepare('SELECT agent, lane, sort_ms, order_id FROM card_agents ORDER BY order_id').all()).toEqual([
      { agent: 'fang', lane: 'running', sort_ms: 5, order_id: 't1' },
      { agent: 'wisp', lane: 'attention', sort_ms: 7, order_id: 't2' },
    ]);
    expect(again.prepare('SELECT lane, n FROM lane_counts ORDER BY lane').all()).toEqual([
      { lane: 'attention', n: 1 },
      { lane: 'running', n: 1 },
    ]);
    again.close();
  });

  it('a start after an index stopped while checking passes the unverified folders again', async () => {
    const root = channel(false);
    const db = openMemory();
    await expect(indexOf(root, { workers: 1, onBoardVisible: () => { throw new Error('stopped while checking'); } }, db)).rejects.toThrow('stopped while checking');
    expect(q.anyUnverified(db)).toBe(true);
    // A warm start on the same index, no worker threads: the marked folders are read again, verified.
    await indexOf(root, { workers: 0 }, db);
    expect(q.anyUnverified(db)).toBe(false);
    expect(snapshot(db)).toEqual(snapshot(await indexOf(root, { workers: 0 })));
  });
});

/** Files under `root`/tasks whose JSON is signed by a name agents/ gives a key. */
function signedFilesUnder(root: string): number {
  const keyed = new Set(
    fs.readdirSync(path.join(root, 'agents')).filter((f) => (JSON.parse(fs.readFileSync(path.join(root, 'agents', f), 'utf8')) as { public_key?: string }).public_key).map((f) => f.replace(/\.json$/, '')),
  );
  let n = 0;
  for (const e of fs.readdirSync(path.join(root, 'tasks'), { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const r = JSON.parse(fs.readFileSync(path.join(e.parentPath, e.name), 'utf8')) as { signed_by?: string; signature?: string };
    if (r.signature && r.signed_by && keyed.has(r.signed_by)) n++;
  }
  return n;
}
