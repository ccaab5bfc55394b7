/**
 * Operator actions end to end on real folders: each action on its vector writes
 * the expected files, signed so they verify, and the card moves as §7 says; every refusal
 * leaves the folder byte-for-byte unchanged.
 */
import fs from 'node:fs';
import { folderSnapshot } from '../../test/support/folder';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyAction, deriveSubset, type ApplyContext } from './apply';
import { buildAction, type ActionInput } from '../ledger/actions';
import type { RefusalReason } from '../errors';
import { naclPublicKey, naclSign } from '../ledger/nacl-verify';
import { nodeVerify } from '../index/disk/node-verify';
import { channelStateOf } from '../index/channel-state';
import { ledgerPrevOf } from './write';
import { statKey } from '../index/writer/order-pass';
import { VECTORS_DIR, vectorKeys } from '../../test/support/vectors';
import { ChannelBuilder, seedOf } from '../../test/support/channel-builder';
import { nameChannel, TEST_CHANNEL } from '../../test/support/channel';

const keys = vectorKeys() as Record<string, { seed: string; public_key: string }>;
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function copy(vector: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-act-'));
  dirs.push(dir);
  fs.cpSync(path.join(VECTORS_DIR, vector, 'channel'), dir, { recursive: true });
  nameChannel(dir);
  return dir;
}


/** Writes the files of `b` not already there into `root` (a new temporary folder when absent, removed after the test); returns `root`. */
function onDisk(b: ChannelBuilder, root?: string): string {
  const dir = root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cb-act-'));
  if (!root) {
    dirs.push(dir);
    nameChannel(dir);
  }
  for (const e of b.entries()) {
    if (e.type !== 'file' || !e.bytes || fs.existsSync(path.join(dir, e.path))) continue;
    fs.mkdirSync(path.dirname(path.join(dir, e.path)), { recursive: true });
    fs.writeFileSync(path.join(dir, e.path), e.bytes);
  }
  return dir;
}

const ctxOf = (root: string, over: Partial<ApplyContext> = {}): ApplyContext => ({ root, nowMs: Date.now(), staleAfterMs: 300_000, operators: [], verify: nodeVerify, ...over });

/** Builds an action as the page would, from the current card, signed by `who`. */
function build(root: string, who: string, input: (s: ReturnType<typeof channelStateOf>) => ActionInput, ctx: ApplyContext) {
  const state = deriveSubset(ctx, null);
  const ledger = ledgerPrevOf(path.join(root, `ledger.${who}.jsonl`));
  const seed = keys[who]?.seed ?? seedOf(who);
  return buildAction(input(state), who, (p) => naclSign(seed, p), '2026-11-30T12:00:00Z', ledger.prev, TEST_CHANNEL);
}
const cardOf = (s: ReturnType<typeof channelStateOf>, id: string) => {
  const c = s.orders.find((o) => o.order_id === id);
  if (!c) throw new Error(`no ${id}`);
  return c;
};

