import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveChannel, type ChannelState } from '../ledger/channel';
import { nodeVerify } from '../index/disk/node-verify';
import { readChannel } from '../index/disk/read-channel';
import { parseTimestamp } from '../ledger/time';
import { generateSeed, publicKeyOf, readKeyFile, writeKeyFile, writerTime, type Identity } from './identity';
import {
  ferryAckTime,
  writeAck,
  writeAgent,
  writeClaim,
  writeGiveup,
  writeHeartbeat,
  writeInterrupt,
  writeInterruptAck,
  writeOrder,
  writeRecommendation,
  writeRelease,
  writeReopen,
  writeResult,
  writeRetirement,
  writeReview,
} from './write';
import { appendLedgerLine } from './ledger-line';
import { removeOwnClaim, removeOwnHeartbeat } from './remove-own';
import { ChannelWriteError } from './write-error';

const HOUR = 3_600_000;
const STALE = 300_000;

let root: string;
let tmp: string;
const id = (name: string, clockOffsetMs = 0): Identity => ({ name, seedHex: generateSeed(), clockOffsetMs });
let ops: Identity;
let fang: Identity;
let wisp: Identity;
let nebra: Identity;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-'));
  root = path.join(tmp, 'channel');
  fs.mkdirSync(root);
  ops = id('ops');
  fang = id('fang');
  wisp = id('wisp', 3 * HOUR);
  nebra = id('nebra', -2 * HOUR);
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
  for (const a of [fang, wisp, nebra]) writeAgent(root, { name: a.name, role: 'worker', publicKey: publicKeyOf(a) });
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Derives the folder with tweetnacl; `laterMs` moves this machine's clock forward. */
function derive(laterMs = 0, staleAfterMs = STALE): ChannelState {
  return deriveChannel(readChannel(root), { nowMs: Date.now() + laterMs, staleAfterMs, verify: nodeVerify });
}
function card(state: ChannelState, orderId: string) {
  const c = state.orders.find((o) => o.order_id === orderId);
  if (!c) throw new Error(`no card ${orderId}`);
  return c;
}
function clean(state: ChannelState): ChannelState {
  expect(state.problems).toEqual([]);
  for (const r of Object.values(state.ledger)) expect(r.intact).toBe(true);
  return state;
}
const order = (orderId: string, extra: Partial<Parameters<typeof writeOrder>[2]> = {}) =>
  writeOrder(root, ops, { id: orderId, project_id: 'atlas', payload: { task: `do ${orderId}`, n: 1.5 }, ...extra });
const run = { run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4242 };

describe('record writers', () => {
  it('writes ferryman shapes, signed over the §3.1 payload, as pretty JSON with no temp files left', () => {
    order('t1', { requires_review: true, depends_on: [], result_contract: { required: ['summary'] } });
    const text = fs.readFileSync(path.join(root, 'tasks/t1/order.json'), 'utf8');
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([
      'id',
      'project_id',
      'issued_by',
      'created_at',
      'payload',
      'requires_review',
      'requires_approval',
      'result_contract',
      'signed_by',
      'signature',
    ]);
    expect(json.signed_by).toBe('ops');
    expect(text).toContain('\n  "id": "t1"');
    const dots = fs.readdirSync(path.join(root, 'tasks/t1')).filter((n) => n.startsWith('.'));
    expect(dots).toEqual([]);
    const s = clean(derive());
    expect(card(s, 't1')).toMatchObject({ state: 'open', lane: 'queue', holder: null, flags: [] });
  });

  it('renders timestamps on the writer clock (offset added), RFC 3339 UTC with Z', () => {
    const at = Date.parse('2026-11-20T09:00:00Z');
    expect(writerTime(wisp, at)).toBe('2026-11-20T12:00:00.000Z');
    expect(writerTime(nebra, at)).toBe('2026-11-20T07:00:00.000Z');
    order('t1');
    writeClaim(root, wisp, 't1', { atMs: at });
    const claim = JSON.parse(fs.readFileSync(path.join(root, 'tasks/t1/claim.wisp.json'), 'utf8')) as { claimed_at: string };
    expect(claim.claimed_at).toBe('2026-11-20T12:00:00.000Z');
    expect(parseTimestamp(claim.claimed_at).ok).toBe(true);
  });

  it('refuses to replace write-once records, and to write into an order that does not exist', () => {
    order('t1');
    writeClaim(root, fang, 't1');
    expect(() => writeClaim(root, fang, 't1')).toThrowError(ChannelWriteError);
    expect(() => order('t1')).toThrow(/already exists/);
    expect(() => writeClaim(root, fang, 'nope')).toThrow(/no order nope/);
    expect(() => writeClaim(root, { ...fang, name: 'bad/name' }, 't1')).toThrow(/not a safe name/);
    // heartbeats are rewritten in place
    writeHeartbeat(root, fang, 't1', run);
    writeHeartbeat(root, fang, 't1', { ...run, pid: 4243 });
    expect(fs.readdirSync(path.join(root, 'tasks/t1')).sort()).toEqual(['claim.fang.json', 'heartbeat.fang.json', 'order.json']);
    clean(derive());
  });
});

