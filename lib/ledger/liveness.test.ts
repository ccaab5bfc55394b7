import { describe, expect, it } from 'vitest';
import { ChannelBuilder } from '../../test/support/channel-builder';
import {
  clockTime,
  durationWords,
  holdApplies,
  judgeLiveness,
  matchesEngine,
  reapReason,
  reapStep,
  releaseSummary,
  runIsGone,
  staleDetailOf,
  START_SLACK_MS,
  type EngineSpec,
  type Liveness,
  type ProcessFacts,
  type ReapOrder,
} from './liveness';

const FIRST = Date.parse('2026-11-30T13:40:00Z');
const hb = { pid: 12345, run: 'r1', firstArrivalMs: FIRST };
const running = (startMs: number | null, more: Partial<Extract<ProcessFacts, { kind: 'running' }>> = {}): ProcessFacts => ({
  kind: 'running',
  startMs,
  argv: ['fake-engine', '-p', 'build it'],
  comm: 'fake-engine',
  state: 'S',
  ppid: 900,
  ...more,
});
const ENGINE: EngineSpec = { names: ['fake-engine'], from: '/ws/.ferryman/agent.toml' };

describe('judgeLiveness: one clock, this machine\'s', () => {
  it('a pid that is gone is dead, said so', () => {
    const l = judgeLiveness(hb, { kind: 'gone' }, ENGINE);
    expect([l.verdict, l.text]).toEqual(['dead', 'dead: pid 12345 is gone on this machine']);
  });

  it('a process that started before the first heartbeat arrived is alive, with or without the engine check', () => {
    const before = FIRST - 60_000;
    const checked = judgeLiveness(hb, running(before), ENGINE);
    expect([checked.verdict, checked.text, checked.engineChecked, checked.startedMs]).toEqual(['alive', 'alive: pid 12345 is running here (slow, not orphaned)', true, before]);
    const unchecked = judgeLiveness(hb, running(before), null);
    expect([unchecked.verdict, unchecked.engineChecked]).toEqual(['alive', false]);
  });

  it('started after the first heartbeat plus the slack: another process now, the run\'s is gone (times in UTC)', () => {
    const l = judgeLiveness(hb, running(Date.parse('2026-11-30T14:02:00Z')), ENGINE);
    expect(l.verdict).toBe('reused');
    expect(l.text).toBe("pid 12345 is another process now (started 14:02:00 UTC, after the run's first heartbeat at 13:40:00 UTC): the run's process is gone");
    expect(runIsGone(l.verdict)).toBe(true);
  });

  it('alive with parent pid 1 (its worker died, it was re-parented to init): still alive, and said to be an orphan', () => {
    const l = judgeLiveness(hb, running(FIRST - 1000, { ppid: 1 }), ENGINE);
    expect([l.verdict, l.text]).toEqual([
      'alive',
      "alive: pid 12345 is running here, but its worker is gone (its parent is now pid 1): an orphan; ferry's next start stops it and releases the order",
    ]);
  });

  it('the slack is 2 s: a start exactly 2 s after the first arrival is still the run\'s, 1 ms more is not', () => {
    expect(START_SLACK_MS).toBe(2000);
    expect(judgeLiveness(hb, running(FIRST + 2000), null).verdict).toBe('alive');
    expect(judgeLiveness(hb, running(FIRST + 2001), null).verdict).toBe('reused');
    expect(judgeLiveness(hb, running(FIRST + 501), null, 500).verdict).toBe('reused');
  });

  it('a process that is not the engine agent.toml names is unknown, never alive nor dead', () => {
    const l = judgeLiveness(hb, running(FIRST - 1000, { argv: ['sleep', '100'], comm: 'sleep' }), ENGINE);
    expect(l.verdict).toBe('unknown');
    expect(l.text).toBe("pid 12345 is running here but is `sleep 100`, not fake-engine (/ws/.ferryman/agent.toml): cannot tell whether it is the run's process");
  });

  it('an interpreter running the engine script matches (argv[1]); an unreadable cmdline skips the check', () => {
    const claude: EngineSpec = { names: ['claude'], from: 'agent.toml' };
    expect(judgeLiveness(hb, running(FIRST - 1000, { argv: ['node', '/usr/local/bin/claude', '-p', 'x'], comm: 'node' }), claude).verdict).toBe('alive');
    const noCmd = judgeLiveness(hb, running(FIRST - 1000, { argv: null }), claude);
    expect([noCmd.verdict, noCmd.engineChecked]).toEqual(['alive', false]);
  });

  it('matchesEngine: argv[0] or argv[1] basenames, or the kernel comm cut to 15 characters', () => {
    const long: EngineSpec = { names: ['a-very-long-engine-name'], from: 'x' };
    expect(matchesEngine(['/opt/bin/a-very-long-engine-name'], null, long)).toBe(true);
    expect(matchesEngine(['weird-argv0'], 'a-very-long-eng', long)).toBe(true); // 15 characters
    expect(matchesEngine(['weird-argv0'], 'a-very-long-en', long)).toBe(false);
    expect(matchesEngine(['sh', '-c', 'a-very-long-engine-name'], 'sh', long)).toBe(false); // argv[2] is not the program
  });

  it('cannot check, an unreadable start, a zombie: unknown, with the reason', () => {
    expect(judgeLiveness(hb, { kind: 'unknown', why: 'this is darwin, not Linux' }, ENGINE).text).toBe('pid 12345 cannot be checked here: this is darwin, not Linux');
    const noStart = judgeLiveness(hb, running(null, { startWhy: '/proc/12345/stat: EACCES' }), ENGINE);
    expect([noStart.verdict, noStart.text]).toEqual([
      'unknown',
      "pid 12345 is running here, but its start time cannot be read (/proc/12345/stat: EACCES): cannot tell whether it is the run's process",
    ]);
    const zombie = judgeLiveness(hb, running(FIRST - 1000, { state: 'Z', argv: [], ppid: 77 }), ENGINE);
    expect([zombie.verdict, zombie.text]).toEqual(['unknown', 'pid 12345 has exited but its parent (pid 77) has not collected it yet: its worker may still be there']);
    // Re-parented to init before it exited: its worker is gone too, and an init that never collects keeps it a zombie.
    const orphanZombie = judgeLiveness(hb, running(FIRST - 1000, { state: 'Z', argv: [], ppid: 1 }), ENGINE);
    expect([orphanZombie.verdict, orphanZombie.text]).toEqual(['dead', 'dead: pid 12345 has exited on this machine (a zombie left to pid 1: its worker is gone too)']);
  });

  it('the Stale reason detail and the gate: dead and reused are dead_local, alive alive_local, unknown none', () => {
    expect((['dead', 'reused', 'alive', 'unknown'] as const).map((v) => [staleDetailOf(v), runIsGone(v)])).toEqual([
      ['dead_local', true],
      ['dead_local', true],
      ['alive_local', false],
      [null, false],
    ]);
  });

  it('clockTime and durationWords', () => {
    expect(clockTime(Date.parse('2026-11-30T09:05:07.900Z'))).toBe('09:05:07 UTC');
    expect([durationWords(1000), durationWords(1500), durationWords(600_000), durationWords(3 * 3600_000)]).toEqual(['1 s', '1.5 s', '10 min', '3.0 h']);
  });
});