describe('re-queue', () => {
  it('releases the stale holder\'s claim: the order goes back to the queue', () => {
    const root = copy('06-stale-no-heartbeat');
    const ctx = ctxOf(root, { nowMs: Date.now() + 3600_000 }); // an hour on: the claim is stale
    const req = build(root, 'ops', (s) => ({ action: 'requeue', card: cardOf(s, 'ichabod-1650'), note: 'fang is gone' }), ctx);
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 201, written: ['tasks/ichabod-1650/release.ops.fang.json', 'ledger.ops.jsonl'] });
    const after = channelStateOf(root, { nowMs: ctx.nowMs });
    expect(after.problems).toEqual([]);
    expect(after.ledger['ledger.ops.jsonl']).toMatchObject({ entries: 1, intact: true });
    const c = cardOf(after, 'ichabod-1650');
    expect([c.state, c.lane, c.holder]).toEqual(['open', 'queue', null]);
    const rel = JSON.parse(fs.readFileSync(path.join(root, 'tasks/ichabod-1650/release.ops.fang.json'), 'utf8')) as Record<string, unknown>;
    expect(rel).toMatchObject({ order_id: 'ichabod-1650', released: 'fang', releaser: 'ops', reason: 'requeued: fang is gone', signed_by: 'ops' });
  });
  it('is refused while the holder\'s heartbeat is fresh (422), writing nothing', () => {
    const root = copy('14-double-run');
    const ctx = ctxOf(root);
    const before = folderSnapshot(root);
    const req = build(root, 'ops', (s) => ({ action: 'requeue', card: cardOf(s, 't1'), note: 'x' }), ctx);
    const res = applyAction(req, ctx);
    expect(res.status).toBe(422);
    expect(res).toMatchObject({ reason_code: 'rule', reason: "fang's heartbeat on t1 is fresh: a live run is never stolen from" });
    expect(folderSnapshot(root)).toEqual(before);
  });
  it("after this machine's clock stepped forward an hour, a fresh heartbeat is still fresh: refused (422), writing nothing", () => {
    const root = copy('14-double-run');
    const wall = Date.now();
    // The index saw the wall clock step +1 h a second ago (the old clock then read wall - 1 h - 1 s).
    const steps = [{ before_ms: wall - 3_600_000 - 1000, delta_ms: 3_600_000 }];
    // The index's clock: the wall clock less the step.
    const stepped = ctxOf(root, { nowMs: wall - 3_600_000, clockSteps: steps });
    const before = folderSnapshot(root);
    const req = build(root, 'ops', (s) => ({ action: 'requeue', card: cardOf(s, 't1'), note: 'x' }), stepped);
    expect(applyAction(req, stepped)).toMatchObject({ status: 422, reason: "fang's heartbeat on t1 is fresh: a live run is never stolen from" });
    // Without the steps (now read off the stepped wall clock as it is) the same heartbeat is an hour old: the re-queue would steal a live run.
    expect(folderSnapshot(root)).toEqual(before);
    const other = copy('14-double-run');
    const naive = ctxOf(other, { nowMs: wall + 3_600_000 });
    const req2 = build(other, 'ops', (s) => ({ action: 'requeue', card: cardOf(s, 't1'), note: 'x' }), naive);
    expect(applyAction(req2, naive)).toMatchObject({ status: 201 });
  });
  it("after this machine's clock stepped back an hour, a claim the index already knew keeps its arrival: stale, re-queued", () => {
    const root = copy('06-stale-no-heartbeat');
    const claim = 'tasks/ichabod-1650/claim.fang.json';
    const st = fs.lstatSync(path.join(root, claim));
    const wall = Date.now();
    // The index stored the claim at its ctime, then saw the wall clock step back an hour: its clock is now wall + 1 h.
    const steps = [{ before_ms: wall, delta_ms: -3_600_000 }];
    const known = new Map([[claim, { stat: statKey(st), arrival_ms: st.ctimeMs }]]);
    const base = { nowMs: wall + 3_600_000 + 1000, clockSteps: steps, staleAfterMs: 3_600_000 };
    // Without the index's arrival the claim's ctime, within the hour before the step, reads as written after it: fresh, refused.
    const unknown = ctxOf(root, base);
    const req = build(root, 'ops', (s) => ({ action: 'requeue', card: cardOf(s, 'ichabod-1650'), note: 'x' }), ctxOf(root, { ...base, knownArrival: (rel) => known.get(rel) }));
    expect(applyAction(req, unknown)).toMatchObject({ status: 409 });
    const ctx = ctxOf(root, { ...base, knownArrival: (rel) => known.get(rel) });
    expect(applyAction(req, ctx)).toMatchObject({ status: 201, written: ['tasks/ichabod-1650/release.ops.fang.json', 'ledger.ops.jsonl'] });
  });
  it('two operators re-queueing at once (two machines) end with two valid files and one coherent card', () => {
    const a = copy('06-stale-no-heartbeat');
    fs.writeFileSync(path.join(a, 'agents/ops2.json'), JSON.stringify({ name: 'ops2', role: 'operator', capabilities: [], public_key: naclPublicKey(seedOf('ops2')) }));
    const b = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-act-'));
    dirs.push(b);
    fs.cpSync(a, b, { recursive: true }); // machine B holds the same folder
    const nowMs = Date.now() + 3600_000;
    const ca = ctxOf(a, { nowMs });
    const cb = ctxOf(b, { nowMs });
    // A third request, signed while the card still said "stale, held by fang", kept for later.
    const late = build(a, 'ops2', (s) => ({ action: 'requeue', card: cardOf(s, 'ichabod-1650'), note: 'late' }), ca);
    const ra = applyAction(build(a, 'ops', (s) => ({ action: 'requeue', card: cardOf(s, 'ichabod-1650'), note: 'from A' }), ca), ca);
    const rb = applyAction(build(b, 'ops2', (s) => ({ action: 'requeue', card: cardOf(s, 'ichabod-1650'), note: 'from B' }), cb), cb);
    expect([ra.status, rb.status]).toEqual([201, 201]);
    // Sync brings B's files to A: distinct paths, nothing overwritten.
    for (const rel of rb.written ?? []) {
      expect(fs.existsSync(path.join(a, rel))).toBe(false);
      fs.copyFileSync(path.join(b, rel), path.join(a, rel));
    }
    const after = channelStateOf(a, { nowMs });
    expect(after.problems).toEqual([]);
    expect(Object.keys(after.ledger).sort()).toEqual(['ledger.ops.jsonl', 'ledger.ops2.jsonl']);
    const c = cardOf(after, 'ichabod-1650');
    expect([c.state, c.holder]).toEqual(['open', null]);
    // Applied now, it is refused: the order is open, and the folder stays as it is.
    const before = folderSnapshot(a);
    expect(applyAction(late, ca)).toMatchObject({ status: 409, reason_code: 'card_moved', reason: 'ichabod-1650 is now open; you saw stale held by fang' });
    expect(folderSnapshot(a)).toEqual(before);
  });
});