describe('what only ferry writes', () => {
  it('an interrupt acknowledgement: unsigned, keys alphabetical, +00:00, no trailing newline, rewritten in place', () => {
    const at = Date.parse('2026-12-01T08:34:50.700Z');
    expect(ferryAckTime(fang, at)).toBe('2026-12-01T08:34:50.700+00:00');
    expect(ferryAckTime(wisp, Date.parse('2026-12-01T08:34:50Z'))).toBe('2026-12-01T11:34:50+00:00'); // chrono prints no fraction for whole seconds
    order('t1');
    writeInterrupt(root, ops, 't1', 'kill', 'Not wanted after all.');
    const w = writeInterruptAck(root, fang, 't1', 'ops', { atMs: at });
    expect(w.rel).toBe('tasks/t1/interrupt.ops.fang.acked.json');
    const text = fs.readFileSync(w.path, 'utf8');
    expect(text).toBe(
      '{\n  "acknowledged_at": "2026-12-01T08:34:50.700+00:00",\n  "agent": "fang",\n  "issued_by": "ops",\n  "order_id": "t1"\n}',
    );
    writeInterruptAck(root, fang, 't1', 'ops', { atMs: at + 1000 });
    expect(JSON.parse(fs.readFileSync(w.path, 'utf8'))).toMatchObject({ acknowledged_at: '2026-12-01T08:34:51.700+00:00' });
    const s = clean(derive());
    expect(s.views.get('t1')?.folder.interruptAcks.map((a) => a.record.agent)).toEqual(['fang']);
    expect(() => writeInterruptAck(root, fang, 'nope', 'ops')).toThrow(/no order nope/);
  });

  it("a release under ferry's own name is rewritten, claimboard's is write-once", () => {
    order('t1');
    writeClaim(root, fang, 't1');
    const at = Date.parse('2026-12-01T09:00:00Z');
    writeRelease(root, fang, 't1', 'fang', 'orphaned at startup', { fileName: 'ferryman', atMs: at });
    writeRelease(root, fang, 't1', 'fang', 'worker died mid-run', { fileName: 'ferryman', atMs: at + 60_000 });
    expect(JSON.parse(fs.readFileSync(path.join(root, 'tasks/t1/release.fang.json'), 'utf8'))).toMatchObject({
      reason: 'worker died mid-run',
      at: '2026-12-01T09:01:00.000Z',
      signed_by: 'fang',
    });
    writeRelease(root, ops, 't1', 'fang', 'requeued: stale');
    expect(() => writeRelease(root, ops, 't1', 'fang', 'again')).toThrow(/already exists/);
    clean(derive());
  });

  it("deletes only the writer's own claim and heartbeat, and says when there was none", () => {
    order('t1');
    writeClaim(root, fang, 't1');
    writeClaim(root, wisp, 't1');
    writeHeartbeat(root, fang, 't1', run);
    expect(removeOwnHeartbeat(root, fang, 't1')).toBe(true);
    expect(removeOwnClaim(root, fang, 't1')).toBe(true);
    expect(removeOwnClaim(root, fang, 't1')).toBe(false);
    expect(fs.readdirSync(path.join(root, 'tasks/t1')).sort()).toEqual(['claim.wisp.json', 'order.json']);
    expect(() => removeOwnClaim(root, { ...fang, name: '../x' }, 't1')).toThrow(/not a safe name/);
  });
});

