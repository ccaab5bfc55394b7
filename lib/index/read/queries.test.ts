/**
 * The read side against data set up here: the card_agents index stays in step with the cards
 * however they are written, and a lane page filtered by agent (with or without other filters,
 * page after page) gives the cards and the count a plain scan of the cards gives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, openReader, openWriter, type DB } from '../db';
import { agent, decodeCursor, HELD_SHOWN, lanePage, order, OrderAnswerCache, orderJson } from './queries';
import { LANES, type Lane } from '../../ledger/derive';
import type { HoldEnding } from '../../ledger/holds';
import { queryOfParams, type QueryTerm } from '../../query/query';
import { mulberry32 } from '../../util/prng';
import { Indexer } from '../indexer';
import { naclSign } from '../../ledger/nacl-verify';
import { nodeVerify } from '../disk/node-verify';
import { signFields } from '../../ledger/sign';
import { objectGet, parseStrictJsonText } from '../../ledger/json';
import { payloadDigest } from '../../ledger/canonical';
import { VECTORS_DIR, vectorKeys } from '../../../test/support/vectors';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

interface Row {
  order_id: string;
  lane: Lane;
  state: string;
  agents: string[];
  flags: string[];
  search: string;
  sort_ms: number;
}

/** Writes a card row the way the indexer does (INSERT OR REPLACE); the card JSON carries what the tests read back. */
function putCard(db: DB, r: Row): void {
  db.prepare(
    'INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, next_ms, card) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
  ).run(r.order_id, r.order_id, r.lane, r.state, r.agents[0] ?? null, ` ${r.agents.join(' ')} `, ` ${r.flags.join(' ')} `, r.search, r.sort_ms, JSON.stringify({ order_id: r.order_id }));
}

/** card_agents as (agent, order_id) pairs, sorted. */
const agentRows = (db: DB) => db.prepare('SELECT agent, lane, sort_ms, order_id FROM card_agents ORDER BY agent, order_id').all();

/** What card_agents should hold for these rows: one row per distinct lowercased agent of each card. */
function expectedAgentRows(rows: Iterable<Row>) {
  const out: { agent: string; lane: string; sort_ms: number; order_id: string }[] = [];
  for (const r of rows) for (const a of new Set(r.agents.map((x) => x.toLowerCase()))) out.push({ agent: a, lane: r.lane, sort_ms: r.sort_ms, order_id: r.order_id });
  return out.sort((x, y) => (x.agent === y.agent ? (x.order_id < y.order_id ? -1 : 1) : x.agent < y.agent ? -1 : 1));
}

/** The filters these tests started from (the old board parameters; `q` free text). */
interface BoardFilters {
  readonly agent?: string;
  readonly state?: string;
  readonly flag?: string;
  readonly q?: string;
}

/** The query terms of `f`, as GET /api/board makes them from its parameters. */
function termsOf(f: BoardFilters): readonly QueryTerm[] {
  const p = queryOfParams(f);
  if (!p.ok) throw new Error(`${JSON.stringify(f)}: ${p.reason}`);
  return p.terms;
}

/** The term `agent:<name>` as the parser makes it (canonical: lowercase), without the parser's check that it is a name. */
const agentTerm = (name: string): readonly QueryTerm[] => [{ kind: 'agent', neg: false, value: name.toLowerCase() }];

/** The reference: the cards of `lane` matching `filters`, by a plain filter of the rows, in (sort_ms, order_id) order. */
function reference(rows: Iterable<Row>, lane: Lane, f: BoardFilters): string[] {
  return [...rows]
    .filter(
      (r) =>
        r.lane === lane &&
        (!f.agent || r.agents.some((a) => a.toLowerCase() === f.agent?.toLowerCase())) &&
        (!f.state || r.state === f.state) &&
        (!f.flag || r.flags.includes(f.flag)) &&
        (!f.q || r.search.includes(f.q.toLowerCase())),
    )
    .sort((a, b) => a.sort_ms - b.sort_ms || (a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0))
    .map((r) => r.order_id);
}

