/**
 * The board query (lib/query/query.ts) in SQL (board-where.ts via lanePage): on rows set up here,
 * every kind of term, negated or not, alone and combined, gives page after page (keyset cursors)
 * the cards and counts a plain evaluation of the rows gives; on a real index of conformance
 * channels, the orders their expect.json puts in each lane, state, flag and holder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, type DB } from '../db';
import { decodeCursor, lanePage } from './queries';
import { Indexer } from '../indexer';
import { nodeVerify } from '../disk/node-verify';
import { LANES, type Lane } from '../../ledger/derive';
import { ageMs, parseQuery, type QueryTerm } from '../../query/query';
import { loadExpect, VECTORS_DIR } from '../../../test/support/vectors';
import { mulberry32 } from '../../util/prng';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const terms = (text: string): readonly QueryTerm[] => {
  const p = parseQuery(text);
  if (!p.ok) throw new Error(`${text}: ${p.reason}`);
  return p.terms;
};

interface Row {
  order_id: string;
  lane: Lane;
  state: string;
  holder: string | null;
  /** Holder first, then the agents its flags involve. */
  agents: string[];
  flags: string[];
  project: string;
  search: string;
  sort_ms: number;
  since_ms?: number;
  heartbeat_ms?: number;
  /** Arrivals of the files in its folder. */
  files: number[];
}

const STALE_AFTER_MS = 60_000;
const NOW = 10_000_000;

function putRow(db: DB, r: Row): void {
  const card = {
    order_id: r.order_id,
    project_id: r.project,
    ...(r.since_ms !== undefined ? { since_ms: r.since_ms } : {}),
    heartbeat: r.heartbeat_ms !== undefined ? { arrival_ms: r.heartbeat_ms, at: '2026-11-20T09:00:00Z', run: 'r', pid: 1 } : null,
  };
  db.prepare(
    'INSERT OR REPLACE INTO cards (order_id, order_dir, lane, state, holder, agents, flags, search, sort_ms, next_ms, card) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
  ).run(r.order_id, r.order_id, r.lane, r.state, r.holder, ` ${r.agents.join(' ')} `, ` ${r.flags.join(' ')} `, r.search, r.sort_ms, JSON.stringify(card));
  const file = db.prepare("INSERT INTO files (path, order_dir, stat, type, arrival_ms, first_seen_ms, status) VALUES (?, ?, '', ?, ?, 0, 'record')");
  r.files.forEach((t, i) => file.run(`tasks/${r.order_id}/f${i}.json`, r.order_id, 'file', t));
  // The folder itself (a directory row) arrives last: it is not a file of the order, its arrival never counts.
  file.run(`tasks/${r.order_id}`, r.order_id, 'dir', NOW);
}

/** The reference arrival an age is measured from (what board-where.ts says, in plain code). */
function refOf(r: Row): number | undefined {
  if (r.since_ms !== undefined) return r.since_ms - STALE_AFTER_MS;
  if (r.heartbeat_ms !== undefined) return r.heartbeat_ms;
  return r.files.length ? Math.max(...r.files) : undefined;
}

/** Whether `r` matches the query, by the grammar's rules read literally (not through groupQuery). */
function matches(r: Row, q: readonly QueryTerm[]): boolean {
  const test = (t: QueryTerm): boolean => {
    switch (t.kind) {
      case 'agent':
        return r.agents.some((a) => a.toLowerCase() === t.value);
      case 'holder':
        return r.holder === t.value;
      case 'project':
        return r.project.toLowerCase() === t.value;
      case 'lane':
        return r.lane === t.value;
      case 'flag':
        return r.flags.includes(t.value);
      case 'state':
        return r.state === t.value;
      case 'text':
        return r.search.includes(t.value.toLowerCase());
      case 'channel':
        throw new Error('a channel term selects the channels a hub reads, above one index: not generated here');
      case 'age': {
        const ref = refOf(r);
        if (ref === undefined) return false;
        const age = NOW - ref;
        return t.op === '>' ? age > ageMs(t) : age < ageMs(t);
      }
    }
  };
  // Positive terms: OR within a key (free text and age: each must hold); a negated term must not hold.
  const byKind = new Map<string, boolean[]>();
  for (const t of q) {
    if (t.neg) {
      if (t.kind === 'age') {
        const ref = refOf(r);
        if (ref === undefined || test(t)) return false;
      } else if (test(t)) return false;
      continue;
    }
    if (t.kind === 'text' || t.kind === 'age') {
      if (!test(t)) return false;
      continue;
    }
    byKind.set(t.kind, [...(byKind.get(t.kind) ?? []), test(t)]);
  }
  return [...byKind.values()].every((xs) => xs.some(Boolean));
}