describe('sequences derive as docs/channel-format.md predicts', () => {
  it('claim without heartbeat: claimed, then stale no_heartbeat after stale_after', () => {
    order('t1');
    writeClaim(root, fang, 't1');
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'claimed', lane: 'running', holder: 'fang' });
    expect(card(clean(derive(STALE + 5_000)), 't1')).toMatchObject({ state: 'stale', lane: 'stale', reason: 'no_heartbeat' });
  });

  it('a skewed clock is not staleness: wisp +3h claims and heartbeats, still claimed', () => {
    order('t1');
    writeClaim(root, wisp, 't1');
    writeHeartbeat(root, wisp, 't1', run);
    const c = card(clean(derive()), 't1');
    expect(c).toMatchObject({ state: 'claimed', holder: 'wisp', holder_fresh: true });
    expect(c.heartbeat?.at.startsWith(writerTime(wisp).slice(0, 13))).toBe(true);
  });

  it('heartbeat then result: done with target result:1', () => {
    order('t1');
    writeClaim(root, fang, 't1');
    writeHeartbeat(root, fang, 't1', run);
    writeResult(root, fang, 't1', 1, { summary: 'built', artifacts: ['api.tar.gz'] });
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'done', lane: 'done', target: 'result:1', latest_revision: 1 });
  });

  it('review loop: awaiting_review, changes_requested, awaiting_review, accepted', () => {
    order('t1', { requires_review: true });
    writeClaim(root, nebra, 't1');
    writeResult(root, nebra, 't1', 1, { summary: 'v1' });
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'awaiting_review', lane: 'review' });
    writeReview(root, ops, 't1', 1, false, 'tests missing');
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'changes_requested', lane: 'queue', holder: 'nebra' });
    writeResult(root, nebra, 't1', 2, { summary: 'v2' });
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'awaiting_review', latest_revision: 2 });
    writeReview(root, ops, 't1', 2, true);
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'accepted', lane: 'done', target: 'review:2' });
  });

  it('give-up, ack (closed), reopen of the give-up (claimed again), done, then a second reopen by the same operator', () => {
    order('t1');
    writeClaim(root, fang, 't1');
    writeHeartbeat(root, fang, 't1', run);
    const g = writeGiveup(root, fang, 't1', { run: run.run, reason: 'run ceiling reached', attempts: 3 });
    expect(card(clean(derive()), 't1')).toMatchObject({
      state: 'gave_up',
      lane: 'attention',
      flags: ['gave_up'],
      reason: 'run ceiling reached',
      target: `giveup:${g.digest}`,
    });
    writeAck(root, ops, 't1', `giveup:${g.digest}`, 'seen; shelving it');
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'closed', lane: 'done' });
    writeReopen(root, ops, 't1', `giveup:${g.digest}`, 'try again with more memory');
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'claimed', lane: 'running', holder: 'fang' });
    writeResult(root, fang, 't1', 1, { summary: 'done' });
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'done', target: 'result:1' });
    // One reopen file per operator per order: reopening result:1 REPLACES the
    // reopen of the give-up, so the acked give-up holds again and the order reads `closed`.
    writeReopen(root, ops, 't1', 'result:1', 'broke prod');
    expect(card(clean(derive()), 't1')).toMatchObject({ state: 'closed', holder: 'fang' });

    order('t2');
    writeClaim(root, wisp, 't2');
    writeHeartbeat(root, wisp, 't2', run);
    writeResult(root, wisp, 't2', 1, { summary: 'v1' });
    writeReopen(root, ops, 't2', 'result:1', 'changelog misses the API break');
    expect(card(clean(derive()), 't2')).toMatchObject({ state: 'claimed', lane: 'running', holder: 'wisp' });
    writeResult(root, wisp, 't2', 2, { summary: 'v2' });
    expect(card(clean(derive()), 't2')).toMatchObject({ state: 'done', target: 'result:2' });
  });

  it('releases under both file names return the order to the queue', () => {
    order('t1');
    order('t2');
    writeClaim(root, fang, 't1');
    writeClaim(root, wisp, 't2');
    writeRelease(root, ops, 't1', 'fang', 'requeued: stale');
    writeRelease(root, wisp, 't2', 'wisp', 'run pruned', { fileName: 'ferryman' });
    const s = clean(derive());
    expect(card(s, 't1')).toMatchObject({ state: 'open', lane: 'queue', holder: null });
    expect(card(s, 't2')).toMatchObject({ state: 'open', holder: null });
    expect(fs.existsSync(path.join(root, 'tasks/t1/release.ops.fang.json'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'tasks/t2/release.wisp.json'))).toBe(true);
  });

  it('double run: the earliest claim holds, the other fresh heartbeat flags double_run', () => {
    const t = Date.now();
    order('t1');
    writeClaim(root, fang, 't1', { atMs: t - 60_000 });
    writeClaim(root, nebra, 't1', { atMs: t + 2 * HOUR }); // nebra's clock is 2 h behind: still later
    writeHeartbeat(root, fang, 't1', run);
    writeHeartbeat(root, nebra, 't1', { run: 'ffff', pid: 7 });
    expect(card(clean(derive()), 't1')).toMatchObject({
      state: 'claimed',
      holder: 'fang',
      lane: 'attention',
      flags: ['double_run'],
      other_runs: ['nebra'],
    });
  });

  it('late result, released assignee, retired holder, blocked dependency', () => {
    order('late');
    writeClaim(root, wisp, 'late');
    writeRelease(root, ops, 'late', 'wisp', 'requeued: stale');
    writeResult(root, wisp, 'late', 1, { summary: 'finished anyway' });

    order('assigned', { assigned_to: 'nebra' });
    expect(card(clean(derive()), 'assigned')).toMatchObject({ state: 'offered', holder: 'nebra', flags: [] });
    writeClaim(root, nebra, 'assigned');
    writeRelease(root, ops, 'assigned', 'nebra', 'requeued: stale');

    order('retired-one');
    writeClaim(root, fang, 'retired-one');
    order('retired-delivered', { requires_review: true });
    writeClaim(root, fang, 'retired-delivered');
    writeResult(root, fang, 'retired-delivered', 1, { summary: 'x' });
    writeRetirement(root, ops, 'fang', 'machine rebuilt');

    order('dep');
    order('child', { depends_on: ['dep'] });

    const s = clean(derive());
    expect(card(s, 'late')).toMatchObject({ state: 'open', lane: 'attention', flags: ['late_result'] });
    expect(card(s, 'assigned')).toMatchObject({ state: 'offered', lane: 'attention', flags: ['released_assignee'] });
    expect(card(s, 'retired-one')).toMatchObject({ state: 'claimed', lane: 'attention', flags: ['retired_holder'] });
    // delivered work of a retired holder waits for its review like any other (nothing left to finish)
    expect(card(s, 'retired-delivered')).toMatchObject({ state: 'awaiting_review', lane: 'review', flags: [] });
    expect(card(s, 'child')).toMatchObject({ state: 'blocked', lane: 'queue' });

    writeClaim(root, wisp, 'dep');
    writeResult(root, wisp, 'dep', 1, { summary: 'ok' });
    expect(card(clean(derive()), 'child')).toMatchObject({ state: 'open', lane: 'queue' });
  });

  it('interrupts and recommendations verify and do not change the state', () => {
    order('t1', { requires_review: true });
    writeClaim(root, fang, 't1');
    writeResult(root, fang, 't1', 1, { summary: 'x' });
    writeRecommendation(root, wisp, 't1', 1, true, 'looks right');
    writeInterrupt(root, ops, 't1', 'pause', 'hold for the freeze');
    const s = clean(derive());
    expect(card(s, 't1')).toMatchObject({ state: 'awaiting_review' });
    expect(s.views.get('t1')?.recommendations).toHaveLength(1);
    expect(s.views.get('t1')?.interrupts).toHaveLength(1);
  });
});