/** Every page of a lane, following the cursors; the counts each page reported. */
function walk(db: DB, lane: Lane, f: BoardFilters, limit: number): { ids: string[]; counts: number[] } {
  const ids: string[] = [];
  const counts: number[] = [];
  let cursor: [number, string] | null = null;
  for (let i = 0; i < 1000; i++) {
    const p = lanePage(db, lane, termsOf(f), cursor, limit);
    ids.push(...p.cards.map((c) => c.order_id));
    counts.push(p.count);
    if (!p.next_cursor) break;
    cursor = decodeCursor(p.next_cursor);
  }
  return { ids, counts };
}

const AGENTS = ['fang', 'nebra', 'Ursa', 'worker_1', 'worker-1', 'ops'];
const STATES = ['claimed', 'stale', 'open', 'done'];
const FLAGS = ['double_run', 'late_result', 'gave_up'];

function randomRows(n: number, seed: number): Map<string, Row> {
  const rnd = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const rows = new Map<string, Row>();
  for (let i = 0; i < n; i++) {
    const id = `o${String(i).padStart(3, '0')}`;
    const agents = [...new Set(Array.from({ length: Math.floor(rnd() * 4) }, () => pick(AGENTS)))];
    rows.set(id, {
      order_id: id,
      lane: pick(LANES),
      state: pick(STATES),
      agents,
      flags: rnd() < 0.3 ? [pick(FLAGS)] : [],
      search: `${id} ${pick(['alpha', 'beta', 'gamma_1'])}`,
      sort_ms: Math.floor(rnd() * 20) * 1000, // many ties: the order id breaks them
    });
  }
  return rows;
}

describe('card_agents', () => {
  it('holds one row per agent of each card through inserts, replacements, updates and deletes', () => {
    const db = openMemory();
    const rows = randomRows(150, 1);
    for (const r of rows.values()) putCard(db, r);
    expect(agentRows(db)).toEqual(expectedAgentRows(rows.values()));

    // The indexer rewrites a card with INSERT OR REPLACE: new lane, new sort key, other agents.
    const rnd = mulberry32(2);
    for (const r of [...rows.values()].filter((_, i) => i % 3 === 0)) {
      const next: Row = { ...r, lane: LANES[Math.floor(rnd() * LANES.length)] as Lane, sort_ms: r.sort_ms + 500, agents: r.agents.length ? r.agents.slice(1) : ['fang', 'FANG'] };
      rows.set(r.order_id, next);
      putCard(db, next);
    }
    expect(agentRows(db)).toEqual(expectedAgentRows(rows.values()));

    // Deleted cards leave nothing behind.
    for (const id of [...rows.keys()].filter((_, i) => i % 4 === 1)) {
      db.prepare('DELETE FROM cards WHERE order_id = ?').run(id);
      rows.delete(id);
    }
    expect(agentRows(db)).toEqual(expectedAgentRows(rows.values()));

    // A plain UPDATE (nothing writes one today) keeps it in step too.
    const some = [...rows.values()][0] as Row;
    db.prepare("UPDATE cards SET lane = 'done', agents = ' ops  nebra ' WHERE order_id = ?").run(some.order_id);
    rows.set(some.order_id, { ...some, lane: 'done', agents: ['ops', 'nebra'] });
    expect(agentRows(db)).toEqual(expectedAgentRows(rows.values()));
  });

  it('is filled from the cards already there when the migration runs on an older index', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-q-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'index.sqlite');
    // An index at schema 4: built, then migration 5 undone.
    let db = openWriter(file);
    db.exec(`
      DROP TRIGGER card_agents_on_insert; DROP TRIGGER card_agents_on_update; DROP TRIGGER card_agents_on_delete;
      DROP TABLE card_agents; DELETE FROM migrations WHERE id = 5;
    `);
    const rows = randomRows(80, 3);
    for (const r of rows.values()) putCard(db, r);
    db.close();
    db = openWriter(file);
    cleanup.push(() => db.close());
    expect(agentRows(db)).toEqual(expectedAgentRows(rows.values()));
    expect(expectedAgentRows(rows.values()).length).toBeGreaterThan(60);
  });
});