function reference(rows: Iterable<Row>, lane: Lane, q: readonly QueryTerm[]): string[] {
  return [...rows]
    .filter((r) => r.lane === lane && matches(r, q))
    .sort((a, b) => a.sort_ms - b.sort_ms || (a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0))
    .map((r) => r.order_id);
}

/** Every page of a lane, following the cursors; the counts each page reported. */
function walk(db: DB, lane: Lane, q: readonly QueryTerm[], limit: number, nowMs: number): { ids: string[]; counts: number[] } {
  const ids: string[] = [];
  const counts: number[] = [];
  let cursor: [number, string] | null = null;
  for (let i = 0; i < 1000; i++) {
    const p = lanePage(db, lane, q, cursor, limit, nowMs);
    ids.push(...p.cards.map((c) => c.order_id));
    counts.push(p.count);
    if (!p.next_cursor) break;
    cursor = decodeCursor(p.next_cursor);
  }
  return { ids, counts };
}

const AGENTS = ['fang', 'nebra', 'ursa', 'worker_1', 'worker-1', 'ops'];
const STATES = ['claimed', 'stale', 'open', 'done'];
const FLAGS = ['double_run', 'late_result', 'gave_up'];
const PROJECTS = ['atlas', 'Atlas', 'demo', 'big data'];

function randomRows(n: number, seed: number): Map<string, Row> {
  const rnd = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const rows = new Map<string, Row>();
  for (let i = 0; i < n; i++) {
    const id = `o${String(i).padStart(3, '0')}`;
    const agents = [...new Set(Array.from({ length: Math.floor(rnd() * 4) }, () => pick(AGENTS)))];
    const holder = agents.length > 0 && rnd() < 0.8 ? (agents[0] as string) : null;
    const state = pick(STATES);
    const project = pick(PROJECTS);
    const minutes = (k: number) => NOW - k * 60_000;
    rows.set(id, {
      order_id: id,
      lane: pick(LANES),
      state,
      holder,
      agents,
      flags: rnd() < 0.3 ? [pick(FLAGS)] : [],
      project,
      search: `${id} ${holder ?? ''} ${project.toLowerCase()} ${pick(['alpha', 'beta', 'gamma_1'])} ${state}`,
      sort_ms: Math.floor(rnd() * 20) * 1000, // many ties: the order id breaks them
      ...(state === 'stale' ? { since_ms: minutes(Math.floor(rnd() * 180)) } : {}),
      ...(state === 'claimed' && rnd() < 0.7 ? { heartbeat_ms: minutes(Math.floor(rnd() * 180)) } : {}),
      files: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => minutes(Math.floor(rnd() * 180))),
    });
  }
  return rows;
}

