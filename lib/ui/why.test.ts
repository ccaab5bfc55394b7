import { describe, expect, it } from 'vitest';
import type { Card } from '@/lib/ledger/derive';
import { heartbeatNote, listWords, why, whyLines } from './why';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 30, 9, 20, 0);
const STALE_AFTER = 5 * MIN;
const ctx = { nowMs: NOW, staleAfterMs: STALE_AFTER };

function card(over: Partial<Card>): Card {
  return {
    order_id: 't1',
    state: 'claimed',
    lane: 'running',
    holder: 'fang',
    flags: [],
    project_id: 'demo',
    assigned_to: null,
    issued_by: 'ops',
    created_at: '2026-11-30T08:00:00Z',
    depends_on: [],
    requires_review: false,
    latest_revision: null,
    holder_fresh: true,
    heartbeat: null,
    missing_dependencies: [],
    other_runs: [],
    late_results: [],
    ferry: { state: 'claimed', holder: 'fang' },
    alerts: [],
    notes: [],
    ...over,
  };
}

const hb = (arrivalMs: number, at = '2026-11-30T09:06:00Z') => ({ arrival_ms: arrivalMs, at, run: 'r1', pid: 42 });

describe('why: stale reasons', () => {
  it('heartbeat_lapsed says when the heartbeat stopped, on our clock', () => {
    const c = card({ state: 'stale', lane: 'stale', reason: 'heartbeat_lapsed', since_ms: NOW - 7 * MIN, heartbeat: hb(NOW - 12 * MIN) });
    expect(why(c, ctx)).toBe("fang's heartbeat stopped 12 min ago while its other runs continue");
  });

  it('agent_silent uses the agent’s last arrival when known, else the stale reference', () => {
    const c = card({ holder: 'wisp', state: 'stale', lane: 'stale', reason: 'agent_silent', since_ms: NOW - 15 * MIN, heartbeat: hb(NOW - 20 * MIN) });
    expect(why(c, ctx)).toBe('nothing from wisp for 20 min: its machine, its sync or the agent is down');
    expect(why(c, { ...ctx, lastSeenMs: () => NOW - 18 * MIN })).toBe(
      'nothing from wisp for 18 min: its machine, its sync or the agent is down',
    );
  });

  it("agent_silent on the agent's own machine says what its pid check found instead of guessing", () => {
    const c = card({ holder: 'wisp', state: 'stale', lane: 'stale', reason: 'agent_silent', since_ms: NOW - 15 * MIN, heartbeat: hb(NOW - 20 * MIN) });
    expect(why({ ...c, stale_detail: 'dead_local' } as Card, ctx)).toBe("nothing from wisp for 20 min: its run's process died on this machine");
    expect(why({ ...c, stale_detail: 'alive_local' } as Card, ctx)).toBe("nothing from wisp for 20 min, though its run's process is alive here");
  });

  it('a running card whose process is gone on this machine says so first, whatever its heartbeat’s age', () => {
    const c = card({ holder: 'wisp', state: 'claimed', lane: 'stale', run_lane: 'stale', heartbeat: hb(NOW - 2000) });
    expect(why({ ...c, stale_detail: 'dead_local' } as Card, ctx)).toBe("wisp's run died on this machine: its process is gone (last heartbeat arrived just now)");
    const lapsed = card({ state: 'stale', lane: 'stale', reason: 'heartbeat_lapsed', since_ms: NOW - 7 * MIN, heartbeat: hb(NOW - 12 * MIN) });
    expect(why({ ...lapsed, stale_detail: 'dead_local' } as Card, ctx)).toBe("fang's run died on this machine: its process is gone (last heartbeat arrived 12 min ago)");
  });

  it('no_heartbeat counts from the claim’s arrival (since - stale_after)', () => {
    const c = card({ state: 'stale', lane: 'stale', reason: 'no_heartbeat', since_ms: NOW - 50 * MIN });
    expect(why(c, ctx)).toBe('claimed by fang 55 min ago; no heartbeat was ever written');
  });
});