// ---- the reaper's gates -------------------------------------------------------------------------

const b = new ChannelBuilder()
  .roster()
  .order('dead-run')
  .claim('dead-run', 'fang', { age: 900 })
  .heartbeat('dead-run', 'fang', { age: 600 })
  .order('fresh-run')
  .claim('fresh-run', 'fang', { age: 900 })
  .heartbeat('fresh-run', 'fang', { age: 100 })
  .order('at-threshold')
  .claim('at-threshold', 'fang', { age: 900 })
  .heartbeat('at-threshold', 'fang', { age: 300 })
  .order('claim-only')
  .claim('claim-only', 'fang', { age: 900 })
  .order('wisps')
  .claim('wisps', 'wisp', { age: 900 })
  .heartbeat('wisps', 'wisp', { age: 600 })
  .order('finished')
  .claim('finished', 'fang', { age: 900 })
  .heartbeat('finished', 'fang', { age: 600 })
  .result('finished', 'fang', 1, { age: 590 });
const state = b.derive({ staleAfterS: 300 });
const order = (id: string, more: Partial<ReapOrder> = {}): ReapOrder => {
  const card = state.orders.find((c) => c.order_id === id);
  if (!card) throw new Error(id);
  return { card, ownRelease: null, released: false, ...more };
};
const clock = { nowMs: b.nowMs, staleAfterMs: 300_000 };
const verdict = (v: Liveness['verdict'], text = `${v}: pid 4242`): Liveness => ({ verdict: v, pid: 4242, text, firstArrivalMs: 0, engineChecked: false });
/** A livenessOf that counts its calls: the pid is looked at only past the staleness gate. */
function counting(v: Liveness['verdict']) {
  const calls: number[] = [];
  return { calls, of: (h: { pid: number }) => (calls.push(h.pid), verdict(v)) };
}