describe('retire', () => {
  it('asks for two confirmations while a heartbeat is fresh, then writes the retirement and one release per held order', () => {
    const root = copy('14-double-run');
    const ctx = ctxOf(root);
    const before = folderSnapshot(root);
    const once = build(root, 'ops', () => ({ action: 'retire', agent: 'fang', orders: ['t1'], reason: 'machine rebuilt', confirmAlive: 1 }), ctx);
    const r1 = applyAction(once, ctx);
    expect(r1.status).toBe(422);
    expect(r1).toMatchObject({ reason_code: 'looks_alive', reason: 'fang looks alive (a heartbeat of it arrived within the stale window): confirm twice to retire it anyway' });
    expect(folderSnapshot(root)).toEqual(before);
    const twice = build(root, 'ops', () => ({ action: 'retire', agent: 'fang', orders: ['t1'], reason: 'machine rebuilt', confirmAlive: 2 }), ctx);
    const r2 = applyAction(twice, ctx);
    expect(r2).toMatchObject({ status: 201, written: ['retirements/fang.ops.json', 'tasks/t1/release.ops.fang.json', 'ledger.ops.jsonl'] });
    const after = channelStateOf(root);
    expect(after.problems).toEqual([]);
    // fang released: wisp's claim (also active, fresh heartbeat) is the holder now.
    const c = cardOf(after, 't1');
    expect([c.state, c.holder, c.flags]).toEqual(['claimed', 'wisp', ['double_run']]);
  });
  it('is refused (409) when the agent holds other orders than the operator saw', () => {
    const root = copy('04-stale-heartbeat-lapsed');
    const ctx = ctxOf(root);
    const before = folderSnapshot(root);
    const req = build(root, 'ops', () => ({ action: 'retire', agent: 'fang', orders: ['t1'], reason: 'gone', confirmAlive: 2 }), ctx);
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 409, reason_code: 'plan_changed', reason: 'fang now holds t1, t2 by an active claim with no result; you saw t1' });
    expect(folderSnapshot(root)).toEqual(before);
  });
});

describe('reopen and acknowledge', () => {
  it('reopens a done order: the result at latest no longer holds', () => {
    const root = copy('09-done');
    const ctx = ctxOf(root);
    const req = build(root, 'ops', (s) => ({ action: 'reopen', card: cardOf(s, 't1'), reason: 'output truncated' }), ctx);
    expect(req.record).toMatchObject({ target: 'result:1' });
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 201, written: ['tasks/t1/reopen.ops.json', 'ledger.ops.jsonl'] });
    const c = cardOf(channelStateOf(root), 't1');
    // fang's claim is active; it never wrote a heartbeat; the claim arrived just now: claimed.
    expect([c.state, c.holder]).toEqual(['claimed', 'fang']);
  });
  it('refuses to reopen while a dependent is working on its result (422)', () => {
    const root = copy('20-dependencies');
    // d depends on e (done); fang claims d and is running it.
    fs.writeFileSync(path.join(root, 'tasks/d/claim.fang.json'), JSON.stringify({ order_id: 'd', agent: 'fang', claimed_at: '2026-11-30T10:00:00Z' }));
    const ctx = ctxOf(root);
    const before = folderSnapshot(root);
    const req = build(root, 'ops', (s) => ({ action: 'reopen', card: cardOf(s, 'e'), reason: 'redo' }), ctx);
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 422, reason_code: 'rule', reason: 'd (claimed) depends on e and already consumed its result' });
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('acknowledges a give-up: the order is closed', () => {
    const root = copy('11-give-up-ack-reopen');
    const ctx = ctxOf(root);
    const req = build(root, 'ops', (s) => ({ action: 'ack', card: cardOf(s, 'g1'), note: 'known flaky' }), ctx);
    expect(req.record).toMatchObject({ target: 'giveup:85f2de75eb8cb995fb8f91b6c43120cbbc92ba9e51a4e2866d664119d22083fc' });
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 201, written: ['tasks/g1/ack.ops.json', 'ledger.ops.jsonl'] });
    const c = cardOf(channelStateOf(root), 'g1');
    expect([c.state, c.lane]).toEqual(['closed', 'done']);
  });
});

