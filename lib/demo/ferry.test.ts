import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveChannel, type ChannelState } from '../ledger/channel';
import { nodeVerify } from '../index/disk/node-verify';
import { readChannel } from '../index/disk/read-channel';
import { compareTimestamps, parseTimestamp } from '../ledger/time';
import { channelRetire, claimOrder, readFerryView, startRun, submitResult, workerStart } from './ferry';
import { generateSeed, publicKeyOf, type Identity } from './identity';
import { writeAgent, writeClaim, writeHeartbeat, writeInterrupt, writeOrder, writeResult } from './write';

const MIN = 60_000;
let tmp: string;
let root: string;
const id = (name: string, clockOffsetMs = 0): Identity => ({ name, seedHex: generateSeed(), clockOffsetMs });
let ops: Identity;
let orchestrator: Identity;
let fang: Identity;
let nebra: Identity;
const run = { run: '0e6198a69c084611aa65f7b8a803ad8f', pid: 10044 };
const T0 = Date.parse('2026-12-01T08:00:00Z');
const at = (min: number) => ({ atMs: T0 + min * MIN });

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ferry-'));
  root = path.join(tmp, 'channel');
  fs.mkdirSync(root);
  ops = id('ops');
  orchestrator = id('orchestrator');
  fang = id('fang');
  nebra = id('nebra', -2 * 3_600_000);
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
  writeAgent(root, { name: 'orchestrator', role: 'orchestrator', publicKey: publicKeyOf(orchestrator) });
  for (const a of [fang, nebra]) writeAgent(root, { name: a.name, role: 'worker', publicKey: publicKeyOf(a) });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const order = (orderId: string, assigned_to?: string) =>
  writeOrder(root, orchestrator, { id: orderId, project_id: 'alpha', payload: { task: orderId }, ...(assigned_to ? { assigned_to } : {}) }, at(0));
const file = (orderId: string, name: string) => path.join(root, 'tasks', orderId, name);
const json = (orderId: string, name: string) => JSON.parse(fs.readFileSync(file(orderId, name), 'utf8')) as Record<string, unknown>;
const files = (orderId: string) => fs.readdirSync(path.join(root, 'tasks', orderId)).sort();
const ts = (v: unknown) => {
  const t = parseTimestamp(String(v));
  if (!t.ok) throw new Error(t.reason);
  return t.value;
};
function derive(): ChannelState {
  const s = deriveChannel(readChannel(root), { nowMs: Date.now(), staleAfterMs: 300_000, verify: nodeVerify });
  expect(s.problems).toEqual([]);
  for (const r of Object.values(s.ledger)) expect(r.intact).toBe(true);
  return s;
}
const card = (s: ChannelState, orderId: string) => s.orders.find((c) => c.order_id === orderId);

