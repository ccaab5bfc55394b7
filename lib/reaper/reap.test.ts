/**
 * The reaper with real processes: a worker child started and killed, a living child,
 * a pid taken by a process started after the run's first heartbeat, another agent's claim, a dry
 * run. Channels are real folders written with the demo's writer (lib/demo/write.ts: the records
 * ferry writes, really signed); stale_after is 1 s and the waits are real. Every release written is
 * checked with the board's own reading (channelStateOf: signatures, the ledger chain), and, when
 * CLAIMBOARD_FERRY_KIT names the real ferry's kit, with ferry's own verdict too.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publicKeyOf, type Identity } from '../demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder, writeRelease } from '../demo/write';
import { channelStateOf } from '../index/channel-state';
import { holdApplies } from '../ledger/liveness';
import { seedOf } from '../../test/support/channel-builder';
import { folderSnapshot } from '../../test/support/folder';
import { reapOnce, ReapError, type ReapConfig } from './reap';
import { FERRY_KIT } from '../../test/support/ferry-kit';
import { readHolds, readReaperState, stateFileOf } from '../local/reaper-state';

const KIT = FERRY_KIT ?? '(CLAIMBOARD_FERRY_KIT unset)';
const ORACLE = path.join(KIT, 'bin', 'ferry-oracle');
const TASKS = path.join(KIT, 'ferry-tasks.sh');
const haveFerry = fs.existsSync(ORACLE) && fs.existsSync(path.join(KIT, 'bin', 'ferry'));
if (!haveFerry) console.warn(`reap.test: no real ferry (CLAIMBOARD_FERRY_KIT: ${KIT}): ferry's own verdict after a reset is skipped; claimboard's reading is still checked`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-reap-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

const STALE_MS = 1_000;
const who = (name: string): Identity => ({ name, seedHex: seedOf(name) });
const ops = who('ops');
const fang = who('fang');
const wisp = who('wisp');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A worker's engine stand-in: `node -e "setInterval(()=>{},1000)"`, running once this resolves. */
async function engine(): Promise<ChildProcess & { pid: number }> {
  const c = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
  children.push(c);
  await new Promise<void>((resolve, reject) => {
    c.once('spawn', () => resolve());
    c.once('error', reject);
  });
  if (c.pid === undefined) throw new Error('no pid');
  return c as ChildProcess & { pid: number };
}
/** Kills a child and waits until it is collected (before that its pid is a zombie, not gone). */
async function killed(c: ChildProcess): Promise<void> {
  const done = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGKILL');
  await done;
}

let n = 0;
/** A channel with ops (operator), fang and wisp, and `orders` each claimed by its agent. */
function channel(orders: Record<string, Identity>): { root: string; stateDir: string } {
  const root = path.join(tmp, `ch-${++n}`);
  fs.mkdirSync(root);
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
  writeAgent(root, { name: 'fang', role: 'worker', publicKey: publicKeyOf(fang) });
  writeAgent(root, { name: 'wisp', role: 'worker', publicKey: publicKeyOf(wisp) });
  for (const [id, agent] of Object.entries(orders)) {
    writeOrder(root, ops, { id, project_id: 'reap', payload: { task: id } });
    writeClaim(root, agent, id);
  }
  return { root, stateDir: path.join(tmp, `state-${n}`) };
}
const beat = (root: string, agent: Identity, id: string, pid: number, run = 'run1') => writeHeartbeat(root, agent, id, { run, pid });
const cfg = (root: string, stateDir: string, more: Partial<ReapConfig> = {}): ReapConfig => ({
  root,
  agent: 'fang',
  seedHex: fang.seedHex,
  policy: 'reset',
  dryRun: false,
  staleAfterMs: STALE_MS,
  stateDir,
  engine: null,
  host: 'test-host',
  ...more,
});
const card = (root: string, id: string) => channelStateOf(root, { staleAfterMs: STALE_MS }).orders.find((o) => o.order_id === id);