describe('acknowledge a late result (claimboard extension)', () => {
  // Vector 15: ops re-queued fang, whose result arrived after; ferry reads t1 open (late_result).
  const ackT1 = (root: string, ctx: ApplyContext) => build(root, 'ops', (s) => ({ action: 'ack', card: cardOf(s, 't1'), note: 'let the fleet redo it' }), ctx);

  it('writes an ack naming the late result: the flag is lowered, t1 joins the queue', () => {
    const root = copy('15-late-result');
    const ctx = ctxOf(root);
    const req = ackT1(root, ctx);
    expect(req.record).toMatchObject({ target: 'late:1:fang:open', operator: 'ops' });
    expect(applyAction(req, ctx)).toMatchObject({ status: 201, written: ['tasks/t1/ack.ops.json', 'ledger.ops.jsonl'] });
    const after = channelStateOf(root, { nowMs: ctx.nowMs });
    expect(after.problems).toEqual([]);
    const c = cardOf(after, 't1');
    expect([c.state, c.lane, c.flags]).toEqual(['open', 'queue', []]);
    expect(after.ledger['ledger.ops.jsonl']).toMatchObject({ entries: 1, intact: true });
  });
  it('an ack naming results that are not the late ones is refused (409), nothing written', () => {
    const root = copy('15-late-result');
    const ctx = ctxOf(root);
    const r = ackT1(root, ctx);
    const seed = keys.ops?.seed ?? seedOf('ops');
    // The same ack, signed over another target (as a page that saw other late results would).
    const other = buildAction({ action: 'ack', card: { ...cardOf(deriveSubset(ctx, null), 't1'), late_target: 'late:1:wisp:open' }, note: 'n' }, 'ops', (p) => naclSign(seed, p), '2026-11-30T12:00:00Z', '', TEST_CHANNEL);
    const before = folderSnapshot(root);
    const res = applyAction({ ...r, record: other.record }, ctx);
    expect(res).toMatchObject({ status: 409, reason_code: 'target_moved', reason: 'the ack names late:1:wisp:open; t1 as it is now needs one naming late:1:fang:open: reload the order and decide again' });
    expect(folderSnapshot(root)).toEqual(before);
  });
  it("replacing an operator's own ack or reopen undoes nothing: each names the decisions in force again", () => {
    // t1: fang gave up and ops acknowledged it (closed); then wisp's result made it done (a late result).
    const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang').giveup('t1', 'fang');
    const giveup = `giveup:${b.digestOf('tasks/t1/giveup.fang.json')}`;
    const root = onDisk(b.ack('t1', giveup).result('t1', 'wisp', 1));
    const ctx = ctxOf(root);
    const card = () => cardOf(channelStateOf(root, { nowMs: ctx.nowMs }), 't1');
    expect([card().state, card().flags]).toEqual(['done', ['late_result']]);
    // ops acknowledges the late result: its ack file is replaced by one naming the give-up too.
    const ack = ackT1(root, ctx);
    expect(ack.record).toMatchObject({ target: `${giveup} late:1:wisp:held:fang` });
    expect(applyAction(ack, ctx)).toMatchObject({ status: 201, written: ['tasks/t1/ack.ops.json', 'ledger.ops.jsonl'] });
    expect([card().state, card().lane, card().flags]).toEqual(['done', 'done', []]);
    // ops reopens wisp's result: the give-up is still acknowledged (closed, not gave_up).
    const reopen1 = build(root, 'ops', (s) => ({ action: 'reopen', card: cardOf(s, 't1'), reason: 'not the holder\'s work' }), ctx);
    expect(reopen1.record).toMatchObject({ target: 'result:1' });
    expect(applyAction(reopen1, ctx).status).toBe(201);
    expect([card().state, card().decided?.reopens]).toEqual(['closed', { ops: 'result:1' }]);
    // ops reopens the give-up too: its reopen file is replaced by one naming result:1 again, so wisp's result stays reopened.
    const reopen2 = build(root, 'ops', (s) => ({ action: 'reopen', card: cardOf(s, 't1'), reason: 'fang can try again' }), ctx);
    expect(reopen2.record).toMatchObject({ target: `result:1 ${giveup}` });
    expect(applyAction(reopen2, ctx).status).toBe(201);
    expect([card().state, card().holder]).toEqual(['claimed', 'fang']);
  });
  it("a lone operator's ack of a second holder's give-up keeps the first's: when the first holds again, its give-up is still acknowledged", () => {
    // fang claims t2 (09:05) and gives up; ops acknowledges it: closed.
    const first = new ChannelBuilder().roster().order('t2').claim('t2', 'fang', { claimed_at: '2026-11-20T09:05:00Z' }).giveup('t2', 'fang');
    const fangGiveup = `giveup:${first.digestOf('tasks/t2/giveup.fang.json')}`;
    const root = onDisk(first);
    const put = (b: ChannelBuilder) => onDisk(b, root);
    const ctx = ctxOf(root);
    const card = () => cardOf(channelStateOf(root, { nowMs: ctx.nowMs }), 't2');
    const ack = () => build(root, 'ops', (s) => ({ action: 'ack', card: cardOf(s, 't2'), note: 'n' }), ctx);
    expect(applyAction(ack(), ctx).status).toBe(201);
    expect(card().state).toBe('closed');
    // wisp's claim arrives, dated earlier (09:04): wisp holds t2, and gives up too; ops acknowledges that.
    const second = new ChannelBuilder().claim('t2', 'wisp', { claimed_at: '2026-11-20T09:04:00Z' }).giveup('t2', 'wisp');
    const wispGiveup = `giveup:${second.digestOf('tasks/t2/giveup.wisp.json')}`;
    put(second);
    expect([card().holder, card().state]).toEqual(['wisp', 'gave_up']);
    const req = ack();
    expect(req.record).toMatchObject({ target: `${fangGiveup} ${wispGiveup}` });
    expect(applyAction(req, ctx).status).toBe(201);
    // wisp releases itself (ferry's restart): fang holds t2 again, and its give-up is still acknowledged.
    put(new ChannelBuilder().release('t2', 'wisp', 'wisp', { reason: 'orphaned at startup' }));
    expect([card().holder, card().state, card().flags]).toEqual(['fang', 'closed', []]);
  });

  it("the server reads the orders an order depends on: an open order's late result is acknowledged, not refused as blocked", () => {
    // x depends on dep (done); wisp, released by ops, delivered x's result anyway: open, late.
    const b = new ChannelBuilder().roster().order('dep').claim('dep', 'fang').result('dep', 'fang', 1)
      .order('x', { depends_on: ['dep'] }).claim('x', 'wisp').release('x', 'wisp', 'ops', { reason: 'requeued: stale' }).result('x', 'wisp', 1);
    const root = onDisk(b);
    // As the web server calls it: only the order's folder and the related ones are read.
    const ctx = ctxOf(root, { related: { dependentsOf: () => [], claimsOf: () => [] } });
    const req = build(root, 'ops', (s) => ({ action: 'ack', card: cardOf(s, 'x'), note: 'n' }), ctxOf(root));
    expect(req.expect.order).toMatchObject({ state: 'open' });
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 201, card: { state: 'open', lane: 'queue', flags: [] } });
  });

  it('a replay once acknowledged is refused: nothing is left to acknowledge', () => {
    const root = copy('15-late-result');
    const ctx = ctxOf(root);
    const req = ackT1(root, ctx);
    expect(applyAction(req, ctx).status).toBe(201);
    const before = folderSnapshot(root);
    const res = applyAction(req, ctx);
    expect(res).toMatchObject({ status: 422, reason_code: 'rule', reason: 't1: its late result is already acknowledged' });
    expect(folderSnapshot(root)).toEqual(before);
  });
});