describe('why: flags', () => {
  it('gave_up leads with the give-up reason', () => {
    const c = card({ state: 'gave_up', lane: 'attention', flags: ['gave_up'], reason: 'run pruned; delivery unknown' });
    expect(why(c, ctx)).toBe('fang gave up: run pruned; delivery unknown');
  });

  it('double_run: the derivation\'s words for the flag, before the state', () => {
    const text = 'wisp is also running it (a fresh heartbeat here) while fang holds it: two machines are doing one task';
    const c = card({ lane: 'attention', flags: ['double_run'], alerts: [{ flag: 'double_run', text }], other_runs: ['wisp'], heartbeat: hb(NOW - MIN) });
    expect(whyLines(c, ctx)).toEqual([text, 'fang is running it; last heartbeat arrived 1 min ago']);
  });

  it('each flag says what its alert on the card says, in the order of the flags', () => {
    const late = 'result by nebra, who does not hold it (fang does): ferry counts it all the same; acknowledge it if that result stands, or reopen it';
    const released = "ops released fang's claim, but the order is addressed to fang: ferry keeps offering it to fang, whose next poll runs it again; to move it, supersede it with a new order";
    const c = card({
      state: 'offered',
      lane: 'attention',
      assigned_to: 'fang',
      flags: ['late_result', 'released_assignee'],
      alerts: [
        { flag: 'late_result', text: late },
        { flag: 'released_assignee', text: released },
      ],
    });
    expect(why(c, ctx)).toBe(`${late}; ${released}`);
  });

  it("an offered order's state sentence is left out where the flag's own words say whom ferry offers it to", () => {
    const text = "ops's pause (\"Hold\") was acknowledged by fang, but ferry has no way to withdraw an order: ferry still offers it to fang, whose next poll runs it again";
    const paused = card({ state: 'offered', lane: 'attention', holder: 'fang', assigned_to: 'fang', flags: ['stop_not_holding'], alerts: [{ flag: 'stop_not_holding', text }] });
    expect(whyLines(paused, ctx)).toEqual([text]);
    const retired = 'addressed to wisp, retired by orchestrator: ferry offers it to wisp for ever and to nobody else; supersede it with a new order';
    expect(whyLines(card({ state: 'offered', lane: 'attention', holder: 'wisp', assigned_to: 'wisp', flags: ['retired_holder'], alerts: [{ flag: 'retired_holder', text: retired }] }), ctx)).toEqual([retired]);
    // A flag without the derivation's words on the card (no card is made so) adds no line, and the state sentence stays.
    expect(whyLines(card({ state: 'offered', lane: 'attention', holder: 'wisp', assigned_to: 'wisp', flags: ['retired_holder'] }), ctx)).toEqual(['offered to wisp, who has not claimed it']);
  });

  it('missing_dependency and blocked', () => {
    const text = 'depends on nope, not an order of this channel: ferry never offers it';
    const c = card({ state: 'blocked', lane: 'attention', holder: null, flags: ['missing_dependency'], alerts: [{ flag: 'missing_dependency', text }], depends_on: ['nope', 'a', 'b'], missing_dependencies: ['nope'] });
    expect(whyLines(c, ctx)).toEqual([text, 'waiting for a and b']);
    expect(why(card({ state: 'blocked', lane: 'queue', holder: null, depends_on: ['a', 'b', 'c'] }), ctx)).toBe('waiting for a, b and c');
  });

  it('gave_up\'s alert is not said twice: the state sentence says it', () => {
    const c = card({ state: 'gave_up', lane: 'attention', flags: ['gave_up'], alerts: [{ flag: 'gave_up', text: 'fang gave up: tired; acknowledge it or re-queue it' }], reason: 'tired' });
    expect(whyLines(c, ctx)).toEqual(['fang gave up: tired']);
  });
});

describe('why: quiet states', () => {
  it('every state has words', () => {
    expect(why(card({ state: 'open', lane: 'queue', holder: null }), ctx)).toBe('open: nobody has claimed it');
    expect(why(card({ state: 'offered', lane: 'queue', assigned_to: 'fang' }), ctx)).toBe('offered to fang, who has not claimed it');
    expect(why(card({ state: 'claimed' }), ctx)).toBe('claimed by fang; no heartbeat yet');
    expect(why(card({ state: 'changes_requested', lane: 'queue', latest_revision: 2 }), ctx)).toBe(
      'changes requested on revision 2: waits for fang to write revision 3 (ferry offers it to fang alone, at its next pass); no heartbeat shows a run yet',
    );
    // Only a heartbeat shows the run of a sent-back revision (ferry's worker does not claim again).
    expect(why(card({ state: 'changes_requested', run_lane: 'running', latest_revision: 2 }), ctx)).toBe('changes requested on revision 2: fang is running revision 3');
    expect(why(card({ state: 'changes_requested', lane: 'stale', run_lane: 'stale', latest_revision: 2 }), ctx)).toBe("changes requested on revision 2: fang's run of revision 3 stopped writing");
    expect(why(card({ state: 'awaiting_review', lane: 'review', latest_revision: 1 }), ctx)).toBe('revision 1 awaits review');
    expect(why(card({ state: 'done', lane: 'done', latest_revision: 1 }), ctx)).toBe('done: result at revision 1');
    expect(why(card({ state: 'accepted', lane: 'done', latest_revision: 4 }), ctx)).toBe('accepted at revision 4');
    expect(why(card({ state: 'closed', lane: 'done' }), ctx)).toBe("closed: an operator acknowledged fang's give-up");
  });
});

describe('heartbeatNote: both clocks side by side', () => {
  it('shows the local arrival relative and the writer clock converted to UTC', () => {
    expect(heartbeatNote(card({ heartbeat: hb(NOW - 3 * MIN, '2026-11-30T11:06:00+02:00') }), NOW)).toBe(
      'last heartbeat arrived 3 min ago (its clock said 09:06 UTC)',
    );
    expect(heartbeatNote(card({}), NOW)).toBeNull();
  });
});

describe('listWords', () => {
  it('joins', () => {
    expect(listWords([])).toBe('');
    expect(listWords(['a'])).toBe('a');
    expect(listWords(['a', 'b'])).toBe('a and b');
  });
});