describe('lanePage under a query', () => {
  it('every kind of term, negated, repeated and combined: the cards and counts of a plain evaluation, page by page', () => {
    const db = openMemory();
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('stale_after_ms', ?)").run(String(STALE_AFTER_MS));
    const rows = randomRows(500, 7);
    for (const r of rows.values()) putRow(db, r);
    const queries = [
      '',
      'agent:fang',
      'agent:fang agent:ursa',
      '-agent:fang',
      '-agent:fang -agent:ops',
      'agent:nebra -agent:fang',
      'agent:worker_1 state:claimed',
      'holder:fang',
      '-holder:fang',
      'holder:ops holder:nebra -agent:fang',
      'lane:stale',
      'lane:stale lane:attention',
      '-lane:done',
      'state:stale state:claimed',
      '-state:done -state:open',
      'flag:double_run',
      'flag:double_run flag:gave_up',
      '-flag:gave_up',
      '-flag:gave_up -flag:late_result',
      'project:atlas',
      '-project:atlas',
      'project:"big data"',
      'beta',
      'beta o1',
      '-beta',
      '-beta -gamma_',
      'gamma_',
      'age:>1h',
      'age:<30m',
      '-age:>1h',
      '-age:<2h',
      'age:>30m age:<2h',
      'age:>1h age:>90m',
      'state:stale age:>1h',
      'lane:stale -agent:fang age:>1h',
      'agent:fang agent:ops -state:done project:atlas alpha age:<2h',
      'agent:nobody',
    ];
    let nonEmpty = 0;
    for (const text of queries) {
      const q = terms(text);
      for (const lane of LANES) {
        const want = reference(rows.values(), lane, q);
        if (want.length > 0) nonEmpty++;
        const got = walk(db, lane, q, 7, NOW);
        expect(got.ids, `${lane} ${text}`).toEqual(want);
        expect(new Set(got.counts), `${lane} ${text}`).toEqual(new Set([want.length]));
      }
    }
    expect(nonEmpty).toBeGreaterThan(120); // the data set exercises the terms
  });

  it('a lane the query leaves out is empty without reading it; the page is the lane asked for', () => {
    const db = openMemory();
    const rows = randomRows(60, 8);
    for (const r of rows.values()) putRow(db, r);
    expect(lanePage(db, 'done', terms('lane:stale'), null)).toEqual({ lane: 'done', count: 0, cards: [], next_cursor: null });
    expect(lanePage(db, 'done', terms('-lane:done'), null).count).toBe(0);
    expect(lanePage(db, 'stale', terms('lane:stale'), null).count).toBe(reference(rows.values(), 'stale', []).length);
  });

  it("the age is this machine's clock minus the reference arrival: a minute later, more cards are older than an hour", () => {
    const db = openMemory();
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('stale_after_ms', ?)").run(String(STALE_AFTER_MS));
    const base = { lane: 'queue' as const, state: 'open', holder: null, agents: [], flags: [], project: 'p', search: '', sort_ms: 0 };
    putRow(db, { ...base, order_id: 'files-59m', files: [NOW - 3_600_000, NOW - 59 * 60_000] }); // newest file 59 min ago
    putRow(db, { ...base, order_id: 'beat-61m', state: 'claimed', heartbeat_ms: NOW - 61 * 60_000, files: [NOW - 60_000] }); // the heartbeat counts, not the newer file
    putRow(db, { ...base, order_id: 'stale-30m', state: 'stale', since_ms: NOW - 30 * 60_000, files: [NOW] }); // since − stale_after: 31 min ago
    const older = (now: number, q: string) => lanePage(db, 'queue', terms(q), null, 30, now).cards.map((c) => c.order_id);
    expect(older(NOW, 'age:>1h')).toEqual(['beat-61m']);
    expect(older(NOW + 60_000, 'age:>1h')).toEqual(['beat-61m']); // files-59m is then exactly 60 min: not older
    expect(older(NOW + 60_001, 'age:>1h')).toEqual(['beat-61m', 'files-59m']);
    expect(older(NOW, 'age:>31m')).toEqual(['beat-61m', 'files-59m']);
    expect(older(NOW, 'age:>30m')).toEqual(['beat-61m', 'files-59m', 'stale-30m']);
    expect(older(NOW, '-age:>31m')).toEqual(['stale-30m']); // ≤ 31 min: stale-30m at exactly 31
  });
});

/**
 * Vectors 06, 10, 11, 14 and 20 in one folder (no order id in two of them; one roster): 06
 * copied first, the others 1.2 s later. By their expect.json only 06's claim arrived long before
 * now (age_s 3600 against a window of 300), every other file within the window. Here the window
 * (stale_after) is chosen once the copies are done: however long the later copies took on this
 * machine (`span`), plus 0.6 s; 06's claim is then older than the window by at least 0.6 s and
 * every later file younger, so every order is where its expect.json says.
 */
async function conformanceIndex(): Promise<{ db: DB; now: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-bq-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '06-stale-no-heartbeat', 'channel'), root, { recursive: true });
  await new Promise((r) => setTimeout(r, 1200));
  const laterFrom = Date.now() - 20; // ctime's granularity is a clock tick
  for (const v of ['10-review-states', '11-give-up-ack-reopen', '14-double-run', '20-dependencies']) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  const claim = fs.statSync(path.join(root, 'tasks/ichabod-1650/claim.fang.json')).ctimeMs;
  const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).map((p) => fs.statSync(path.join(root, p)));
  const now = Math.max(...files.map((st) => st.ctimeMs)) + 50;
  const staleAfterMs = Math.ceil(now - laterFrom) + 600;
  expect(now - claim).toBeGreaterThan(staleAfterMs + 500);
  const db = openMemory();
  const ix = new Indexer({ root, db, staleAfterMs, clock: () => now, watch: false, verify: nodeVerify, workers: 0 });
  await ix.start();
  await ix.stop();
  cleanup.push(() => {
    db.close();
  });
  return { db, now };
}