describe('refusals write nothing', () => {
  const ackG1 = (root: string, ctx: ApplyContext, who = 'ops') => build(root, who, (s) => ({ action: 'ack', card: cardOf(s, 'g1'), note: 'n' }), ctx);
  const cases: [string, (root: string, ctx: ApplyContext) => unknown, number, RefusalReason, RegExp][] = [
    ['a forged signature', (root, ctx) => {
      const r = ackG1(root, ctx);
      return { ...r, record: { ...r.record, note: 'changed after signing' } };
    }, 403, 'bad_signature', /^ack refused: invalid signature/],
    ['a roster agent who is not an operator', (root, ctx) => ackG1(root, ctx, 'fang'), 403, 'not_operator', /^fang is not an operator of this channel$/],
    ['a record for another order than the one seen', (root, ctx) => {
      const r = ackG1(root, ctx);
      const other = build(root, 'ops', (s) => ({ action: 'ack', card: { ...cardOf(s, 'g1'), order_id: 'g2' }, note: 'n' }), ctx);
      return { ...r, record: other.record };
    }, 400, 'mismatch', /^the ack is for g2, not g1$/],
    ['an expect that no longer holds', (root, ctx) => {
      const r = ackG1(root, ctx);
      return { ...r, expect: { ...r.expect, order: { ...r.expect.order, state: 'claimed' } } };
    }, 409, 'card_moved', /^g1 is now gave_up held by fang; you saw claimed held by fang$/],
    ['a ledger line signed against an older ledger', (root, ctx) => {
      const r = ackG1(root, ctx);
      fs.writeFileSync(path.join(root, 'ledger.ops.jsonl'), '');
      fs.appendFileSync(path.join(root, 'ledger.ops.jsonl'), build(root, 'ops', (s) => ({ action: 'ack', card: cardOf(s, 'g1'), note: 'other' }), ctx).ledger_line + '\n');
      return r;
    }, 409, 'ledger_moved', /^ledger\.ops\.jsonl has a new line since this action was signed: sign again$/],
    ['a path that would overwrite another writer\'s file', (root, ctx) => {
      fs.writeFileSync(path.join(root, 'tasks/g1/ack.ops.json'), '{"not": "ours"}');
      return ackG1(root, ctx);
    }, 409, 'in_the_way', /^tasks\/g1\/ack\.ops\.json is in the way and was not written by ops; nothing was written$/],
    ['malformed input', () => ({ action: 'ack', record: 'x' }), 400, 'malformed', /^bad request: /],
  ];
  for (const [name, make, status, code, reason] of cases) {
    it(`${name}: ${status} ${code}`, () => {
      const root = copy('11-give-up-ack-reopen');
      const ctx = ctxOf(root);
      const body = make(root, ctx);
      const before = folderSnapshot(root);
      const res = applyAction(body, ctx);
      expect(res.status).toBe(status);
      expect('reason_code' in res ? res.reason_code : null).toBe(code);
      expect('reason' in res ? res.reason : '').toMatch(reason);
      expect(folderSnapshot(root)).toEqual(before);
    });
  }
  it('a supersede whose new id is already an order: 409 id_taken, with the card', () => {
    const root = onDisk(new ChannelBuilder().roster().order('x', { assigned_to: 'fang' }).order('x-2'));
    const ctx = ctxOf(root);
    const req = build(root, 'ops', (s) => {
      const order = s.views.get('x')?.folder.order.record;
      if (!order) throw new Error('no x');
      return { action: 'supersede', card: cardOf(s, 'x'), order, newId: 'x-2', assignTo: null, reason: 'fang is gone' };
    }, ctx);
    const before = folderSnapshot(root);
    expect(applyAction(req, ctx)).toMatchObject({ status: 409, reason_code: 'id_taken', reason: 'there is already an order x-2; choose another id', card: { order_id: 'x', state: 'offered' } });
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('an act on an order whose folder is gone: 409 no_order', () => {
    const root = copy('11-give-up-ack-reopen');
    const ctx = ctxOf(root);
    const req = ackG1(root, ctx);
    fs.rmSync(path.join(root, 'tasks/g1'), { recursive: true });
    expect(applyAction(req, ctx)).toMatchObject({ status: 409, reason_code: 'no_order', reason: 'there is no order g1 in the folder now' });
  });
  it('a replay of an earlier action: 409, nothing written the second time', () => {
    const root = copy('11-give-up-ack-reopen');
    const ctx = ctxOf(root);
    const req = ackG1(root, ctx);
    expect(applyAction(req, ctx).status).toBe(201);
    const before = folderSnapshot(root);
    const again = applyAction(req, ctx);
    expect(again).toMatchObject({ status: 409, reason_code: 'card_moved', reason: 'g1 is now closed held by fang; you saw gave_up held by fang' });
    expect(folderSnapshot(root)).toEqual(before);
  });
});
