/**
 * The index equals the folder: after any sequence of changes, the board an
 * incrementally updated index holds equals a fresh index of the final folder, and deleting
 * the database and indexing again gives the same cards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openMemory, openWriter, type DB } from './db';
import { Indexer } from './indexer';
import { IndexStore } from './store/store';
import { VECTORS_DIR } from '../../test/support/vectors';
import { nodeVerify } from './disk/node-verify';
import { indexNowMs } from './steady-clock';
import { HOUR_MS, testClock } from '../../test/support/test-clock';
import * as q from './read/queries';
import { holdsPage } from './read/holds-queries';

let cleanup: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

function channelCopy(vector: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-idx-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(path.join(VECTORS_DIR, vector, 'channel'), dir, { recursive: true });
  return dir;
}

/** Everything a reader can see, in a comparable form. */
function snapshot(db: DB) {
  return {
    cards: db.prepare('SELECT order_id, lane, state, holder, card FROM cards ORDER BY order_id').all(),
    problems: db.prepare('SELECT path, problem, line, order_id FROM problems ORDER BY path, problem').all(),
    ledger: db.prepare('SELECT * FROM ledger_files ORDER BY path').all(),
    agents: db.prepare('SELECT name FROM agents ORDER BY name').all(),
    // Every column but first_seen_ms (when this index first saw the file: not the folder's) and
    // the remembered signature check (a cold index on worker threads remembers none).
    files: db.prepare('SELECT path, order_dir, stat, type, arrival_ms, kind, status, problem, writer FROM files ORDER BY path').all(),
  };
}

async function freshIndex(root: string, now: number, staleAfterMs = 300_000): Promise<DB> {
  const db = openMemory();
  const ix = new Indexer({ root, db, staleAfterMs, clock: () => now, watch: false, verify: nodeVerify });
  await ix.start();
  await ix.stop();
  return db;
}

/** A new index file in a temporary folder (removed after the test). */
function indexFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-db-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'index.sqlite');
}

/** One start and stop of the indexer on `db` (its migrations already run by openWriter). */
async function indexOnce(root: string, db: DB): Promise<void> {
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
  await ix.start();
  await ix.stop();
}

const write = (root: string, rel: string, content: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), content);
};

