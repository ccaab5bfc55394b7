/**
 * The fleet history on a real folder and a real Indexer: GET /api/holds's rows are the holds a
 * person lists from the files (vectors 11 and 13, with a self-release, a re-queue and a supersede
 * signed by the vector identities), each with its ending, who ended it and its arrivals; the
 * filters select what they say; `claimboard holds` prints the same rows, as JSON and as CSV; a
 * silence inside a hold is seen by the live indexer.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, openWriter, type DB } from '../db';
import { Indexer } from '../indexer';
import { fitFilters, historyView, holdsPage, type HoldFilters } from './holds-queries';
import { nodeVerify } from '../disk/node-verify';
import { holdFiltersOf } from '../../api/holds-get';
import { VECTORS_DIR } from '../../../test/support/vectors';
import { ChannelBuilder } from '../../../test/support/channel-builder';
import type { HoldRow } from '../../ledger/holds';
import { holdsCsv, holdsOfChannel } from '../../../bin/holds';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

function tmp(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The files of a vector channel, relative paths. */
function filesOf(vector: string): string[] {
  const root = path.join(VECTORS_DIR, vector, 'channel');
  return fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => fs.statSync(path.join(root, p)).isFile()).sort();
}

/** The records that end a hold: written after everything else, so each arrives here after its claim. */
const ENDS = /\/(release|giveup|result|supersede)\./;

/**
 * Vectors 11 and 13, and four orders signed with the vector keys: s1 (fang released itself), r1
 * (ops re-queued nebra), w1 (ops superseded wisp's order by w1-2). Returns the root and each
 * file's ctime (its arrival here).
 */
function channel(): { root: string; ctime: (rel: string) => number } {
  const root = tmp('cb-holds-');
  const b = new ChannelBuilder()
    .order('s1')
    .claim('s1', 'fang')
    .release('s1', 'fang', 'fang', { reason: 'worker died mid-run', ferrymanName: true })
    .order('r1')
    .claim('r1', 'nebra')
    .release('r1', 'nebra', 'ops', { reason: 'requeued: stale' })
    .order('w1', { assigned_to: 'wisp' })
    .claim('w1', 'wisp')
    .order('w1-2', { assigned_to: 'nebra', supersedes: 'w1', created_at: '2026-11-20T12:00:00Z' })
    .signed('tasks/w1/supersede.ops.json', 'supersede', { order_id: 'w1', operator: 'ops', by: 'w1-2', reason: 'wisp is gone', at: '2026-11-20T12:00:00Z' }, 'ops');
  const files: [string, () => Buffer][] = [];
  for (const v of ['11-give-up-ack-reopen', '13-retired']) for (const rel of filesOf(v)) files.push([rel, () => fs.readFileSync(path.join(VECTORS_DIR, v, 'channel', rel))]);
  for (const [rel, e] of b.files) files.push([rel, () => Buffer.from(e.bytes ?? new Uint8Array())]);
  for (const [rel, bytes] of [...files.filter(([r]) => !ENDS.test(r)), ...files.filter(([r]) => ENDS.test(r))]) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), bytes());
  }
  return { root, ctime: (rel) => fs.lstatSync(path.join(root, rel)).ctimeMs };
}

async function indexed(root: string, now: number, staleAfterMs = 300_000): Promise<DB> {
  const db = openMemory();
  cleanup.push(() => db.close());
  const ix = new Indexer({ root, db, staleAfterMs, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 });
  await ix.start();
  await ix.stop();
  return db;
}

/** The filters GET /api/holds reads `search` as at `now`: a window not asked for, fitted. */
function filtersOf(db: DB, search: string, now: number): HoldFilters {
  const f = holdFiltersOf(search, now);
  if (!f.ok) throw new Error(f.reason);
  return f.filters.fitted ? fitFilters(db, f.filters, now) : f.filters;
}