const VECTORS = ['06-stale-no-heartbeat', '10-review-states', '11-give-up-ack-reopen', '14-double-run', '20-dependencies'];

describe('lanePage under a query, on a real index of conformance channels', () => {
  it("matches the orders the vectors' expect.json says, by lane, state, flag and holder; agent adds a double run's other agent", async () => {
    const { db, now } = await conformanceIndex();
    const expected = Object.assign({}, ...VECTORS.map((v) => loadExpect(v).orders ?? {})) as Record<string, { state: string; lane: string; holder: string | null; flags: string[] }>;
    const ids = (q: string) =>
      LANES.flatMap((lane) => lanePage(db, lane, terms(q), null, 100, now).cards.map((c) => c.order_id)).sort();
    const where = (f: (o: { state: string; lane: string; holder: string | null; flags: string[] }) => boolean) =>
      Object.entries(expected)
        .filter(([, o]) => f(o))
        .map(([id]) => id)
        .sort();

    // Every order is indexed where expect.json says (the premise of what follows).
    expect(ids('')).toEqual(Object.keys(expected).sort());
    for (const lane of LANES) expect(ids(`lane:${lane}`), lane).toEqual(where((o) => o.lane === lane));

    // Qualifiers against expect.json's own fields.
    expect(ids('lane:stale')).toEqual(['ichabod-1650']); // 06: stale, no_heartbeat, held by fang
    expect(ids('holder:fang')).toEqual(where((o) => o.holder === 'fang'));
    expect(ids('holder:fang')).toEqual(['e', 'g1', 'ichabod-1650', 'ra', 'rb', 't1']);
    expect(ids('holder:fang -lane:done')).toEqual(['g1', 'ichabod-1650', 'ra', 't1']);
    expect(ids('-holder:fang')).toEqual(where((o) => o.holder !== 'fang'));
    expect(ids('state:blocked')).toEqual(['b', 'c']); // 20: b waits for a; c's dependency is missing
    expect(ids('state:open state:blocked')).toEqual(['a', 'b', 'c', 'd']);
    expect(ids('lane:done -state:done')).toEqual(['g2', 'rb']); // closed, accepted
    expect(ids('flag:double_run')).toEqual(['t1']); // 14
    expect(ids('flag:gave_up flag:missing_dependency')).toEqual(['c', 'g1']);
    expect(ids('lane:attention -flag:gave_up')).toEqual(['c', 't1']);
    expect(ids('project:demo')).toEqual(Object.keys(expected).sort()); // every order.json here says project demo
    expect(ids('project:atlas')).toEqual([]);

    // agent: the holder, and (14) wisp, whose fresh heartbeat on fang's t1 is the double run.
    expect(ids('agent:fang')).toEqual(['e', 'g1', 'ichabod-1650', 'ra', 'rb', 't1']);
    expect(ids('agent:wisp')).toEqual(['g2', 'rc', 't1']);
    expect(ids('agent:wisp agent:nebra')).toEqual(['g2', 'g3', 'rc', 't1']);
    expect(ids('lane:attention -agent:fang')).toEqual(['c']);
    expect(ids('lane:attention -agent:wisp')).toEqual(['c', 'g1']);
    expect(ids('lane:stale -agent:fang')).toEqual([]);
    expect(ids('lane:stale -agent:wisp')).toEqual(['ichabod-1650']);

    // Free text: g1's give-up reason (11: "run pruned; delivery unknown"), an id.
    expect(ids('"run pruned"')).toEqual(['g1']);
    expect(ids('ichabod')).toEqual(['ichabod-1650']);
    expect(ids('-ichabod lane:stale')).toEqual([]);

    // age: ichabod-1650 is stale since its claim arrival + stale_after, so its age runs from the
    // claim (1.2 s before the rest); every other card's reference arrived within the last 0.3 s.
    expect(ids('age:>1s')).toEqual(['ichabod-1650']);
    expect(ids('age:<1s')).toEqual(where((o) => o.lane !== 'stale'));
    expect(ids('-age:>1s')).toEqual(where((o) => o.lane !== 'stale'));
    expect(ids('lane:stale age:<1s')).toEqual([]);
  });
});