describe('Indexer', () => {
  it('an incremental sequence of changes ends where a fresh index of the final folder starts', async () => {
    const root = channelCopy('17-bad-signatures');
    let now = Date.now();
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 }); // deletions here are deliberate; the grace has its own test
    await ix.start();
    const claimT1 = fs.readFileSync(path.join(root, 'tasks/t1/claim.fang.json'), 'utf8');
    const steps: (() => void)[] = [
      // create: a new order with a claim
      () => fs.cpSync(path.join(root, 'tasks/t1'), path.join(root, 'tasks/t9'), { recursive: true }),
      // rewrite: a heartbeat rewritten
      () => write(root, 'tasks/t1/heartbeat.fang.json', fs.readFileSync(path.join(root, 'tasks/t1/heartbeat.fang.json'), 'utf8').replace('4242', '4243')),
      // delete: the forged result goes away
      () => fs.rmSync(path.join(root, 'tasks/t1/result.fang.001.json')),
      // rename over: a temp file renamed over the claim (how ferryman writes)
      () => {
        write(root, 'tasks/t2/.claim.fang.json.tmp', claimT1.replace('"t1"', '"t2"'));
        fs.renameSync(path.join(root, 'tasks/t2/.claim.fang.json.tmp'), path.join(root, 'tasks/t2/claim.fang.json'));
      },
      // a conflict copy appears
      () => write(root, 'tasks/t3/claim.nebra.sync-conflict-20261130-101010-ABCDEFG.json', '{}'),
      // a file truncated (half-synced)...
      () => write(root, 'tasks/t3/claim.nebra.json', '{"order_id": "t3", "ag'),
      // ...then completed
      () => write(root, 'tasks/t3/claim.nebra.json', '{"order_id": "t3", "agent": "nebra", "claimed_at": "2026-11-20T09:05:00Z"}'),
      // a whole order directory removed
      () => fs.rmSync(path.join(root, 'tasks/t9'), { recursive: true }),
    ];
    for (const step of steps) {
      step();
      now += 1000;
      ix.request(null);
      ix.pump();
    }
    await ix.stop();
    const fresh = await freshIndex(root, now);
    expect(snapshot(db)).toEqual(snapshot(fresh));
    // And the sequence did change things: t3 has the conflict flag, the forged result is gone.
    const t3 = q.order(db, 't3', now);
    expect(t3?.card.flags).toEqual(['bad_record', 'sync_conflict']); // conflict copy + the bad result
    expect(q.problems(db).problems.map((p) => p.path)).not.toContain('tasks/t1/result.fang.001.json');
  });

  it('deleting the database and indexing again gives the same cards', async () => {
    const root = channelCopy('11-give-up-ack-reopen');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-db-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'index.sqlite');
    const now = Date.now();
    const run = async () => {
      const db = openWriter(file);
      const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false });
      await ix.start();
      await ix.stop();
      const s = snapshot(db);
      db.close();
      return s;
    };
    const first = await run();
    const warm = await run(); // restart on the existing database
    for (const s of ['', '-wal', '-shm']) fs.rmSync(file + s, { force: true });
    const rebuilt = await run();
    expect(warm).toEqual(first);
    expect(rebuilt).toEqual(first);
    expect((first.cards as { order_id: string; state: string }[]).map((c) => [c.order_id, c.state])).toEqual([
      ['g1', 'gave_up'],
      ['g2', 'closed'],
      ['g3', 'claimed'],
    ]);
  });

  it('a warm start reads nothing that did not change and verifies nothing again', async () => {
    const root = channelCopy('19-timestamps-and-payloads');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-db-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'index.sqlite');
    let verified = 0;
    const counting = (k: string, m: string, s: string) => {
      verified++;
      return nodeVerify(k, m, s);
    };
    for (const expected of [3, 0]) {
      verified = 0;
      const db = openWriter(file);
      const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: counting });
      await ix.start();
      await ix.stop();
      db.close();
      // three signed records: t1's order and result, t2's order.
      expect(verified).toBe(expected);
    }
  });

  it('an index stored before late results could be acknowledged passes their folders again at the next start (migration 15)', async () => {
    const root = channelCopy('15-late-result');
    const file = indexFile();
    const cardOf = (db: DB) => JSON.parse(db.prepare("SELECT card FROM cards WHERE order_id = 't1'").pluck().get() as string) as { late_target?: string; flags: string[] };
    let db = openWriter(file);
    await indexOnce(root, db);
    expect(cardOf(db)).toMatchObject({ flags: ['late_result'], late_target: 'late:1:fang:open' });
    // As the code before it stored the card: no target, and migration 15 not run yet.
    db.prepare("UPDATE cards SET card = json_remove(card, '$.late_target') WHERE order_id = 't1'").run();
    db.prepare('DELETE FROM migrations WHERE id = 15').run();
    db.close();
    db = openWriter(file);
    expect(db.prepare('SELECT order_dir FROM unverified').pluck().all()).toEqual(['t1']);
    await indexOnce(root, db);
    expect(cardOf(db)).toMatchObject({ flags: ['late_result'], late_target: 'late:1:fang:open' });
    expect(db.prepare('SELECT COUNT(*) FROM unverified').pluck().get()).toBe(0);
    db.close();
  });

  it('migrations 15 and 16 each pass again the folders holding an ack or a reopen, so their cards list each operator\'s decisions', async () => {
    const root = channelCopy('11-give-up-ack-reopen');
    const file = indexFile();
    let db = openWriter(file);
    await indexOnce(root, db);
    const withDecisions = (db.prepare("SELECT DISTINCT order_dir FROM files WHERE kind IN ('ack', 'reopen') ORDER BY order_dir").pluck().all() as string[]);
    expect(withDecisions).toEqual(['g2', 'g3']); // vector 11: g2's ack, g3's ack and reopen
    db.close();
    for (const id of [15, 16]) {
      db = openWriter(file);
      db.prepare('DELETE FROM migrations WHERE id = ?').run(id);
      db.close();
      db = openWriter(file);
      expect(db.prepare('SELECT order_dir FROM unverified ORDER BY order_dir').pluck().all(), `migration ${id}`).toEqual(withDecisions);
      await indexOnce(root, db);
      expect(db.prepare('SELECT COUNT(*) FROM unverified').pluck().get()).toBe(0);
      expect(JSON.parse(db.prepare("SELECT card FROM cards WHERE order_id = 'g3'").pluck().get() as string)).toMatchObject({ decided: { acks: { ops: expect.stringMatching(/^giveup:/) }, reopens: { ops: expect.stringMatching(/^giveup:/) } } });
      db.close();
    }
  });

  it('a corrupt database file is moved aside and rebuilt, saying so', async () => {
    const root = channelCopy('09-done');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-db-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'index.sqlite');
    fs.writeFileSync(file, 'this is not a database'.repeat(100));
    const said: string[] = [];
    const db = openWriter(file, (why) => said.push(why));
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false });
    await ix.start();
    await ix.stop();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/unreadable.*rebuilding from the folder/);
    expect(q.order(db, 't1', Date.now())?.card.state).toBe('done');
    db.close();
    expect(fs.readdirSync(dir).some((f) => f.startsWith('index.sqlite.corrupt-'))).toBe(true);
  });

  it('moves a card to stale when its time comes, with no file changing', async () => {
    const root = channelCopy('03-claimed-fresh');
    const db = openMemory();
    // Stale after an hour on a test clock (test/support/test-clock.ts): claimed at start however
    // long the start takes; then two hours pass, seen by the indexer's own looks.
    const clock = testClock();
    const ix = new Indexer({ root, db, staleAfterMs: HOUR_MS, watch: false, verify: nodeVerify, rescanMs: 200, bootClock: clock.bootClock });
    await ix.start();
    expect(q.order(db, 't1', indexNowMs(db))?.card.state).toBe('claimed');
    clock.pass(2 * HOUR_MS);
    await vi.waitFor(() => expect(q.order(db, 't1', indexNowMs(db))?.card.state).toBe('stale'), { timeout: 60_000, interval: 25 });
    const card = q.order(db, 't1', indexNowMs(db))?.card;
    await ix.stop();
    expect([card?.state, card?.reason]).toEqual(['stale', 'agent_silent']);
  });

  it('follows folder events: a release written into the folder moves the card with no look due', async () => {
    const root = channelCopy('13-retired');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, verify: nodeVerify, rescanMs: 60_000 });
    await ix.start();
    expect(q.order(db, 't2', Date.now())?.card.state).toBe('claimed');
    // ops (an operator) releases fang's claim on t2, as a re-queue would.
    const { naclSign } = await import('../ledger/nacl-verify');
    const { signFields } = await import('../ledger/sign');
    const { vectorKeys } = await import('../../test/support/vectors');
    const ops = vectorKeys().ops as { seed: string };
    const rel = signFields('release', { order_id: 't2', released: 'fang', releaser: 'ops', reason: 'retired', at: '2026-11-30T10:00:00Z' }, 'ops', (p) => naclSign(ops.seed, p));
    const t0 = Date.now();
    write(root, 'tasks/t2/release.ops.fang.json', JSON.stringify(rel));
    let state: string | undefined;
    // The quick look and the sweep are a minute away (rescanMs) and the folder is watched, so
    // the poll of unwatched folders skips it: within these 50 s only its event can move the card.
    while (Date.now() - t0 < 50_000) {
      await new Promise((r) => setTimeout(r, 25));
      state = q.order(db, 't2', Date.now())?.card.state;
      if (state === 'open') break;
    }
    await ix.stop();
    expect(state).toBe('open');
  });
});