/** Every page of GET /api/holds for `search`, `limit` rows a page. */
function allPages(db: DB, search: string, now: number, limit: number): HoldRow[] {
  const filters = filtersOf(db, search, now);
  const out: HoldRow[] = [];
  let cursor: string | null = null;
  do {
    const page = holdsPage(db, filters, cursor, now, limit);
    out.push(...page.holds);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return out;
}

const RUN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('GET /api/holds on a vector channel', () => {
  it('lists the holds a person reads from the files, page after page, by claim arrival', async () => {
    const { root, ctime } = channel();
    const now = Date.now() + 3_600_000;
    const db = await indexed(root, now);
    const base = { project_id: 'demo', run: null, claimed_at: '2026-11-20T09:05:00Z', beat_ms: null, beat_at: null, delivered: false };
    const claimed = (order: string, agent: string) => ctime(`tasks/${order}/claim.${agent}.json`);
    const expected: HoldRow[] = [
      { ...base, order_id: 'g1', agent: 'fang', claimed_ms: claimed('g1', 'fang'), ending: 'gave_up' as const, ended_ms: ctime('tasks/g1/giveup.fang.json'), ended_at: '2026-11-20T09:50:00Z', ended_by: 'fang', reason: 'run pruned; delivery unknown', silences: [], silent_ms: 0 },
      { ...base, order_id: 'g2', agent: 'wisp', claimed_ms: claimed('g2', 'wisp'), ending: 'gave_up' as const, ended_ms: ctime('tasks/g2/giveup.wisp.json'), ended_at: '2026-11-20T09:50:00Z', ended_by: 'wisp', reason: 'retry ceiling reached', silences: [], silent_ms: 0 },
      (() => {
        // The give-up was reopened: nebra holds g3 still, silent since its heartbeat arrived.
        const beat = ctime('tasks/g3/heartbeat.nebra.json');
        const from = Math.max(beat, claimed('g3', 'nebra'));
        return { ...base, order_id: 'g3', agent: 'nebra', run: RUN, claimed_ms: claimed('g3', 'nebra'), ending: 'held' as const, ended_ms: null, ended_at: null, ended_by: null, reason: '', beat_ms: beat, beat_at: '2026-11-20T09:06:00Z', silences: [{ from_ms: from, to_ms: now }], silent_ms: now - from };
      })(),
      { ...base, order_id: 'r1', agent: 'nebra', claimed_ms: claimed('r1', 'nebra'), ending: 'requeued' as const, ended_ms: ctime('tasks/r1/release.ops.nebra.json'), ended_at: '2026-11-20T09:40:00Z', ended_by: 'ops', reason: 'requeued: stale', silences: [], silent_ms: 0 },
      { ...base, order_id: 's1', agent: 'fang', claimed_ms: claimed('s1', 'fang'), ending: 'released_self' as const, ended_ms: ctime('tasks/s1/release.fang.json'), ended_at: '2026-11-20T09:40:00Z', ended_by: 'fang', reason: 'worker died mid-run', silences: [], silent_ms: 0 },
      { ...base, order_id: 't1', agent: 'fang', claimed_ms: claimed('t1', 'fang'), ending: 'retired' as const, ended_ms: ctime('tasks/t1/release.ops.fang.json'), ended_at: '2026-11-20T09:40:00Z', ended_by: 'ops', reason: 'retired', silences: [], silent_ms: 0 },
      { ...base, order_id: 't2', agent: 'fang', claimed_ms: claimed('t2', 'fang'), claimed_at: '2026-11-20T11:30:00Z', ending: 'held' as const, ended_ms: null, ended_at: null, ended_by: null, reason: '', silences: [{ from_ms: claimed('t2', 'fang'), to_ms: now }], silent_ms: now - claimed('t2', 'fang') },
      { ...base, order_id: 'w1', agent: 'wisp', claimed_ms: claimed('w1', 'wisp'), ending: 'superseded' as const, ended_ms: ctime('tasks/w1/supersede.ops.json'), ended_at: '2026-11-20T12:00:00Z', ended_by: 'ops', reason: 'by w1-2: wisp is gone', silences: [], silent_ms: 0 },
    ].sort((a, b) => a.claimed_ms - b.claimed_ms || (a.order_id < b.order_id ? -1 : 1));
    expect(allPages(db, '?range=24h', now, 3)).toEqual(expected);
    expect(allPages(db, '?range=24h', now, 1000)).toEqual(expected);

    // The filters: an agent, a query's qualifiers and words, an order, a window.
    const ids = (search: string) => allPages(db, search, now, 1000).map((h) => `${h.order_id}:${h.agent}`);
    const all = expected.map((h) => `${h.order_id}:${h.agent}`);
    /** These holds, in the order the rows come: by claim arrival. */
    const inOrder = (...these: string[]) => all.filter((x) => these.includes(x));
    expect(ids('?agent=fang')).toEqual(all.filter((x) => x.endsWith(':fang')));
    expect(ids('?q=-agent:fang')).toEqual(all.filter((x) => !x.endsWith(':fang')));
    expect(ids('?q=retired')).toEqual(['t1:fang']);
    expect(ids('?q=ops')).toEqual(inOrder('r1:nebra', 't1:fang', 'w1:wisp'));
    expect(ids('?q=state:gave_up')).toEqual(['g1:fang']);
    expect(ids('?q=holder:nebra')).toEqual(['g3:nebra']);
    expect(ids('?order=G2')).toEqual(['g2:wisp']);
    expect(ids('?project=demo&agent=wisp')).toEqual(inOrder('g2:wisp', 'w1:wisp'));
    expect(ids('?project=atlas')).toEqual([]);
    const first = Math.min(...expected.map((h) => h.claimed_ms));
    expect(ids(`?from=${first - 60_000}&to=${first}`)).toEqual([]);
    // Still held: in any window after its claim, however late.
    expect(ids(`?from=${now}&to=${now + 60_000}`)).toEqual(inOrder('g3:nebra', 't2:fang'));

    // What /history draws for the window: the same rows, its agents and numbers.
    const f = holdFiltersOf('?range=24h', now) as { ok: true; filters: HoldFilters };
    const view = historyView(db, f.filters, now);
    expect(view.holds).toEqual(expected);
    expect(view.total).toBe(8);
    expect(view.agents.map((a) => [a.name, a.role, a.retired, a.numbers.orders])).toEqual([
      ['fang', 'worker', true, 4],
      ['nebra', 'worker', false, 2],
      ['wisp', 'worker', false, 2],
    ]);
    expect(view.agents[0]?.numbers.endings).toEqual({ held: 1, finished: 0, released_self: 1, requeued: 0, retired: 1, gave_up: 1, superseded: 0, lost: 0 });
    // Two claims still held and silent: both turned stale 300 s after their last arrival, nobody acted yet.
    expect(view.fleet.stale).toEqual({
      went_stale: 2,
      acted: 0,
      recovered: 0,
      ended_by_agent: 0,
      waiting: 2,
      until_act_p50_ms: null,
      until_act_max_ms: null,
      longest_wait_ms: now - Math.min(...expected.flatMap((h) => h.silences.map((x) => x.from_ms))) - 300_000,
    });
  });

  it('refuses a window or a query that does not read, with the reason', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    const reason = (s: string) => {
      const f = holdFiltersOf(s, now);
      return f.ok ? 'ok' : f.reason;
    };
    expect(reason('?range=2w')).toBe('range: "2w" is not one of 1h, 24h, 7d, 30d');
    expect(reason('?from=yesterday')).toBe('from: "yesterday" is neither ms since the epoch nor an RFC 3339 time');
    expect(reason('?from=2026-11-30T12:00:00Z&to=2026-11-30T11:00:00Z')).toBe('from must be before to');
    expect(reason('?q=age:>1h')).toBe('q: age: the history has a window instead (range, from, to) (at character 1)');
    expect(reason('?q=agent:%22a%20b%22')).toBe('q: agent: "a b" is not an agent name (letters, digits, ".", "-" and "_" only) (at character 7)');
    expect(reason('?cursor=abc')).toBe('cursor: not a cursor from this API');
    expect(reason('?from=2026-11-01&to=2026-11-02')).toBe('ok');
  });
});