describe('ledger lines', () => {
  it('chains prev over the exact previous line and verifies', () => {
    const a = appendLedgerLine(root, ops, { kind: 'order', summary: 'issued t1', reference: 't1' });
    appendLedgerLine(root, ops, { kind: 'note', summary: 'hello' });
    const c = appendLedgerLine(root, ops, { kind: 'release', summary: 'released fang on t1', reference: 't1' });
    const lines = new TextDecoder().decode(c.bytes).split('\n');
    expect(lines).toHaveLength(4); // 3 lines + trailing newline
    expect(new TextDecoder().decode(c.bytes).startsWith(new TextDecoder().decode(a.bytes))).toBe(true);
    appendLedgerLine(root, wisp, { kind: 'claim', summary: 'claimed t1', reference: 't1' });
    const s = clean(derive());
    expect(s.ledger['ledger.ops.jsonl']).toMatchObject({ entries: 3, intact: true });
    expect(s.ledger['ledger.wisp.jsonl']).toMatchObject({ entries: 1, intact: true });
  });
});

describe('key files', () => {
  it('writes hex seed + newline with mode 0600 and refuses to overwrite', () => {
    const file = path.join(tmp, 'keys', 'ops.key');
    writeKeyFile(file, ops.seedHex);
    expect(fs.readFileSync(file, 'utf8')).toBe(ops.seedHex + '\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readKeyFile(file)).toBe(ops.seedHex);
    expect(() => writeKeyFile(file, generateSeed())).toThrow(/already exists/);
    expect(readKeyFile(file)).toBe(ops.seedHex);
  });
});