describe('Indexer, channel-wide facts applied incrementally', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  it('a stale reason follows the holder\'s other files: agent_silent, then heartbeat_lapsed, then agent_silent again', async () => {
    const root = channelCopy('04-stale-heartbeat-lapsed');
    const db = openMemory();
    // The window leaves seconds for each step on a loaded machine; the waits go past it.
    const ix = new Indexer({ root, db, staleAfterMs: 3_000, watch: false, verify: nodeVerify });
    await ix.start();
    await sleep(3_200); // both of fang's heartbeats are older than the window now
    ix.request(null);
    ix.pump();
    expect([q.order(db, 't1', Date.now())?.card.reason, q.order(db, 't2', Date.now())?.card.reason]).toEqual(['agent_silent', 'agent_silent']);
    // fang's heartbeat on t2 arrives again: t2 is claimed, and t1's run looks dead while fang lives.
    write(root, 'tasks/t2/heartbeat.fang.json', fs.readFileSync(path.join(root, 'tasks/t2/heartbeat.fang.json'), 'utf8').replace('4242', '4243'));
    ix.request('tasks/t2/heartbeat.fang.json');
    ix.pump();
    expect(q.order(db, 't2', Date.now())?.card.state).toBe('claimed');
    expect(q.order(db, 't1', Date.now())?.card.reason).toBe('heartbeat_lapsed');
    const fresh = await freshIndex(root, Date.now(), 3_000);
    expect(q.order(fresh, 't1', Date.now())?.card.reason).toBe('heartbeat_lapsed');
    // Nothing more from fang: once the window passes, the clock alone turns t1 back to agent_silent.
    await sleep(3_500);
    const t1 = q.order(db, 't1', Date.now())?.card;
    await ix.stop();
    expect([t1?.state, t1?.reason]).toEqual(['stale', 'agent_silent']);
  });

  it('a dependency finishing unblocks its dependents, and an order going away flags them', async () => {
    const root = channelCopy('20-dependencies');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    expect(q.order(db, 'b', Date.now())?.card.state).toBe('blocked'); // waits for a
    // a is done: copy e's claim and result shape is not possible (signed), so sign a result by fang.
    const { naclSign } = await import('../ledger/nacl-verify');
    const { signFields } = await import('../ledger/sign');
    const fang = (vectorKeysLocal().fang as { seed: string }).seed;
    write(root, 'tasks/a/claim.fang.json', JSON.stringify({ order_id: 'a', agent: 'fang', claimed_at: '2026-11-30T10:00:00Z' }));
    write(root, 'tasks/a/result.fang.001.json', JSON.stringify(signFields('result', { order_id: 'a', agent: 'fang', revision: 1, submitted_at: '2026-11-30T10:05:00Z', payload: {} }, 'fang', (p) => naclSign(fang, p))));
    ix.request('tasks/a/claim.fang.json');
    ix.request('tasks/a/result.fang.001.json');
    ix.pump();
    expect(q.order(db, 'a', Date.now())?.card.state).toBe('done');
    expect(q.order(db, 'b', Date.now())?.card.state).toBe('open');
    // e goes away: d (which depends on e) is blocked and flagged missing_dependency.
    fs.rmSync(path.join(root, 'tasks/e'), { recursive: true });
    ix.request('tasks/e');
    ix.pump();
    const d = q.order(db, 'd', Date.now())?.card;
    expect([d?.state, d?.flags]).toEqual(['blocked', ['missing_dependency']]);
    await ix.stop();
    const fresh = await freshIndex(root, Date.now());
    expect(snapshot(db)).toEqual(snapshot(fresh));
  });

  it('a cold index on worker threads gives the same board as in one thread', async () => {
    const root = channelCopy('17-bad-signatures');
    for (const v of ['11-give-up-ack-reopen', '20-dependencies', '10-review-states']) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
    const now = Date.now();
    const one = openMemory();
    const a = new Indexer({ root, db: one, staleAfterMs: 300_000, clock: () => now, watch: false, workers: 0 });
    await a.start();
    await a.stop();
    const two = openMemory();
    const b = new Indexer({ root, db: two, staleAfterMs: 300_000, clock: () => now, watch: false, workers: 2 });
    await b.start();
    await b.stop();
    expect(snapshot(two)).toEqual(snapshot(one));
    expect(snapshot(one).cards.length).toBe(3 + 3 + 5 + 3);
  });
});