describe('the window fitted to the holds', () => {
  it('is the shortest range in which every hold of the last 30 days begins, by claim arrival here, under the query', async () => {
    const { root, ctime } = channel();
    const now = Date.now() + 3_600_000;
    const db = await indexed(root, now);
    const claims = ['g1/claim.fang', 'g2/claim.wisp', 'g3/claim.nebra', 'r1/claim.nebra', 's1/claim.fang', 't1/claim.fang', 't2/claim.fang', 'w1/claim.wisp'].map((c) => ctime(`tasks/${c}.json`));
    const first = Math.min(...claims);
    const H = 3_600_000;
    const D = 24 * H;
    const fit = (search: string, at: number) => {
      const f = filtersOf(db, search, at);
      return [f.range, f.fitted === true, at - f.window.from_ms, f.window.to_ms - at];
    };
    expect(fit('', first + 30 * 60_000)).toEqual(['1h', true, H, 0]);
    expect(fit('', first + H)).toEqual(['1h', true, H, 0]);
    expect(fit('', first + H + 1)).toEqual(['24h', true, D, 0]);
    expect(fit('', first + 2 * D)).toEqual(['7d', true, 7 * D, 0]);
    // g3 and t2 are still held: their claims stay in the last 30 days' holds, however late.
    expect(fit('', first + 40 * D)).toEqual(['30d', true, 30 * D, 0]);
    // wisp's holds ended (a give-up, a supersede): 31 days on, none; the longest window.
    const wispEnded = Math.max(ctime('tasks/g2/giveup.wisp.json'), ctime('tasks/w1/supersede.ops.json'));
    expect(fit('?agent=wisp', wispEnded + 31 * D)).toEqual(['30d', true, 30 * D, 0]);
    expect(allPages(db, '?agent=wisp', wispEnded + 31 * D, 1000)).toEqual([]);
    expect(allPages(db, '', wispEnded + 31 * D, 1000).map((h) => `${h.order_id}:${h.agent}`).sort()).toEqual(['g3:nebra', 't2:fang']);
    // A window asked for is taken as asked.
    expect(fit('?range=7d', first + 30 * 60_000)).toEqual(['7d', false, 7 * D, 0]);
    // The answers say so.
    const view = historyView(db, filtersOf(db, '', first + 30 * 60_000), first + 30 * 60_000);
    expect([view.range, view.fitted, view.total]).toEqual(['1h', true, 8]);
    const page = holdsPage(db, filtersOf(db, '?from=1&to=2', now), null, now);
    expect([page.range, page.fitted]).toEqual([null, false]);
  });
});