describe('lanePage', () => {
  it('filtered by agent, alone or with state, flag and text: the cards and counts of a plain scan, page by page', () => {
    const db = openMemory();
    const rows = randomRows(400, 4);
    for (const r of rows.values()) putCard(db, r);
    const filterSets: BoardFilters[] = [
      {},
      ...AGENTS.map((agent) => ({ agent })),
      { agent: 'FANG' },
      { agent: 'fang', state: 'claimed' },
      { agent: 'nebra', flag: 'double_run' },
      { agent: 'ursa', q: 'gamma_' },
      { agent: 'ops', state: 'done', flag: 'gave_up', q: 'o1' },
      { state: 'stale', q: 'beta' },
      { agent: 'nobody' },
    ];
    let nonEmpty = 0;
    for (const f of filterSets) {
      for (const lane of LANES) {
        const want = reference(rows.values(), lane, f);
        if (want.length > 0) nonEmpty++;
        const got = walk(db, lane, f, 7);
        expect(got.ids, `${lane} ${JSON.stringify(f)}`).toEqual(want);
        expect(new Set(got.counts), `${lane} ${JSON.stringify(f)}`).toEqual(new Set([want.length]));
      }
    }
    expect(nonEmpty).toBeGreaterThan(40); // the data set exercises the filters
  });

  it('matches an agent name exactly: `_` is a name character, not a wildcard', () => {
    const db = openMemory();
    putCard(db, { order_id: 'a', lane: 'running', state: 'claimed', agents: ['worker-1'], flags: [], search: 'a', sort_ms: 1 });
    putCard(db, { order_id: 'b', lane: 'running', state: 'claimed', agents: ['worker_1'], flags: [], search: 'b', sort_ms: 2 });
    putCard(db, { order_id: 'c', lane: 'running', state: 'claimed', agents: ['worker_10', 'fang'], flags: [], search: 'c', sort_ms: 3 });
    const ids = (agent: string) => lanePage(db, 'running', agentTerm(agent), null).cards.map((c) => c.order_id);
    expect(ids('worker_1')).toEqual(['b']);
    expect(ids('worker-1')).toEqual(['a']);
    expect(ids('Worker_10')).toEqual(['c']);
    expect(ids('worker%')).toEqual([]);
  });
});

describe('lanePage on indexed vectors', () => {
  it('filtered by each agent: what the former scan (`agents LIKE`) found, for names without LIKE wildcards', async () => {
    let compared = 0;
    for (const vector of fs.readdirSync(VECTORS_DIR).filter((v) => fs.existsSync(path.join(VECTORS_DIR, v, 'channel')))) {
      const db = openMemory();
      const ix = new Indexer({ root: path.join(VECTORS_DIR, vector, 'channel'), db, staleAfterMs: 300_000, clock: () => Date.parse('2026-11-20T12:00:00Z'), watch: false, verify: nodeVerify });
      await ix.start();
      await ix.stop();
      const agents = new Set((db.prepare('SELECT agents FROM cards').all() as { agents: string }[]).flatMap((r) => r.agents.trim().split(' ').filter(Boolean)));
      for (const agent of [...agents].filter((a) => !/[%_]/.test(a))) {
        for (const lane of LANES) {
          const scan = db.prepare('SELECT order_id FROM cards WHERE lane = ? AND agents LIKE ? ORDER BY sort_ms, order_id').all(lane, `% ${agent.toLowerCase()} %`) as { order_id: string }[];
          const page = lanePage(db, lane, agentTerm(agent), null, 1000);
          expect(page.cards.map((c) => c.order_id), `${vector} ${agent} ${lane}`).toEqual(scan.map((r) => r.order_id));
          expect(page.count).toBe(scan.length);
          compared += scan.length;
        }
      }
      db.close();
    }
    expect(compared).toBeGreaterThan(10);
  });
});