function vectorKeysLocal(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, 'keys.json'), 'utf8')) as Record<string, unknown>;
}

describe('agent page data', () => {
  it('says who retired an agent, what it holds, what it held and how each hold ended', async () => {
    const root = channelCopy('13-retired');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    await ix.stop();
    const a = q.agent(db, 'fang', Date.now());
    expect(a?.agent).toMatchObject({ name: 'fang', retired: true, capabilities: [], retirement: { operator: 'ops', reason: 'machine rebuilt', at: '2026-11-20T11:00:00Z' } });
    expect(a?.holds.map((c) => c.order_id)).toEqual(['t2']);
    // Its ended holds: the fleet history's rows themselves, with the order's state now.
    expect(a?.held.map((h) => [h.order_id, h.agent, h.ending, h.ended_by, h.reason, h.claimed_at, h.state])).toEqual([['t1', 'fang', 'retired', 'ops', 'retired', '2026-11-20T09:05:00Z', 'open']]);
    const row = holdsPage(db, { window: { from_ms: 0, to_ms: Date.now() + 86_400_000 }, terms: [] }, null, Date.now()).holds.find((h) => h.order_id === 't1' && h.agent === 'fang');
    const { silences: _s, silent_ms: _m, ...hold } = row ?? { silences: [], silent_ms: 0 };
    const { state: _st, ...held } = a?.held[0] ?? { state: null };
    expect(held).toEqual(hold);
    expect(a?.retire_plan).toEqual(['t2']);
    expect(q.agents(db, Date.now()).agents.map((x) => [x.name, x.retired, x.holding])).toEqual([
      ['fang', true, 1],
      ['nebra', false, 0],
      ['ops', false, 0],
      ['wisp', false, 0],
    ]);
  });
});