describe('an index from before the history', () => {
  it('gets the columns at its next start: migration 17 passes every folder again', async () => {
    const { root } = channel();
    const file = path.join(tmp('cb-holds-mig-'), 'index.sqlite');
    const now = Date.now() + 3_600_000;
    let db = openWriter(file);
    let ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 });
    await ix.start();
    await ix.stop();
    const want = allPages(db, '?range=24h', now, 1000);
    expect(want).toHaveLength(8);
    // Back to schema 16: the history's indexes, table and columns gone, the migration not applied.
    db.exec(`DROP INDEX holds_window; DROP INDEX holds_agent_window; DROP TABLE hold_gaps; DELETE FROM migrations WHERE id = 17;
      ${['claimed_ms', 'ended_ms', 'ending', 'project', 'search', 'beat_ms', 'delivered', 'hold'].map((c) => `ALTER TABLE holds DROP COLUMN ${c};`).join(' ')}`);
    db.close();
    db = openWriter(file);
    cleanup.push(() => db.close());
    expect(db.prepare('SELECT COUNT(*) FROM holds WHERE hold IS NULL').pluck().get()).toBe(8);
    ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 });
    await ix.start();
    await ix.stop();
    expect(db.prepare('SELECT COUNT(*) FROM holds WHERE hold IS NULL').pluck().get()).toBe(0);
    expect(allPages(db, '?range=24h', now, 1000)).toEqual(want);
  });
});

describe('an index from before the agent page read the holds', () => {
  it('migration 18 keeps, from the older per-claim reading, whether a retirement releases each order', async () => {
    const { root } = channel();
    const file = path.join(tmp('cb-holds-mig18-'), 'index.sqlite');
    const now = Date.now() + 3_600_000;
    let db = openWriter(file);
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, vanishGraceMs: 0 });
    await ix.start();
    await ix.stop();
    const rows = () => db.prepare('SELECT order_id, agent, retire FROM holds ORDER BY order_id, agent').raw().all();
    const want = rows();
    // A retirement releases what fang holds or gave up (g1, t2), nebra's held g3, wisp's give-up g2 and superseded claim w1; not a released claim.
    expect(want).toEqual([
      ['g1', 'fang', 1],
      ['g2', 'wisp', 1],
      ['g3', 'nebra', 1],
      ['r1', 'nebra', 0],
      ['s1', 'fang', 0],
      ['t1', 'fang', 0],
      ['t2', 'fang', 1],
      ['w1', 'wisp', 1],
    ]);
    // Back to schema 17: the older reading's ended as it read these claims (a release of any kind first, then a result, a give-up; else held or lost).
    const ended: Record<string, string | null> = { g1: 'gave_up', g2: 'gave_up', g3: null, r1: 'released', s1: 'released', t1: 'released', t2: null, w1: 'lost' };
    db.exec('ALTER TABLE holds ADD COLUMN history TEXT; ALTER TABLE holds DROP COLUMN retire; DELETE FROM migrations WHERE id = 18;');
    const set = db.prepare('UPDATE holds SET history = ? WHERE order_id = ?');
    for (const [id, e] of Object.entries(ended)) set.run(JSON.stringify({ order_id: id, ended: e }), id);
    db.close();
    db = openWriter(file);
    cleanup.push(() => db.close());
    expect(rows()).toEqual(want);
    expect(db.prepare("SELECT COUNT(*) FROM pragma_table_info('holds') WHERE name = 'history'").pluck().get()).toBe(0);
  });
});