describe('orderJson', () => {
  it.each(['the writer', 'a read-only connection beside the writer'])('the text of the uncached answer, computed once per version of what it shows, again after each index change to it (read through %s)', async (reader) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-q-'));
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.cpSync(path.join(VECTORS_DIR, '20-dependencies', 'channel'), root, { recursive: true });
    const put = (rel: string, value: unknown) => fs.writeFileSync(path.join(root, rel), JSON.stringify(value));
    let now = Date.parse('2026-11-30T12:00:00Z');
    const writer = openWriter(path.join(root, '..', `${path.basename(root)}.sqlite`));
    cleanup.push(() => {
      writer.close();
      for (const s of ['', '-wal', '-shm']) fs.rmSync(path.join(root, '..', `${path.basename(root)}.sqlite${s}`), { force: true });
    });
    const ix = new Indexer({ root, db: writer, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 });
    await ix.start();
    cleanup.push(() => void ix.stop());
    const db = reader === 'the writer' ? writer : openReader(path.join(root, '..', `${path.basename(root)}.sqlite`));
    if (db !== writer) cleanup.push(() => db.close());
    const cache = new OrderAnswerCache();
    const ids = (db.prepare('SELECT order_id FROM cards ORDER BY order_id').all() as { order_id: string }[]).map((r) => r.order_id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    const fresh = (id: string) => JSON.stringify(order(db, id, now));
    const texts = () => new Map(ids.map((id) => [id, fresh(id)]));
    const served = () => {
      for (const id of ids) expect(orderJson(db, id, now, cache), id).toBe(fresh(id));
    };

    served();
    expect([cache.misses, cache.hits]).toEqual([5, 0]);
    // Later, nothing changed: every answer from the cache, with this request's clock.
    now += 7_000;
    served();
    expect([cache.misses, cache.hits]).toEqual([5, 5]);
    expect(JSON.parse(orderJson(db, 'a', now, cache) ?? '{}').now_ms).toBe(now);
    expect(orderJson(db, 'nope', now, cache)).toBeNull();
    cache.hits = 0;

    // A heartbeat on disk that the index has not read yet: e's answer stays the index's (no run yet)...
    const e = orderJson(db, 'e', now, cache) ?? '';
    put('tasks/e/heartbeat.fang.json', { order_id: 'e', agent: 'fang', run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4242, at: '2026-11-30T11:59:00Z' });
    expect(fresh('e')).not.toBe(e);
    expect(orderJson(db, 'e', now, cache)).toBe(e);
    expect(JSON.parse(e).runs).toEqual([]);
    // ...and is computed again once the index has read it.
    ix.request('tasks/e/heartbeat.fang.json');
    ix.pump();
    let before = cache.misses;
    expect(orderJson(db, 'e', now, cache)).toBe(fresh('e'));
    expect(JSON.parse(fresh('e')).runs).toHaveLength(1);
    expect(cache.misses).toBe(before + 1);

    // a finishes: its card and its dependent b's state change; exactly the answers whose text changed are computed again.
    let old = texts();
    const fang = vectorKeys().fang?.seed ?? '';
    put('tasks/a/claim.fang.json', { order_id: 'a', agent: 'fang', claimed_at: '2026-11-30T10:00:00Z' });
    put('tasks/a/result.fang.001.json', signFields('result', { order_id: 'a', agent: 'fang', revision: 1, submitted_at: '2026-11-30T10:05:00Z', payload: {} }, 'fang', (p) => naclSign(fang, p)));
    ix.request('tasks/a/claim.fang.json');
    ix.request('tasks/a/result.fang.001.json');
    ix.pump();
    const changed = ids.filter((id) => fresh(id) !== old.get(id));
    expect(changed).toEqual(expect.arrayContaining(['a', 'b'])); // a done; b unblocked (a's dependents list shows it)
    expect(JSON.parse(fresh('a')).dependents).toEqual([{ order_id: 'b', state: 'open' }]);
    before = cache.misses;
    served();
    expect(cache.misses).toBe(before + changed.length);

    // b is claimed: only b's own rows and a's list of dependents change.
    old = texts();
    put('tasks/b/claim.nebra.json', { order_id: 'b', agent: 'nebra', claimed_at: '2026-11-30T11:00:00Z' });
    ix.request('tasks/b/claim.nebra.json');
    ix.pump();
    expect(ids.filter((id) => fresh(id) !== old.get(id))).toEqual(['a', 'b']);
    const bState = JSON.parse(fresh('b')).card.state as string;
    expect(bState).not.toBe('open');
    expect(JSON.parse(fresh('a')).dependents).toEqual([{ order_id: 'b', state: bState }]);
    before = cache.misses;
    served();
    expect(cache.misses).toBe(before + 2);

    // c's order file written again with the same content (a new arrival): only its timeline shows it.
    old = texts();
    const orderFile = path.join(root, 'tasks/c/order.json');
    fs.writeFileSync(`${orderFile}.tmp`, fs.readFileSync(orderFile));
    now += 1_000;
    fs.renameSync(`${orderFile}.tmp`, orderFile);
    ix.request('tasks/c/order.json');
    ix.pump();
    expect(ids.filter((id) => fresh(id) !== old.get(id))).toEqual(ids); // now_ms moved for all
    expect(JSON.parse(fresh('c')).card).toEqual(JSON.parse(old.get('c') ?? '{}').card);
    before = cache.misses;
    served();
    expect(cache.misses).toBe(before + 1);

    // The roster changes (a role): every answer is computed again.
    old = texts();
    put('agents/nebra.json', { name: 'nebra', role: 'reviewer', capabilities: [], public_key: vectorKeys().nebra?.public_key });
    ix.request('agents/nebra.json');
    ix.pump();
    before = cache.misses;
    served();
    expect(cache.misses).toBe(before + ids.length);
  });

  it('carries what a supersede copies: the result contract, the payload and its digest as written, the order it says it replaces', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-q-'));
    const dbFile = path.join(root, '..', `${path.basename(root)}.sqlite`);
    cleanup.push(() => {
      fs.rmSync(root, { recursive: true, force: true });
      for (const s of ['', '-wal', '-shm']) fs.rmSync(`${dbFile}${s}`, { force: true });
    });
    fs.cpSync(path.join(VECTORS_DIR, '19-timestamps-and-payloads', 'channel'), root, { recursive: true });
    const now = Date.parse('2026-11-30T12:00:00Z');
    const db = openWriter(dbFile);
    cleanup.push(() => db.close());
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 });
    await ix.start();
    cleanup.push(() => void ix.stop());
    const digestOf = (id: string) => {
      const p = parseStrictJsonText(fs.readFileSync(path.join(root, 'tasks', id, 'order.json'), 'utf8'));
      const payload = p.ok ? objectGet(p.node, 'payload') : undefined;
      return payload ? payloadDigest(payload) : '';
    };
    const t2 = order(db, 't2', now)?.order;
    expect(t2).toMatchObject({ result_contract: { required: ['summary', 'ratio'] }, supersedes: null, payload: {}, payload_digest: digestOf('t2'), requires_approval: true, depends_on: ['t1'] });
    const t1 = order(db, 't1', now)?.order;
    expect([t1?.result_contract, t1?.payload_digest]).toEqual([null, digestOf('t1')]);
    // A new order saying it supersedes t1, once indexed: its answer says so, cached or not.
    const cache = new OrderAnswerCache();
    const ops = vectorKeys().ops?.seed ?? '';
    fs.mkdirSync(path.join(root, 'tasks', 't1-2'));
    fs.writeFileSync(
      path.join(root, 'tasks/t1-2/order.json'),
      JSON.stringify(signFields('order', { id: 't1-2', project_id: 'demo', issued_by: 'ops', created_at: '2026-11-30T11:00:00Z', payload: { again: true }, requires_review: false, requires_approval: false, supersedes: 't1' }, 'ops', (p) => naclSign(ops, p))),
    );
    ix.request('tasks/t1-2/order.json');
    ix.pump();
    for (let i = 0; i < 2; i++) expect(JSON.parse(orderJson(db, 't1-2', now, cache) ?? '{}').order).toMatchObject({ supersedes: 't1', payload: { again: true }, payload_digest: digestOf('t1-2'), result_contract: null });
    expect([cache.misses, cache.hits]).toEqual([1, 1]);
  });

  it('keeps the most recently used answers within its budget; an entry unchanged only at the index version it was last checked at', () => {
    const c = new OrderAnswerCache(100);
    c.set('a', 'v1', '1 0', 'x'.repeat(30), 300); // 32 with its version
    c.set('b', 'v1', '1 0', 'y'.repeat(30), 300);
    expect(c.get('a', 'v1', '2 0', 300)).toBe('x'.repeat(30)); // a is now the most recent, checked at 2 0
    expect(c.unchanged('a', '1 0')).toBeUndefined();
    expect(c.unchanged('a', '2 0')).toMatchObject({ head: 'x'.repeat(30), staleAfterMs: 300 });
    c.set('c', 'v1', '2 0', 'z'.repeat(40), 300); // 32 + 32 + 42 > 100: b goes
    expect(c.get('b', 'v1', '2 0', 300)).toBeUndefined();
    expect(c.get('a', 'v1', '2 0', 300)).toBe('x'.repeat(30));
    expect(c.get('a', 'v2', '3 0', 300)).toBeUndefined(); // another version: dropped
    expect(c.get('a', 'v1', '3 0', 300)).toBeUndefined();
    expect(c.unchanged('a', '2 0')).toBeUndefined();
    expect(c.get('c', 'v1', '3 0', 300)).toBe('z'.repeat(40));
  });
});