describe('reapStep: staleness AND deadness, then the policy', () => {
  it('stale on this machine\'s clock and the pid dead: reset releases, hold holds', () => {
    const dead = counting('dead');
    const r = reapStep(order('dead-run'), 'fang', 'reset', clock, dead.of);
    expect([r.action, r.why]).toEqual(['release', 'heartbeat arrived here 10 min ago (stale after 5 min); dead: pid 4242']);
    const h = reapStep(order('dead-run'), 'fang', 'hold', clock, dead.of);
    expect([h.action, h.why]).toEqual(['hold', 'heartbeat arrived here 10 min ago (stale after 5 min); dead: pid 4242: dead run held for review']);
    expect(dead.calls).toEqual([4242, 4242]); // the channel builder's heartbeat pid
  });

  it('a reused pid is the run gone: released as dead, and the sentence says it is another process', () => {
    const r = reapStep(order('dead-run'), 'fang', 'reset', clock, () => verdict('reused', 'pid 4242 is another process now'));
    expect([r.action, r.why]).toEqual(['release', 'heartbeat arrived here 10 min ago (stale after 5 min); pid 4242 is another process now']);
  });

  it('a living pid is never touched however old its heartbeat; unknown neither', () => {
    for (const policy of ['reset', 'hold'] as const) {
      expect(reapStep(order('dead-run'), 'fang', policy, { ...clock, nowMs: clock.nowMs + 30 * 86_400_000 }, () => verdict('alive')).action).toBe('leave');
      const u = reapStep(order('dead-run'), 'fang', policy, clock, () => verdict('unknown', 'pid 4242 cannot be checked here'));
      expect([u.action, u.why]).toEqual(['leave', 'heartbeat arrived here 10 min ago (stale after 5 min); pid 4242 cannot be checked here: never reaped without certainty']);
    }
  });

  it('a fresh heartbeat, one exactly at stale_after, or none: left without looking at the pid', () => {
    const dead = counting('dead');
    const fresh = reapStep(order('fresh-run'), 'fang', 'reset', clock, dead.of);
    expect([fresh.action, fresh.why]).toEqual(['leave', 'heartbeat fresh: arrived here 100 s ago, stale after 5 min']);
    expect(reapStep(order('at-threshold'), 'fang', 'reset', clock, dead.of).action).toBe('leave'); // now − arrival = stale_after is fresh (§6)
    const none = reapStep(order('claim-only'), 'fang', 'reset', clock, dead.of);
    expect(order('claim-only').card.state).toBe('stale'); // stale by its claim: staleness alone
    expect([none.action, none.why]).toEqual(['leave', "no heartbeat of fang's: no pid to check (staleness alone never reaps)"]);
    expect(dead.calls).toEqual([]);
  });

  it("never another agent's claim, never a finished order, never twice", () => {
    const dead = counting('dead');
    expect(reapStep(order('wisps'), 'fang', 'reset', clock, dead.of)).toEqual({ order_id: 'wisps', action: 'leave', why: "held by wisp, not fang: never another agent's claim" });
    expect(reapStep(order('finished'), 'fang', 'reset', clock, dead.of).why).toBe("done: no run of fang's to reap");
    const twice = reapStep(order('dead-run', { ownRelease: 'tasks/dead-run/release.fang.json' }), 'fang', 'reset', clock, dead.of);
    expect(twice.why).toBe("fang's own release is already there (tasks/dead-run/release.fang.json): nothing to add");
    expect(reapStep(order('dead-run', { released: true }), 'fang', 'reset', clock, dead.of).action).toBe('leave');
    expect(dead.calls).toEqual([]);
  });

  it("a ferry worker for the agent alive here (its lock): left to it", () => {
    const r = reapStep(order('dead-run'), 'fang', 'reset', clock, () => verdict('dead'), 777);
    expect(r.why).toBe('heartbeat arrived here 10 min ago (stale after 5 min), but a ferry worker for fang runs here (pid 777, its worker lock): left to it');
  });

  it("the reason and the ledger summary are ferry's, with the host", () => {
    expect(reapReason('box-1')).toBe('worker died mid-run; reaped by claimboard on box-1');
    expect(releaseSummary('fang', 'o-1', 'r')).toBe("released fang's claim on o-1 (r)");
  });
});

describe('holdApplies', () => {
  it('stands while the same agent holds the order in the same run and pid; not for another run, pid, holder or a finished order', () => {
    const card = order('dead-run').card;
    const hold = { order_id: 'dead-run', agent: 'fang', run: 'r1', pid: 4242 };
    expect(holdApplies(hold, card)).toBe(true);
    expect(holdApplies({ ...hold, run: 'r2' }, card)).toBe(false);
    expect(holdApplies({ ...hold, pid: 1 }, card)).toBe(false);
    expect(holdApplies({ ...hold, agent: 'wisp' }, card)).toBe(false);
    expect(holdApplies({ ...hold, order_id: 'finished' }, order('finished').card)).toBe(false);
  });
});