describe('workerStart (ferry recover_own_tasks)', () => {
  it('releases its dead runs and its orphans, addressed ones before it ever claimed them, and nothing else', () => {
    order('dead'); // fang claimed it, its run died: claim + heartbeat
    writeClaim(root, fang, 'dead', at(1));
    writeHeartbeat(root, fang, 'dead', run, at(2));
    order('addressed', 'fang'); // addressed to fang, never claimed
    order('claimed-idle'); // fang's claim, no run, no result
    writeClaim(root, fang, 'claimed-idle', at(1));
    order('delivered', 'fang'); // has a result: progressed, left alone
    writeClaim(root, fang, 'delivered', at(1));
    writeResult(root, fang, 'delivered', 1, { ok: true }, at(2));
    order('others'); // nebra's
    writeClaim(root, nebra, 'others', at(1));
    order('for-nebra', 'nebra');

    const released = workerStart(root, fang, at(10));
    expect(released).toEqual([
      { order_id: 'dead', reason: 'worker died mid-run' },
      { order_id: 'addressed', reason: 'orphaned at startup' },
      { order_id: 'claimed-idle', reason: 'orphaned at startup' },
    ]);
    const dead = json('dead', 'release.fang.json');
    expect(dead).toMatchObject({ order_id: 'dead', released: 'fang', releaser: 'fang', reason: 'worker died mid-run', at: '2026-12-01T08:10:00.000Z', signed_by: 'fang' });
    // same machine clock: the release comes after the heartbeat it judges dead, which stays
    expect(compareTimestamps(ts(dead.at), ts(json('dead', 'heartbeat.fang.json').at))).toBeGreaterThan(0);
    expect(files('dead')).toEqual(['claim.fang.json', 'heartbeat.fang.json', 'order.json', 'release.fang.json']);
    expect(files('addressed')).toEqual(['order.json', 'release.fang.json']);
    expect(json('addressed', 'release.fang.json')).toMatchObject({ released: 'fang', releaser: 'fang', reason: 'orphaned at startup', signed_by: 'fang' });
    expect(files('delivered')).not.toContain('release.fang.json');
    expect(files('others')).toEqual(['claim.nebra.json', 'order.json']);
    expect(files('for-nebra')).toEqual(['order.json']);
    expect(fs.readFileSync(path.join(root, 'ledger.fang.jsonl'), 'utf8')).toContain('"summary":"released fang\'s claim on addressed (orphaned at startup)"');

    // the board reads it all as routine: the leftover heartbeat is no run, self-releases no alarm
    const s = derive();
    expect(card(s, 'dead')).toMatchObject({ state: 'open', holder: null, flags: [] });
    expect(card(s, 'addressed')).toMatchObject({ state: 'offered', holder: 'fang', flags: [] });
    expect(card(s, 'claimed-idle')).toMatchObject({ state: 'open', flags: [] });

    // nebra takes the dead run over: fang's heartbeat is a leftover, not a double run
    claimOrder(root, nebra, 'dead', at(11));
    writeHeartbeat(root, nebra, 'dead', { run: 'ffff', pid: 7 }, at(12));
    expect(card(derive(), 'dead')).toMatchObject({ state: 'claimed', holder: 'nebra', flags: [], other_runs: [] });

    // fang runs the addressed order all the same (ferry's holder is the assignee): offered while it runs, then done
    expect(claimOrder(root, fang, 'addressed', at(11))).toBe(true);
    expect(claimOrder(root, fang, 'addressed', at(12))).toBe(false); // never rewritten
    writeHeartbeat(root, fang, 'addressed', run, at(12));
    expect(card(derive(), 'addressed')).toMatchObject({ state: 'offered', holder: 'fang', flags: [] });
    submitResult(root, fang, 'addressed', 1, { ok: true }, at(20));
    expect(files('addressed')).toEqual(['claim.fang.json', 'order.json', 'release.fang.json', 'result.fang.001.json']);
    expect(card(derive(), 'addressed')).toMatchObject({ state: 'done', flags: [] });
  });

  it('a second start rewrites its release of an addressed order whose dead run it left behind', () => {
    order('a', 'fang');
    writeClaim(root, fang, 'a', at(1));
    writeHeartbeat(root, fang, 'a', run, at(2));
    expect(workerStart(root, fang, at(10))).toEqual([{ order_id: 'a', reason: 'worker died mid-run' }]);
    expect(workerStart(root, fang, at(20))).toEqual([{ order_id: 'a', reason: 'worker died mid-run' }]);
    expect(json('a', 'release.fang.json')).toMatchObject({ at: '2026-12-01T08:20:00.000Z' });
    expect(card(derive(), 'a')).toMatchObject({ state: 'offered', flags: [] });
  });
});