describe("an agent's page does not grow with the channel's history", () => {
  it('lists its cards outside Done in full, counts those in Done, and lists the first HELD_SHOWN earlier holds, finished ones last', () => {
    const db = openMemory();
    cleanup.push(() => db.close());
    const card = (id: string, lane: Lane, sortMs: number) => putCard(db, { order_id: id, lane, state: lane === 'done' ? 'closed' : 'claimed', agents: ['fang'], flags: [], search: id, sort_ms: sortMs });
    card('a-run-2', 'running', 20);
    card('a-run-1', 'stale', 10);
    for (let i = 0; i < 3; i++) card(`d${i}`, 'done', i);
    putCard(db, { order_id: 'other', lane: 'running', state: 'claimed', agents: ['wisp'], flags: [], search: 'other', sort_ms: 5 });
    const hold = db.prepare('INSERT INTO holds (order_id, agent, retire, claimed_ms, ending, hold) VALUES (?, ?, ?, ?, ?, ?)');
    const add = (id: string, ending: HoldEnding, retire: boolean, claimedMs = 100) =>
      hold.run(id, 'fang', retire ? 1 : 0, claimedMs, ending, JSON.stringify({ order_id: id, agent: 'fang', claimed_ms: claimedMs, ending, reason: ending === 'finished' ? 'revision 1' : 'why' }));
    // 250 ended holds, inserted in reverse so that the order of the answer is the query's; two
    // did not end in a result: a give-up (a retirement releases it) and a re-queue (it does not).
    const endedAs = (i: number): HoldEnding => (i === 230 ? 'gave_up' : i === 120 ? 'requeued' : 'finished');
    for (let i = 249; i >= 0; i--) add(`h${String(i).padStart(3, '0')}`, endedAs(i), endedAs(i) === 'gave_up');
    add('a-run-1', 'held', true);
    // Claimed twice: both ended, the earlier claim listed first.
    add('h250', 'superseded', false, 300);
    add('h250', 'lost', false, 200);

    const a = agent(db, 'fang', 1_000);
    expect(a?.holds.map((c) => c.order_id)).toEqual(['a-run-1', 'a-run-2']); // by sort_ms; Done left out
    expect(a?.finished).toBe(3);
    expect(a?.held_total).toBe(252); // the hold still held is not an earlier one
    expect(a?.held).toHaveLength(HELD_SHOWN);
    // Those four first (by order id, then claim arrival), then the finished ones by order id; each the hold row as stored, with the order's state now.
    expect(a?.held.slice(0, 5).map((h) => [h.order_id, h.ending, h.claimed_ms, h.state])).toEqual([
      ['h120', 'requeued', 100, null],
      ['h230', 'gave_up', 100, null],
      ['h250', 'lost', 200, null],
      ['h250', 'superseded', 300, null],
      ['h000', 'finished', 100, null],
    ]);
    expect(a?.held[4]?.reason).toBe('revision 1');
    // The 200th: the 196th finished one, h000 to h196 without h120.
    expect(HELD_SHOWN).toBe(200);
    expect(a?.held[HELD_SHOWN - 1]?.order_id).toBe('h196');
    // Retiring it would re-queue what it holds and what it gave up (not what it released or finished).
    expect(a?.retire_plan).toEqual(['a-run-1', 'h230']);
  });
});
