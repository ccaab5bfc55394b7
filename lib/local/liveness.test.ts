/**
 * localLivenessOf, the call the board makes for a card, against real processes: a
 * card held by a local agent gets a verdict on its heartbeat's pid; any other card gets none.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { Card } from '../ledger/derive';
import { ChannelBuilder } from '../../test/support/channel-builder';
import { localAgentsOf, localLivenessOf } from './liveness';

const child = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
const started = new Promise<void>((r) => child.once('spawn', () => r()));
afterAll(() => {
  child.kill('SIGKILL');
});

/** The card of an order claimed by `holder` whose heartbeat (arrived just now) names `pid`. */
function cardWith(holder: string, pid: number): Card {
  const now = Date.now();
  const b = new ChannelBuilder(now).roster().order('o').claim('o', holder, { age: 10 });
  b.json('tasks/o/heartbeat.' + holder + '.json', { order_id: 'o', agent: holder, run: 'r1', pid, at: '2026-11-20T09:06:00Z' });
  return b.card('o');
}

describe('localLivenessOf', () => {
  it("says nothing about another machine's agent or a card without a heartbeat", async () => {
    await started;
    const local = localAgentsOf({ localAgents: ['fang'] });
    expect(localLivenessOf(cardWith('wisp', child.pid ?? 0), local)).toBeNull();
    const noBeat = new ChannelBuilder().roster().order('o').claim('o', 'fang').card('o');
    expect(localLivenessOf(noBeat, local)).toBeNull();
  });

  it("a local agent's living engine is alive; a first arrival remembered before its start makes it another process", () => {
    const local = localAgentsOf({ localAgents: ['fang'] });
    const pid = child.pid ?? 0;
    const card = cardWith('fang', pid);
    expect(localLivenessOf(card, local)).toMatchObject({ verdict: 'alive', pid, text: `alive: pid ${pid} is running here (slow, not orphaned)` });
    // The reaper saw run r1's heartbeat an hour before this process started: the pid is not the run's.
    const hourBefore = (card.heartbeat?.arrival_ms ?? 0) - 3_600_000;
    const l = localLivenessOf(card, local, { firstArrival: (o, run) => (o === 'o' && run === 'r1' ? hourBefore : undefined) });
    expect([l?.verdict, l?.firstArrivalMs]).toEqual(['reused', hourBefore]);
  });

  it('says nothing where no run of the holder is meant to be going: a released claim, a give-up, a finished order', () => {
    const local = localAgentsOf({ localAgents: ['fang'] });
    const pid = child.pid ?? 0;
    const beat = { order_id: 'o', agent: 'fang', run: 'r1', pid, at: '2026-11-20T09:06:00Z' };
    // Addressed to fang, released by ops: offered to fang, its last heartbeat left behind.
    const offered = new ChannelBuilder().roster().order('o', { assigned_to: 'fang' }).claim('o', 'fang').json('tasks/o/heartbeat.fang.json', beat).release('o', 'fang', 'ops').card('o');
    expect([offered.state, offered.holder, offered.heartbeat?.pid]).toEqual(['offered', 'fang', pid]);
    expect(localLivenessOf(offered, local)).toBeNull();
    const gaveUp = new ChannelBuilder().roster().order('o').claim('o', 'fang').json('tasks/o/heartbeat.fang.json', beat).giveup('o', 'fang').card('o');
    expect([gaveUp.state, localLivenessOf(gaveUp, local)]).toEqual(['gave_up', null]);
    const done = new ChannelBuilder().roster().order('o').claim('o', 'fang').json('tasks/o/heartbeat.fang.json', beat).result('o', 'fang', 1).card('o');
    expect([done.state, localLivenessOf(done, local)]).toEqual(['done', null]);
  });

  it('the pid of an engine killed and collected is dead', async () => {
    const local = localAgentsOf({ localAgents: ['fang'] });
    const gone = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
    await new Promise<void>((r) => gone.once('spawn', () => r()));
    const exited = new Promise<void>((r) => gone.once('exit', () => r()));
    gone.kill('SIGKILL');
    await exited;
    const l = localLivenessOf(cardWith('fang', gone.pid ?? 0), local);
    expect([l?.verdict, l?.text]).toEqual(['dead', `dead: pid ${gone.pid} is gone on this machine`]);
  });
});