describe('startRun (the start of ferry do_work)', () => {
  it('a kill: acknowledged, the claim deleted, logged; the order stays offered to its assignee (an alarm)', () => {
    order('k', 'fang');
    writeInterrupt(root, ops, 'k', 'kill', 'Not wanted after all.', at(1));
    claimOrder(root, fang, 'k', at(2));
    const r = startRun(root, fang, 'k', readFerryView(root).views.get('k'), at(2));
    expect(r).toEqual({ stopped: 'kill', steer: null, acknowledged: ['ops'] });
    expect(files('k')).toEqual(['interrupt.ops.fang.acked.json', 'interrupt.ops.json', 'order.json']);
    const text = fs.readFileSync(file('k', 'interrupt.ops.fang.acked.json'), 'utf8');
    expect(text).toBe('{\n  "acknowledged_at": "2026-12-01T08:02:00+00:00",\n  "agent": "fang",\n  "issued_by": "ops",\n  "order_id": "k"\n}');
    expect(fs.readFileSync(path.join(root, 'ledger.fang.jsonl'), 'utf8')).toContain('"kind":"interrupt","actor":"fang","summary":"killed k on interrupt from ops"');
    expect(card(derive(), 'k')).toMatchObject({ state: 'offered', holder: 'fang', flags: ['stop_not_holding'] });
    // the next run of it finds nothing pending: ferry runs it again
    claimOrder(root, fang, 'k', at(3));
    expect(startRun(root, fang, 'k', readFerryView(root).views.get('k'), at(3))).toEqual({ stopped: null, steer: null, acknowledged: [] });
  });

  it('a pause too; a steer is acknowledged and folded into the run, which goes on', () => {
    order('p');
    writeInterrupt(root, ops, 'p', 'pause', 'Hold until the freeze is over.', at(1));
    writeClaim(root, nebra, 'p', at(2));
    expect(startRun(root, nebra, 'p', readFerryView(root).views.get('p'), at(2)).stopped).toBe('pause');
    expect(files('p')).toEqual(['interrupt.ops.json', 'interrupt.ops.nebra.acked.json', 'order.json']);
    expect(json('p', 'interrupt.ops.nebra.acked.json')).toEqual({
      acknowledged_at: '2026-12-01T06:02:00+00:00', // nebra's clock, 2 h behind
      agent: 'nebra',
      issued_by: 'ops',
      order_id: 'p',
    });

    order('s');
    writeInterrupt(root, ops, 's', 'steer', 'Call it ferry-core.', at(1));
    claimOrder(root, fang, 's', at(2));
    expect(startRun(root, fang, 's', readFerryView(root).views.get('s'), at(2))).toEqual({ stopped: null, steer: 'Call it ferry-core.', acknowledged: ['ops'] });
    writeHeartbeat(root, fang, 's', run, at(3));
    expect(card(derive(), 's')).toMatchObject({ state: 'claimed', flags: [] });
    submitResult(root, fang, 's', 1, { ok: true }, at(9));
    expect(files('s')).toEqual(['claim.fang.json', 'interrupt.ops.fang.acked.json', 'interrupt.ops.json', 'order.json', 'result.fang.001.json']);
    expect(card(derive(), 's')).toMatchObject({ state: 'done', flags: [] });
  });
});

describe('channelRetire (ferry channel retire)', () => {
  it("releases, signed by the orchestrator, what the name holds or is addressed to with no result", () => {
    order('held');
    writeClaim(root, nebra, 'held', at(1));
    writeHeartbeat(root, nebra, 'held', run, at(2));
    order('addressed', 'nebra');
    order('delivered');
    writeClaim(root, nebra, 'delivered', at(1));
    writeResult(root, nebra, 'delivered', 1, { ok: true }, at(2));
    order('fangs');
    writeClaim(root, fang, 'fangs', at(1));

    expect(channelRetire(root, orchestrator, 'nebra', at(30))).toEqual(['addressed', 'held']);
    for (const o of ['addressed', 'held']) {
      expect(json(o, 'release.orchestrator.json')).toMatchObject({
        order_id: o,
        released: 'nebra',
        releaser: 'orchestrator',
        reason: 'retired',
        at: '2026-12-01T08:30:00.000Z',
        signed_by: 'orchestrator',
      });
    }
    expect(files('delivered')).not.toContain('release.orchestrator.json');
    expect(files('fangs')).toEqual(['claim.fang.json', 'order.json']);
    expect(fs.existsSync(path.join(root, 'retirements'))).toBe(false); // ferry writes no retirement
    const s = derive();
    expect(card(s, 'held')).toMatchObject({ state: 'open', flags: [] }); // back to the pool
    expect(card(s, 'addressed')).toMatchObject({ state: 'offered', holder: 'nebra', flags: ['retired_holder'] }); // for ever
    expect(card(s, 'delivered')).toMatchObject({ state: 'done', flags: [] });
  });
});
