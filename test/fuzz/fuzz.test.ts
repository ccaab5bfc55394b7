/**
 * The hostile-folder fuzzer inside the test command: a short bounded run on fixed
 * seeds, the fixed-seed regressions of what it found, and an exhaustive truncation sweep.
 * `npm run fuzz` runs the same rounds for longer (bench/fuzz.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addRound, emptyTotals, fuzzRound } from './harness';
import { baseChannel, LEDGER_PROBLEM_CODES, planRound, roundSeed, truncations } from './mutate';
import { ChannelBuilder } from '../support/channel-builder';
import { deriveChannel, type ChannelEntry } from '../../lib/ledger/channel';
import { classifyPath } from '../../lib/ledger/names';
import { laneOf, type Card } from '../../lib/ledger/derive';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { channelStateOf } from '../../lib/index/channel-state';
import { openMemory, openWriter, type DB } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-fuzz-test-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('hostile folders (bounded fuzz run)', () => {
  it('2,000 hostile files on fixed seeds: no crash, no hang, no invariant broken', async () => {
    const totals = emptyTotals();
    for (let round = 0; totals.files < 2000; round++) {
      addRound(totals, await fuzzRound(roundSeed(20261130, round), work, { count: 100, boundMs: 30_000 }));
    }
    console.log(
      `fuzz: ${totals.rounds} rounds, ${totals.files} files fuzzed, ${totals.codes.size} distinct problem codes (${[...totals.codes].sort().join(', ')}), ` +
        `${totals.violations.length} violations, ${totals.crashes.length} crashes, ${totals.ops.size} operators`,
    );
    expect(totals.crashes).toEqual([]);
    expect(totals.violations).toEqual([]);
    expect(totals.files).toBeGreaterThanOrEqual(2000);
    // The run reaches every code a folder alone can produce (key_changed needs a pin from an earlier index).
    expect([...totals.codes].sort()).toEqual([...LEDGER_PROBLEM_CODES].filter((c) => c !== 'key_changed').sort());
    expect(fs.readdirSync(work)).toEqual([]); // every round removed its folder
  });
});

describe('fixed-seed regressions', () => {
  // Each seed's plan holds the operator that found a bug; the round must now pass.
  const cases: [number, string, string][] = [
    [3047166223, 'case:order-dir', 'a second directory for one order in other case (tasks/O-RELEASED beside tasks/o-released) was silently ignored'],
    [3228278248, 'case:order-dir', 'the case variant decided which folder the index kept: incremental and cold indexes differed'],
    [3532462451, 'case:order-dir', 'an incremental index gave the order to the case variant that arrived later'],
    [2018716343, 'name:not-utf8', 'file and folder names that are not UTF-8 were dropped silently (readdir returns U+FFFD, lstat fails)'],
    [99862140, 'name:not-utf8', 'the index dropped a file named in invalid UTF-8 while channelStateOf reported it'],
    [461975230, 'name:not-utf8-dir', 'an order folder named in invalid UTF-8 vanished from the index'],
    [2091501570, 'in-place:layout-dir-symlink', 'retirements/ replaced by a symlink out of the folder: its retirements vanished with no problem'],
    [2504060787, 'in-place:layout-dir-file', 'a file where the retirements/ folder belongs was silently ignored'],
    [2113847148, 'in-place:layout-dir-fifo', 'a FIFO where the retirements/ folder belongs was silently ignored'],
    [447073336, 'case:agent-file', "agents/NEBRA.json naming \"nebra\" with another key sorted first and took over nebra's key and role"],
  ];
  for (const [seed, op, what] of cases) {
    it(`seed ${seed}: ${what}`, async () => {
      expect(planRound(seed, 25).hostile.map((h) => h.op)).toContain(op);
      const r = await fuzzRound(seed, work, { count: 25 });
      expect(r.crashes).toEqual([]);
      expect(r.violations).toEqual([]);
    });
  }
});

describe('case-variant order folders', () => {
  const copy = (b: ChannelBuilder, from: string, to: string) => {
    for (const [p, e] of [...b.files]) if (p.startsWith(`tasks/${from}/`)) b.raw(`tasks/${to}/${p.slice(from.length + 7)}`, e.bytes ?? '');
  };
  it('the folder already in canonical form keeps the order; the other is one invalid problem and is not read', () => {
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang');
    const clean = b.card('t1');
    copy(b, 't1', 'T1');
    b.release('T1', 'fang', 'ops'); // would re-queue the order, if the copy were read
    const d = b.derive();
    expect(d.orders.map((c) => c.order_id)).toEqual(['t1']);
    expect(d.orders[0]).toEqual(clean);
    expect(d.problems.map((p) => [p.path, p.problem])).toEqual([['tasks/T1', 'invalid']]);
    expect(d.problems[0]?.detail).toMatch(/another directory \(tasks\/t1\) holds order t1/);
  });
  it('a folder in other case alone is the order; two variants without the canonical one: the first by name keeps it', () => {
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang');
    copy(b, 't1', 'T1');
    for (const p of [...b.files.keys()]) if (p.startsWith('tasks/t1/')) b.files.delete(p);
    expect(b.derive().problems).toEqual([]);
    expect(b.card('t1').holder).toBe('fang');
    const c = new ChannelBuilder().roster().order('ab');
    copy(c, 'ab', 'aB');
    copy(c, 'ab', 'Ab');
    for (const p of [...c.files.keys()]) if (p.startsWith('tasks/ab/')) c.files.delete(p);
    expect(c.derive().problems.map((p) => p.path)).toEqual(['tasks/aB']);
  });
  it('the index decides as the derivation does, cold and incremental, whichever folder arrives first', async () => {
    const root = fs.mkdtempSync(path.join(work, 'case-'));
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang').order('t2');
    copy(b, 't1', 'T1');
    b.release('T1', 'fang', 'ops');
    const put = (p: string) => {
      const e = b.files.get(p) as ChannelEntry;
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), e.bytes ?? '');
    };
    const now = Date.now();
    const index = async (db: DB) => {
      // The clock stands still: no grace for vanished files (it would never end).
      const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, workers: 0, vanishGraceMs: 0 });
      await ix.start();
      return ix;
    };
    const settle = (ix: Indexer) => {
      for (let i = 0; i < 2; i++) {
        ix.request(null);
        ix.pump();
      }
    };
    const board = (db: DB) => ({
      cards: db.prepare('SELECT order_id, state, holder, card FROM cards ORDER BY order_id').all(),
      problems: db.prepare('SELECT path, problem, detail FROM problems ORDER BY path').all(),
    });
    // The variant first, then the canonical folder arrives; then the canonical folder goes away.
    for (const p of b.files.keys()) if (!p.startsWith('tasks/t1/')) put(p);
    const inc = openMemory();
    const ix = await index(inc);
    expect((inc.prepare("SELECT order_dir FROM cards WHERE order_id = 't1'").get() as { order_dir: string }).order_dir).toBe('T1');
    for (const p of b.files.keys()) if (p.startsWith('tasks/t1/')) put(p);
    settle(ix);
    const cold = openMemory();
    await (await index(cold)).stop();
    expect(board(inc)).toEqual(board(cold));
    const state = channelStateOf(root, { nowMs: now });
    expect(board(cold).cards.map((c) => JSON.parse((c as { card: string }).card) as Card)).toEqual(state.orders);
    expect(state.problems.map((p) => p.path)).toEqual(['tasks/T1']);
    fs.rmSync(path.join(root, 'tasks/t1'), { recursive: true });
    settle(ix);
    await ix.stop();
    const after = channelStateOf(root, { nowMs: now });
    expect(after.orders.find((c) => c.order_id === 't1')?.state).toBe('open'); // the variant's release now counts
    expect(board(inc).cards.map((c) => JSON.parse((c as { card: string }).card) as Card)).toEqual(after.orders);
    expect(board(inc).problems).toEqual([]);
  });
  it('a warm start after the canonical folder went away gives the order to its case sibling', async () => {
    const root = fs.mkdtempSync(path.join(work, 'case-warm-'));
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang');
    copy(b, 't1', 'T1');
    b.release('T1', 'fang', 'ops');
    for (const [p, e] of b.files) {
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), e.bytes ?? '');
    }
    const file = path.join(root, '..', `${path.basename(root)}.sqlite`);
    const now = Date.now();
    const run = async () => {
      const db = openWriter(file);
      const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => now, watch: false, verify: nodeVerify, workers: 0 });
      await ix.start();
      await ix.stop();
      const cards = (db.prepare('SELECT card FROM cards ORDER BY order_id').all() as { card: string }[]).map((r) => JSON.parse(r.card) as Card);
      const problems = db.prepare('SELECT path, problem FROM problems ORDER BY path').all();
      db.close();
      return { cards, problems };
    };
    const first = await run();
    expect(first.cards.map((c) => c.state)).toEqual(['claimed']);
    expect(first.problems).toEqual([{ path: 'tasks/T1', problem: 'invalid' }]);
    fs.rmSync(path.join(root, 'tasks/t1'), { recursive: true });
    const warm = await run();
    expect(warm.cards).toEqual(channelStateOf(root, { nowMs: now }).orders);
    expect(warm.cards.map((c) => c.state)).toEqual(['open']);
    expect(warm.problems).toEqual([]);
  });
});

describe('roster case variants', () => {
  it('a file name in other case never wins over the canonical entry: its key and role are not taken', () => {
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang').result('t1', 'fang', 1);
    const clean = b.derive();
    b.json('agents/Fang.json', { name: 'fang', role: 'operator', capabilities: [], public_key: clean.roster.entries.get('wisp')?.public_key });
    const d = b.derive();
    expect(d.roster.entries.get('fang')).toEqual(clean.roster.entries.get('fang'));
    expect([...d.roster.operators]).toEqual(['ops']);
    expect(d.orders).toEqual(clean.orders);
    // Alone, the variant is fang's entry.
    b.files.delete('agents/fang.json');
    expect(b.derive().roster.entries.get('fang')?.path).toBe('agents/Fang.json');
  });
});

describe('the folders of the layout itself', () => {
  it('agents/, retirements/ or tasks/ as a symlink or a file is one problem, never followed', () => {
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang');
    b.raw('retirements', '', { type: 'symlink' }).raw('tasks2', '{}');
    const d = b.derive();
    expect(d.problems.map((p) => [p.path, p.problem])).toEqual([['retirements', 'symlink']]);
    expect(d.problems[0]?.detail).toBe('a symlink where the retirements/ folder belongs; not followed');
    const c = new ChannelBuilder().roster().raw('tasks', '{}');
    expect(c.derive().problems.map((p) => [p.path, p.problem, p.detail])).toEqual([['tasks', 'invalid', 'not a folder where the tasks/ folder belongs']]);
  });
});

describe('names that are not UTF-8', () => {
  it('a file or an order folder whose name is not UTF-8 is a problem, never silently dropped', async () => {
    const root = fs.mkdtempSync(path.join(work, 'utf8-'));
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang');
    for (const [p, e] of b.files) {
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), e.bytes ?? '');
    }
    const raw = (s: string, bytes: number[], tail: string) => Buffer.concat([Buffer.from(path.join(root, s)), Buffer.from(bytes), Buffer.from(tail)]);
    fs.writeFileSync(raw('tasks/t1/claim.', [0xc0, 0xaf], '.json'), '{}');
    fs.mkdirSync(raw('tasks/x', [0xff], ''));
    fs.writeFileSync(Buffer.concat([raw('tasks/x', [0xff], ''), Buffer.from('/order.json')]), '{}');
    const s = channelStateOf(root);
    expect(s.problems.map((p) => [p.path, p.problem])).toEqual([
      ['tasks/t1/claim.\uFFFD\uFFFD.json', 'invalid'],
      ['tasks/x\uFFFD', 'invalid'],
    ]);
    expect(s.problems[0]?.detail).toMatch(/not valid UTF-8/);
    expect(s.orders[0]?.flags).toEqual(['bad_record']);
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, workers: 0 });
    await ix.start();
    await ix.stop();
    expect((db.prepare('SELECT path, problem FROM problems ORDER BY path').all() as { path: string; problem: string }[]).map((p) => [p.path, p.problem])).toEqual(
      s.problems.map((p) => [p.path, p.problem]),
    );
  });
});

describe('truncation at every offset (in memory)', () => {
  it('a record cut anywhere is one problem and its order derives as if the file were absent', () => {
    const base = baseChannel();
    const entries = base.builder.entries();
    // One file of each kind (the first by path), every offset.
    const byKind = new Map<string, string>();
    for (const f of base.files) {
      const c = classifyPath(f.path);
      if (c.class === 'record' && !byKind.has(c.kind)) byKind.set(c.kind, f.path);
    }
    const verified = new Map<string, boolean>();
    const verify = (k: string, m: string, s: string) => {
      const key = `${k}|${s}|${m}`;
      let ok = verified.get(key);
      if (ok === undefined) verified.set(key, (ok = nodeVerify(k, m, s)));
      return ok;
    };
    const derive = (es: ChannelEntry[]) => deriveChannel(es, { nowMs: base.builder.nowMs, verify });
    const quiet = (c: Card) => {
      const flags = c.flags.filter((f) => f !== 'bad_record');
      // bad_record's words name the cut file; the rest of the card must be as without it.
      const alerts = c.alerts.filter((a) => a.flag !== 'bad_record');
      return { ...c, flags, alerts, lane: laneOf(c.state, flags, c.run_lane) };
    };
    let cuts = 0;
    for (const [kind, p] of byKind) {
      // The channel level and the file's own order folder (a channel-level file: one order that uses it).
      const order = p.startsWith('tasks/') ? p.split('/')[1] : 'o-gaveup';
      const sub = entries.filter((e) => !e.path.startsWith('tasks/') || e.path.startsWith(`tasks/${order}/`) || e.path === `tasks/${order}`);
      const whole = sub.find((e) => e.path === p) as ChannelEntry;
      const without = derive(sub.filter((e) => e !== whole));
      const want = without.orders.map(quiet);
      for (const bytes of truncations(whole.bytes as Uint8Array)) {
        cuts++;
        const got = derive(sub.map((e) => (e === whole ? { ...e, bytes, size: bytes.length } : e)));
        if (kind === 'ledger') {
          // A ledger cut short is a shorter chain (intact at a line end) or broken at its last line.
          expect(got.orders).toEqual(without.orders);
          continue;
        }
        const rows = got.problems.filter((x) => x.path === p || (kind === 'order' && x.path === p.slice(0, -'/order.json'.length)));
        expect(rows.map((x) => x.problem), `${p} cut at ${bytes.length}`).toEqual(['invalid']);
        expect(got.orders.map(quiet), `${p} cut at ${bytes.length}`).toEqual(want);
      }
    }
    expect(byKind.size).toBe(14);
    expect(cuts).toBeGreaterThan(3000);
  });
});