/** ferry's verdict per order from its own library code (ferry-oracle), or null without the binary. */
function ferryOracle(root: string): Record<string, { state: string; holder: string | null; offered_to: string[] }> | null {
  if (!haveFerry) return null;
  return (JSON.parse(execFileSync(ORACLE, [root, '--compact'], { encoding: 'utf8' })) as { orders: Record<string, { state: string; holder: string | null; offered_to: string[] }> }).orders;
}

describe('reap --policy reset', () => {
  it("a killed worker's stale run: the agent's own signed release and ledger line, ferry's name and reason; the board and ferry read it Open", async () => {
    const { root, stateDir } = channel({ 'o-dead': fang });
    const child = await engine();
    beat(root, fang, 'o-dead', child.pid);
    await killed(child);
    await sleep(STALE_MS + 150);
    const pass = reapOnce(cfg(root, stateDir));
    expect(pass.outcomes).toHaveLength(1);
    const o = pass.outcomes[0];
    expect([o?.order_id, o?.done]).toEqual(['o-dead', 'released']);
    expect(o?.why).toMatch(new RegExp(`^heartbeat arrived here [\\d.]+ s ago \\(stale after 1 s\\); dead: pid ${child.pid} is gone on this machine$`));
    expect(o && 'written' in o ? o.written : null).toEqual(['tasks/o-dead/release.fang.json', 'ledger.fang.jsonl']);

    const rec = JSON.parse(fs.readFileSync(path.join(root, 'tasks/o-dead/release.fang.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(rec)).toEqual(['order_id', 'released', 'releaser', 'reason', 'at', 'signed_by', 'signature']); // ferry's field order
    expect([rec.order_id, rec.released, rec.releaser, rec.reason, rec.signed_by]).toEqual(['o-dead', 'fang', 'fang', 'worker died mid-run; reaped by claimboard on test-host', 'fang']);
    const line = JSON.parse(fs.readFileSync(path.join(root, 'ledger.fang.jsonl'), 'utf8').trim()) as Record<string, unknown>;
    expect([line.kind, line.actor, line.summary, line.reference, line.prev]).toEqual([
      'release',
      'fang',
      "released fang's claim on o-dead (worker died mid-run; reaped by claimboard on test-host)",
      'o-dead',
      '',
    ]);

    // The board's own reading: the release verifies (no problem row), the ledger chains, the order is Open.
    const state = channelStateOf(root, { staleAfterMs: STALE_MS });
    expect(state.problems).toEqual([]);
    expect(state.ledger['ledger.fang.jsonl']).toMatchObject({ entries: 1, intact: true });
    const c = state.orders.find((x) => x.order_id === 'o-dead');
    expect([c?.state, c?.holder, c?.flags]).toEqual(['open', null, []]);
    // Nothing twice: the order is no longer fang's.
    expect(reapOnce(cfg(root, stateDir)).outcomes).toEqual([]);

    const f = ferryOracle(root);
    if (f) {
      expect([f['o-dead']?.state, f['o-dead']?.holder]).toEqual(['open', null]);
      expect(f['o-dead']?.offered_to).toContain('wisp'); // fang released itself: ferry offers it to the others
      expect(execFileSync(TASKS, [root], { encoding: 'utf8' })).toMatch(/^ {2}o-dead\s+-\s+Open\b/m);
    }
  });

  it('a living child is never touched, however old its heartbeat; the engine check of agent.toml', async () => {
    const { root, stateDir } = channel({ 'o-slow': fang });
    const child = await engine();
    beat(root, fang, 'o-slow', child.pid);
    await sleep(STALE_MS + 150);
    const before = folderSnapshot(root);
    const monthLater = () => Date.now() + 30 * 86_400_000;
    const pass = reapOnce(cfg(root, stateDir, { now: monthLater }));
    expect(pass.outcomes.map((o) => [o.done, o.why.replace(/arrived here [\d.]+ h ago/, 'arrived here … ago')])).toEqual([
      ['left', `heartbeat arrived here … ago (stale after 1 s); alive: pid ${child.pid} is running here (slow, not orphaned)`],
    ]);
    // The engine agent.toml names: node is what runs; another name is not taken for the run.
    expect(reapOnce(cfg(root, stateDir, { engine: { names: ['node'], from: 'agent.toml' } })).outcomes[0]?.why).toContain('alive: pid');
    const other = reapOnce(cfg(root, stateDir, { engine: { names: ['fake-engine'], from: 'agent.toml' } })).outcomes[0];
    expect([other?.done, other?.why]).toEqual([
      'left',
      expect.stringContaining(`pid ${child.pid} is running here but is \`${process.execPath} -e\`, not fake-engine (agent.toml): cannot tell whether it is the run's process: never reaped without certainty`),
    ]);
    const snapshot = folderSnapshot(root);
    expect(snapshot).toEqual(before);
    await killed(child);
  });

  it("a pid taken by a process started after the run's first heartbeat is not the run's: reaped as dead, said so", async () => {
    const { root, stateDir } = channel({ 'o-reused': fang });
    const first = await engine();
    beat(root, fang, 'o-reused', first.pid, 'run-r');
    await killed(first);
    // A pass while the heartbeat is fresh: the reaper remembers when run-r's heartbeat first arrived.
    expect(reapOnce(cfg(root, stateDir)).outcomes[0]?.done).toBe('left');
    const firstArrival = readReaperState(stateDir, root, 'fang').runs[0]?.first_arrival_ms ?? 0;
    expect(firstArrival).toBe(fs.statSync(path.join(root, 'tasks/o-reused/heartbeat.fang.json')).ctimeMs);
    // Past the 2 s slack and btime's second, a new process; the heartbeat now names its pid (same run).
    await sleep(3_300);
    const later = await engine();
    beat(root, fang, 'o-reused', later.pid, 'run-r');
    await sleep(STALE_MS + 150);
    // Without that memory the heartbeat's ctime is after the new start: read as alive (the safe side).
    const fresh = reapOnce(cfg(root, path.join(tmp, 'state-empty'), { dryRun: true })).outcomes[0];
    expect(fresh?.why).toContain(`alive: pid ${later.pid} is running here`);
    const pass = reapOnce(cfg(root, stateDir));
    const o = pass.outcomes[0];
    expect(o?.done).toBe('released');
    expect(o?.why).toMatch(new RegExp(`; pid ${later.pid} is another process now \\(started \\d\\d:\\d\\d:\\d\\d UTC, after the run's first heartbeat at \\d\\d:\\d\\d:\\d\\d UTC\\): the run's process is gone$`));
    expect(later.exitCode).toBeNull(); // the unrelated process is left alone: nothing is killed
    expect(card(root, 'o-reused')?.state).toBe('open');
    await killed(later);
  });

  it("another agent's claim is never released, even with its pid gone; nor fang's losing heartbeat on it", async () => {
    const { root, stateDir } = channel({ 'o-wisp': wisp });
    writeClaim(root, fang, 'o-wisp', { atMs: Date.now() + 60_000 }); // fang claimed later: wisp holds it
    const a = await engine();
    const b = await engine();
    beat(root, wisp, 'o-wisp', a.pid);
    beat(root, fang, 'o-wisp', b.pid);
    await killed(a);
    await killed(b);
    await sleep(STALE_MS + 150);
    expect(card(root, 'o-wisp')?.holder).toBe('wisp');
    const before = folderSnapshot(root);
    expect(reapOnce(cfg(root, stateDir)).outcomes).toEqual([]);
    expect(folderSnapshot(root)).toEqual(before);
    // fang's key cannot reap as wisp: refused before anything is written.
    expect(() => reapOnce(cfg(root, stateDir, { agent: 'wisp' }))).toThrow(ReapError);
    expect(() => reapOnce(cfg(root, stateDir, { agent: 'wisp' }))).toThrow("the key file is not wisp's key in the roster: its release would not verify");
    expect(folderSnapshot(root)).toEqual(before);
  });

  it('a dry run writes nothing anywhere and says what it would do', async () => {
    const { root, stateDir } = channel({ 'o-dry': fang, 'o-fresh': fang });
    const child = await engine();
    beat(root, fang, 'o-dry', child.pid);
    await killed(child);
    await sleep(STALE_MS + 150);
    const live = await engine();
    beat(root, fang, 'o-fresh', live.pid);
    const before = folderSnapshot(root);
    const pass = reapOnce(cfg(root, stateDir, { dryRun: true }));
    expect(pass.outcomes.map((o) => [o.order_id, o.done])).toEqual([
      ['o-dry', 'would_release'],
      ['o-fresh', 'left'],
    ]);
    expect(pass.outcomes[1]?.why).toMatch(/^heartbeat fresh: arrived here [\d.]+ s ago, stale after 1 s$/);
    expect(folderSnapshot(root)).toEqual(before);
    expect(fs.existsSync(stateDir)).toBe(false);
    expect(reapOnce(cfg(root, stateDir, { dryRun: true, policy: 'hold' })).outcomes[0]?.done).toBe('would_hold');
    await killed(live);
  });

  it('an own release already in the way is never overwritten: the order is left, said so', async () => {
    const { root, stateDir } = channel({ 'o-own': fang });
    const child = await engine();
    beat(root, fang, 'o-own', child.pid);
    await killed(child);
    // An unsigned leftover at ferry's path (not a valid release: the claim still counts).
    fs.writeFileSync(path.join(root, 'tasks/o-own/release.fang.json'), '{"broken": true}');
    await sleep(STALE_MS + 150);
    const before = folderSnapshot(root);
    const o = reapOnce(cfg(root, stateDir)).outcomes[0];
    expect([o?.done, o?.why]).toEqual(['left', "fang's own release is already there (tasks/o-own/release.fang.json): nothing to add"]);
    expect(folderSnapshot(root)).toEqual(before);
  });
});

describe('reap --policy hold', () => {
  it('writes nothing into the channel, records the hold locally (kept across passes) until the run is over', async () => {
    const { root, stateDir } = channel({ 'o-held': fang });
    const child = await engine();
    beat(root, fang, 'o-held', child.pid);
    await killed(child);
    await sleep(STALE_MS + 150);
    const before = folderSnapshot(root);
    const pass = reapOnce(cfg(root, stateDir, { policy: 'hold' }));
    expect(pass.outcomes.map((o) => [o.done, o.why.replace(/[\d.]+ s ago/, 'N s ago')])).toEqual([
      ['held', `heartbeat arrived here N s ago (stale after 1 s); dead: pid ${child.pid} is gone on this machine: dead run held for review`],
    ]);
    expect(folderSnapshot(root)).toEqual(before);
    const holds = readHolds(stateDir, root);
    expect(holds.map((h) => [h.order_id, h.agent, h.run, h.pid, h.verdict, h.text])).toEqual([
      ['o-held', 'fang', 'run1', child.pid, 'dead', `dead: pid ${child.pid} is gone on this machine`],
    ]);
    const c = card(root, 'o-held');
    if (!c || !holds[0]) throw new Error('no card or hold');
    expect(holdApplies(holds[0], c)).toBe(true);
    expect(fs.statSync(stateFileOf(stateDir, root, 'fang')).mode & 0o777).toBe(0o600);

    // A second pass keeps the first hold's time.
    const again = reapOnce(cfg(root, stateDir, { policy: 'hold' }));
    expect(again.outcomes[0]?.why).toContain(`(held since ${holds[0].held_at})`);
    expect(readHolds(stateDir, root)[0]?.held_at_ms).toBe(holds[0].held_at_ms);

    // The operator decides (here fang's own release, as ferry's next start would write): the hold ends.
    writeRelease(root, fang, 'o-held', 'fang', 'worker died mid-run', { fileName: 'ferryman' });
    const after = reapOnce(cfg(root, stateDir, { policy: 'hold' }));
    expect([after.outcomes, after.holdsEnded]).toEqual([[], ['o-held']]);
    expect(readHolds(stateDir, root)).toEqual([]);
  });
});