describe('change feed for channel-level files', () => {
  it('a roster change tells every page to refetch (a key_changed banner has no order to name)', async () => {
    const root = channelCopy('09-done');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
    await ix.start();
    const seq = q.latestSeq(db);
    const file = path.join(root, 'agents/wisp.json');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), role: 'reviewer' }));
    ix.request('agents/wisp.json');
    ix.pump();
    await ix.stop();
    expect(q.changesSince(db, seq)).toMatchObject({ all: true, orders: [] });
  });
});

describe('Indexer, the channel folder going away during an update', () => {
  it('deletes nothing it read while the folder went: the board is kept, said to be not the folder\'s, and current again once it is back', async () => {
    const root = channelCopy('03-claimed-fresh');
    const away = `${root}.away`;
    cleanup.push(() => fs.rmSync(away, { recursive: true, force: true }));
    let goNow = false;
    const db = openMemory();
    // ctimeSkew is asked once per chunk of folders, after the guard found the folder and
    // before the chunk is read: the folder is renamed away exactly there.
    const ctimeSkew = () => {
      if (goNow) {
        goNow = false;
        fs.renameSync(root, away);
      }
      return 0;
    };
    // No grace for deletions: without the check, the pass would store t1 as gone at once.
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify, vanishGraceMs: 0, ctimeSkew });
    await ix.start();
    expect(q.order(db, 't1', Date.now())?.card.state).toBe('claimed');
    goNow = true;
    ix.request('tasks/t1');
    await vi.waitFor(() => expect(ix.health).toMatchObject({ state: 'degraded', code: 'folder_missing' }), { timeout: 60_000 });
    expect(goNow).toBe(false); // the folder went during the update, not before it
    expect(q.order(db, 't1', Date.now())?.card.state).toBe('claimed');
    fs.renameSync(away, root);
    await vi.waitFor(() => expect(ix.health).toEqual({ state: 'ok' }), { timeout: 60_000 });
    expect(q.order(db, 't1', Date.now())?.card.state).toBe('claimed');
    await ix.stop();
  });
});

describe('Indexer, a card going stale with the clock', () => {
  it('passes the folder again and stores the stale card, rewriting none of its file rows (nothing in the folder changed)', async () => {
    const root = channelCopy('03-claimed-fresh');
    const db = openMemory();
    const clock = testClock(); // stale after an hour, then two hours pass (test/support/test-clock.ts)
    const ix = new Indexer({ root, db, staleAfterMs: HOUR_MS, watch: false, verify: nodeVerify, rescanMs: 200, bootClock: clock.bootClock });
    await ix.start();
    expect(q.order(db, 't1', indexNowMs(db))?.card).toMatchObject({ state: 'claimed', lane: 'running' }); // expect.json
    const rows = () => db.prepare("SELECT * FROM files WHERE order_dir = 't1' ORDER BY path").all();
    const before = rows();
    expect(before).toHaveLength(4); // the folder itself, order, claim, heartbeat
    // Every write to the files table from here on, and every pass of t1's folder.
    db.exec(`CREATE TEMP TABLE file_writes (op TEXT, path TEXT);
      CREATE TEMP TRIGGER fw_insert AFTER INSERT ON main.files BEGIN INSERT INTO file_writes VALUES ('insert', NEW.path); END;
      CREATE TEMP TRIGGER fw_update AFTER UPDATE ON main.files BEGIN INSERT INTO file_writes VALUES ('update', NEW.path); END;
      CREATE TEMP TRIGGER fw_delete AFTER DELETE ON main.files BEGIN INSERT INTO file_writes VALUES ('delete', OLD.path); END;`);
    const passed = vi.spyOn(IndexStore.prototype, 'setDir');
    clock.pass(2 * HOUR_MS);
    await vi.waitFor(() => expect(q.order(db, 't1', indexNowMs(db))?.card).toMatchObject({ state: 'stale', lane: 'stale', holder: 'fang' }), { timeout: 60_000 });
    await ix.stop();
    // The folder was passed again, and no other (a timer that fires a hair early passes it once more).
    expect(new Set(passed.mock.calls.map((c) => c[0]))).toEqual(new Set(['t1']));
    passed.mockRestore();
    expect(db.prepare('SELECT * FROM file_writes').all()).toEqual([]);
    expect(rows()).toEqual(before);
  });
});