describe('claimboard holds', () => {
  it('prints the rows GET /api/holds answers: as JSON, and as CSV through the real command', async () => {
    const { root } = channel();
    const now = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    const db = await indexed(root, now);
    const api = allPages(db, '?range=7d', now, 1000);
    expect(api).toHaveLength(8);
    const cli = await holdsOfChannel(root, { range: '7d', now, staleAfterMs: 300_000 });
    expect(cli.holds).toEqual(api);
    expect([cli.from_ms, cli.to_ms, cli.range, cli.fitted, cli.now_ms, cli.stale_after_ms]).toEqual([now - 7 * 86_400_000, now, '7d', false, now, 300_000]);
    // No window: the one fitted to the holds, as GET /api/holds and /history have it (the claims arrived about 2 h before `later`).
    const later = now + 3_600_000;
    const fitted = await holdsOfChannel(root, { now: later, staleAfterMs: 300_000 });
    expect([fitted.range, fitted.fitted, fitted.from_ms, fitted.holds.length]).toEqual(['24h', true, later - 86_400_000, 8]);

    const r = spawnSync(process.execPath, [path.join(import.meta.dirname, '../../../bin/claimboard.mjs'), 'holds', root, '--range', '7d', '--csv', '--now', new Date(now).toISOString()], { encoding: 'utf8', timeout: 300_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(holdsCsv(api));
    const lines = r.stdout.split('\r\n');
    expect(lines[0]).toBe('order_id,agent,project_id,run,claimed_arrival,claimed_at,ended_arrival,ended_at,ending,ended_by,reason,delivered,silent_ms,claimed_ms,ended_ms');
    const w1 = lines.find((l) => l.startsWith('w1,'));
    const h = api.find((x) => x.order_id === 'w1');
    const iso = (ms: number | null | undefined) => new Date(Math.trunc(ms ?? 0)).toISOString();
    expect(w1).toBe(`w1,wisp,demo,,${iso(h?.claimed_ms)},2026-11-20T09:05:00Z,${iso(h?.ended_ms)},2026-11-20T12:00:00Z,superseded,ops,by w1-2: wisp is gone,false,0,${h?.claimed_ms},${h?.ended_ms}`);
    expect(lines).toHaveLength(api.length + 2); // a header, a line per hold, '' after the last CRLF
  });
});

describe('silences inside a hold, seen by the live indexer', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Rewrites fang's heartbeat on t1 (a temp file renamed over it, as ferry writes it); returns its arrival here. */
  function beat(root: string, run: string): number {
    const file = path.join(root, 'tasks/t1/heartbeat.fang.json');
    const hb = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    hb.run = run;
    const t = path.join(root, 'tasks/t1/.hb.tmp');
    fs.writeFileSync(t, JSON.stringify(hb));
    fs.renameSync(t, file);
    return fs.lstatSync(file).ctimeMs;
  }

  it('a heartbeat arriving more than stale_after after the one before, of any run, ends a silence inside the hold', async () => {
    const root = tmp('cb-holds-gap-');
    fs.cpSync(path.join(VECTORS_DIR, '03-claimed-fresh', 'channel'), root, { recursive: true });
    const db = openMemory();
    cleanup.push(() => db.close());
    const ix = new Indexer({ root, db, staleAfterMs: 250, watch: false, verify: nodeVerify });
    cleanup.push(() => void ix.stop());
    await ix.start();
    const pass = () => {
      ix.request(null);
      ix.pump();
    };
    const a0 = beat(root, 'run-1');
    pass();
    await sleep(50);
    const a1 = beat(root, 'run-1');
    pass();
    await sleep(400);
    // A new run (the worker restarted) after a silence: the silence counts all the same.
    const a2 = beat(root, 'run-2');
    pass();
    // Timers are never early (the kernel's ctime tick at most 10 ms): a2 came more than 250 ms after a1.
    expect(a2 - a1).toBeGreaterThan(250);
    // Each wait longer than stale_after, and only those, is a silence (the 50 ms one too on a machine that slow).
    const waits = [[a0, a1], [a1, a2]].filter(([x, y]) => (y as number) - (x as number) > 250);
    expect(db.prepare('SELECT order_id, agent, from_ms, to_ms FROM hold_gaps ORDER BY from_ms').all()).toEqual(waits.map(([x, y]) => ({ order_id: 't1', agent: 'fang', from_ms: x, to_ms: y })));
    const f = holdFiltersOf('?range=24h', Date.now()) as { ok: true; filters: HoldFilters };
    const row = holdsPage(db, f.filters, null, a2, 10).holds[0];
    expect([row?.run, row?.silences, row?.silent_ms]).toEqual(['run-2', waits.map(([x, y]) => ({ from_ms: x, to_ms: y })), waits.reduce((n, [x, y]) => n + (y as number) - (x as number), 0)]);
  });
});
