/**
 * Derived state, staleness, flags and lanes on small folders built in
 * memory. Each expectation is read off the rule it cites.
 */
import { describe, expect, it } from 'vitest';
import { ChannelBuilder } from '../../test/support/channel-builder';
import { laneOf } from './derive';

const base = () => new ChannelBuilder().roster();

describe('holder (§7.1)', () => {
  it('is the active claim with the smallest claimed_at, writer clocks compared as instants', () => {
    // fang wrote 10:30+02:00 = 08:30Z, earlier than wisp's 09:00Z although its text sorts later.
    const b = base().order('t1').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:00:00Z' }).claim('t1', 'fang', { claimed_at: '2026-11-20T10:30:00+02:00' });
    expect(b.card('t1').holder).toBe('fang');
  });
  it('breaks a tie on claimed_at by the smaller agent name', () => {
    const b = base().order('t1').claim('t1', 'wisp').claim('t1', 'nebra');
    expect(b.card('t1').holder).toBe('nebra');
  });
  it('skips a released claim and falls to the next', () => {
    const b = base().order('t1').claim('t1', 'fang').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).release('t1', 'fang', 'ops');
    expect(b.card('t1').holder).toBe('wisp');
  });
  it('is the assignee whatever the claims say; an assignee without a claim is offered', () => {
    const b = base().order('t1', { assigned_to: 'wisp' }).claim('t1', 'fang');
    const c = b.card('t1');
    expect([c.holder, c.state, c.lane]).toEqual(['wisp', 'offered', 'queue']);
  });
});

describe('staleness on this machine\'s clock (§6)', () => {
  it('is fresh at exactly stale_after and stale one second later, since = arrival + stale_after', () => {
    expect(base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang', { age: 300 }).card('t1').state).toBe('claimed');
    const b = base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang', { age: 301 });
    const c = b.card('t1');
    expect(c.state).toBe('stale');
    expect(c.since_ms).toBe(b.nowMs - 301_000 + 300_000);
  });
  it('uses the claim\'s arrival when no heartbeat was ever written: no_heartbeat', () => {
    expect(base().order('t1').claim('t1', 'fang', { age: 299 }).card('t1').state).toBe('claimed');
    const c = base().order('t1').claim('t1', 'fang', { age: 400 }).card('t1');
    expect([c.state, c.reason]).toEqual(['stale', 'no_heartbeat']);
  });
  it('never looks at the heartbeat\'s own `at`: an hours-old writer clock on a fresh file is fresh', () => {
    expect(base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang', { at: '2020-01-01T00:00:00Z', age: 1 }).card('t1').state).toBe('claimed');
  });
  it('says agent_silent when nothing of the holder arrived within stale_after, even its roster entry being new', () => {
    const c = base().order('t1').agent('fang', 'worker', { age: 0 }).claim('t1', 'fang', { age: 900 }).heartbeat('t1', 'fang', { age: 600 }).card('t1');
    expect(c.reason).toBe('agent_silent');
  });
  it('says heartbeat_lapsed when another file of the holder keeps arriving (its ledger file counts)', () => {
    const c = base().order('t1').claim('t1', 'fang', { age: 900 }).heartbeat('t1', 'fang', { age: 600 }).ledger('fang', ['still here'], { age: 10 }).card('t1');
    expect(c.reason).toBe('heartbeat_lapsed');
  });
  it('counts a release signed by the holder elsewhere as a file of the holder', () => {
    const c = base()
      .order('t1').claim('t1', 'fang', { age: 900 }).heartbeat('t1', 'fang', { age: 600 })
      .order('t2').claim('t2', 'fang', { age: 900 }).release('t2', 'fang', 'fang', { age: 5, ferrymanName: true })
      .card('t1');
    expect(c.reason).toBe('heartbeat_lapsed');
  });
  it('scales with the configured window', () => {
    const b = base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang', { age: 40 });
    expect(b.card('t1', { staleAfterS: 60 }).state).toBe('claimed');
    expect(b.card('t1', { staleAfterS: 30 }).state).toBe('stale');
  });
});

describe('results and reviews (§7.4)', () => {
  it('done without requires_review; awaiting_review with it', () => {
    expect(base().order('t1').claim('t1', 'fang').result('t1', 'fang', 1).card('t1').state).toBe('done');
    const c = base().order('t1', { requires_review: true }).claim('t1', 'fang').result('t1', 'fang', 1).card('t1');
    expect([c.state, c.lane]).toEqual(['awaiting_review', 'review']);
  });
  it('only the review at the latest revision counts', () => {
    const b = base().order('t1', { requires_review: true }).claim('t1', 'fang').result('t1', 'fang', 1).review('t1', 1, false).result('t1', 'fang', 2);
    expect(b.card('t1').state).toBe('awaiting_review');
    b.review('t1', 2, true);
    const c = b.card('t1');
    expect([c.state, c.lane, c.target]).toEqual(['accepted', 'done', 'review:2']);
  });
  it('a rejected latest review is changes_requested: in the Queue until a heartbeat shows the next revision running', () => {
    // ferry's work_for offers it to its holder alone, whose next pass runs it without claiming again:
    // fang's claim is the first run's; nothing shows a second one.
    const b = base().order('t1').claim('t1', 'fang').result('t1', 'fang', 1).review('t1', 1, false);
    expect([b.card('t1').state, b.card('t1').lane, b.card('t1').run_lane]).toEqual(['changes_requested', 'queue', undefined]);
    b.heartbeat('t1', 'fang', { age: 10 });
    expect([b.card('t1').state, b.card('t1').lane, b.card('t1').run_lane]).toEqual(['changes_requested', 'running', 'running']);
  });
  it('the run of a sent-back revision whose heartbeat stopped arriving is Stale; one its writer released is over', () => {
    const stale = base().order('t1').claim('t1', 'fang').result('t1', 'fang', 1).review('t1', 1, false).heartbeat('t1', 'fang', { age: 301 }).card('t1');
    // fang's other files (claim, result) arrived just now: its heartbeat lapsed while it writes elsewhere.
    expect([stale.state, stale.lane, stale.run_lane, stale.reason]).toEqual(['changes_requested', 'stale', 'stale', 'heartbeat_lapsed']);
    // Addressed, so fang still holds it after its own "worker died mid-run" release: the heartbeat is a leftover.
    const over = base()
      .order('t1', { assigned_to: 'fang' })
      .claim('t1', 'fang')
      .result('t1', 'fang', 1)
      .review('t1', 1, false)
      .heartbeat('t1', 'fang', { at: '2026-11-20T09:10:00Z' })
      .release('t1', 'fang', 'fang', { reason: 'worker died mid-run' })
      .card('t1');
    expect([over.state, over.holder, over.lane, over.run_lane]).toEqual(['changes_requested', 'fang', 'queue', undefined]);
  });
  it('a reopen of the latest result puts the order back to claimed/stale; of an older one, not', () => {
    const b = base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang', { age: 1 }).result('t1', 'fang', 1).result('t1', 'fang', 2);
    b.reopen('t1', 'result:1');
    expect(b.card('t1').state).toBe('done');
    b.reopen('t1', 'result:2', { operator: 'ops' });
    expect(b.card('t1').state).toBe('claimed');
  });
  it('a reopen of the accepting review (review:<latest>) reopens too', () => {
    const b = base().order('t1').claim('t1', 'fang', { age: 1000 }).result('t1', 'fang', 1).review('t1', 1, true).reopen('t1', 'review:1');
    const c = b.card('t1');
    expect([c.state, c.reason]).toEqual(['stale', 'no_heartbeat']);
  });
  it('a result by someone other than the holder is late_result, and does not finish the holder\'s order', () => {
    const c = base().order('t1').claim('t1', 'fang').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).result('t1', 'wisp', 1).card('t1');
    // R is wisp's result (the only one at latest); the state follows it, the flag says it is not the holder's.
    expect([c.holder, c.state, c.flags]).toEqual(['fang', 'done', ['late_result']]);
  });
});

describe('acknowledging a late result (claimboard extension, docs/channel-format.md)', () => {
  // Vector 15's story: ops re-queued fang, whose result arrived after; ferry reads the order open.
  const late = () => base().order('t1').claim('t1', 'fang').release('t1', 'fang', 'ops', { reason: 'requeued: stale' }).result('t1', 'fang', 1);

  it('names the late results and whether ferry reads the order open: late:<revision>:<agents>:open', () => {
    const c = late().card('t1');
    expect([c.state, c.lane, c.flags, c.late_target]).toEqual(['open', 'attention', ['late_result'], 'late:1:fang:open']);
  });
  it("an operator's ack naming that target lowers the flag: the lane is the state's, a note says who", () => {
    const c = late().ack('t1', 'late:1:fang:open').card('t1');
    expect([c.state, c.lane, c.flags, c.late_target]).toEqual(['open', 'queue', [], 'late:1:fang:open']);
    expect(c.notes).toContain('ops acknowledged the late result by fang ("acknowledged"): ferry hands the order out again');
    // Among other targets of the same ack, case and spacing aside.
    expect(late().ack('t1', ' giveup:00  LATE:1:FANG:OPEN ').card('t1').flags).toEqual([]);
  });
  it('an ack naming other results, another revision, or by a worker, lowers nothing', () => {
    expect(late().ack('t1', 'late:1:wisp:open').card('t1').flags).toEqual(['late_result']);
    expect(late().ack('t1', 'late:2:fang:open').card('t1').flags).toEqual(['late_result']);
    expect(late().ack('t1', 'late:1:fang').card('t1').flags).toEqual(['late_result']);
    // A worker may not sign an ack: the file is a problem row, the flag stays.
    expect(late().ack('t1', 'late:1:fang:open', { operator: 'wisp' }).card('t1').flags).toEqual(['late_result', 'bad_record']);
  });
  it('a further late result at that revision raises the flag again, with a target naming both', () => {
    const c = late().ack('t1', 'late:1:fang:open').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).release('t1', 'wisp', 'ops', { reason: 'requeued: stale' }).result('t1', 'wisp', 1).card('t1');
    expect([c.lane, c.flags, c.late_target]).toEqual(['attention', ['late_result'], 'late:1:fang,wisp:open']);
  });
  it('a worker claiming the order after the ack raises it again: ferry now counts the late result (done), which the ack did not accept', () => {
    const c = late().ack('t1', 'late:1:fang:open').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).card('t1');
    expect([c.holder, c.state, c.lane, c.flags, c.late_target]).toEqual(['wisp', 'done', 'attention', ['late_result'], 'late:1:fang:held:wisp']);
  });
  it('on a finished order held by another, the ack leaves the order done: ferry counts the result', () => {
    const c = base().order('t1').claim('t1', 'fang').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).result('t1', 'wisp', 1).ack('t1', 'late:1:wisp:held:fang').card('t1');
    expect([c.holder, c.state, c.lane, c.flags]).toEqual(['fang', 'done', 'done', []]);
    expect(c.notes).toContain('ops acknowledged the late result by wisp ("acknowledged"): ferry counts it');
  });
  it("beside the holder's own result at the latest revision, another's is the work done twice: flagged, and ferry counts the holder's", () => {
    const twice = () => base().order('t1').claim('t1', 'fang').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).result('t1', 'fang', 1).result('t1', 'wisp', 1);
    const c = twice().card('t1');
    expect([c.holder, c.state, c.flags, c.late_target]).toEqual(['fang', 'done', ['late_result'], 'late:1:wisp:twice:fang']);
    expect(c.alerts[0]?.text).toBe("result by wisp at revision 1 as well as fang's, who holds it: the work was done twice; ferry counts fang's; acknowledge it if that is fine");
    const acked = twice().ack('t1', 'late:1:wisp:twice:fang').card('t1');
    expect([acked.lane, acked.notes]).toEqual(['done', ['ops acknowledged the late result by wisp ("acknowledged"): ferry counts fang\'s']]);
  });
  it("an ack of a held late result does not cover the holder's own result arriving after (the work then done twice)", () => {
    const b = base().order('t1').claim('t1', 'fang').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).result('t1', 'wisp', 1).ack('t1', 'late:1:wisp:held:fang');
    expect(b.card('t1').flags).toEqual([]);
    const c = b.result('t1', 'fang', 1).card('t1');
    expect([c.lane, c.flags, c.late_target]).toEqual(['attention', ['late_result'], 'late:1:wisp:twice:fang']);
  });
  it('a reopened latest result raises no late_result: the reopen is the operator\'s decision on that revision', () => {
    const c = base().order('t1').claim('t1', 'fang').result('t1', 'wisp', 1).reopen('t1', 'result:1').card('t1');
    expect([c.state, c.flags, c.late_target, c.decided]).toEqual(['claimed', [], undefined, { acks: {}, reopens: { ops: 'result:1' } }]);
  });
  it("each operator's ack and reopen are on the card as they read (the next file of that kind must name them again)", () => {
    const b = base().order('t1').claim('t1', 'fang').giveup('t1', 'fang');
    const g = `giveup:${b.digestOf('tasks/t1/giveup.fang.json')}`;
    const c = b.ack('t1', ` ${g.toUpperCase()}  late:9:x:open`).result('t1', 'wisp', 1).card('t1');
    expect([c.state, c.flags, c.decided, c.late_target]).toEqual(['done', ['late_result'], { acks: { ops: `${g} late:9:x:open` }, reopens: {} }, 'late:1:wisp:held:fang']);
  });
});

describe('give-ups, acknowledgements and reopens (§4, §7.3)', () => {
  it('gave_up carries the give-up reason and targets its digest', () => {
    const b = base().order('t1').claim('t1', 'fang').giveup('t1', 'fang', 'contract cannot be met');
    const c = b.card('t1');
    expect([c.state, c.lane, c.flags, c.reason]).toEqual(['gave_up', 'attention', ['gave_up'], 'contract cannot be met']);
    expect(c.target).toBe(`giveup:${b.digestOf('tasks/t1/giveup.fang.json')}`);
  });
  it('an ack of that digest closes it; an ack of an earlier give-up does not', () => {
    const b = base().order('t1').claim('t1', 'fang').giveup('t1', 'fang', 'first');
    const first = b.digestOf('tasks/t1/giveup.fang.json');
    b.giveup('t1', 'fang', 'second'); // rewritten by the holder: a new digest
    b.ack('t1', `giveup:${first}`);
    expect(b.card('t1').state).toBe('gave_up');
    b.ack('t1', `giveup:${b.digestOf('tasks/t1/giveup.fang.json')}`);
    const c = b.card('t1');
    expect([c.state, c.lane]).toEqual(['closed', 'done']);
  });
  it('a reopen of the give-up voids it: the run is judged by its heartbeat again', () => {
    const b = base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang', { age: 2 }).giveup('t1', 'fang');
    b.reopen('t1', `giveup:${b.digestOf('tasks/t1/giveup.fang.json')}`);
    expect(b.card('t1').state).toBe('claimed');
  });
  it('a give-up by someone who is not the holder changes nothing', () => {
    const c = base().order('t1').claim('t1', 'fang').claim('t1', 'wisp', { claimed_at: '2026-11-20T09:10:00Z' }).giveup('t1', 'wisp').card('t1');
    expect(c.state).toBe('claimed');
  });
});

describe('flags (§7)', () => {
  it('double_run: another agent\'s fresh heartbeat; a stale one is not', () => {
    const b = base().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang').heartbeat('t1', 'wisp', { age: 400 });
    expect(b.card('t1').flags).toEqual([]);
    b.heartbeat('t1', 'wisp', { age: 10 });
    expect(b.card('t1').flags).toEqual(['double_run']);
  });
  it('retired_holder: an assignee or claimant with a valid retirement', () => {
    const c = base().order('t1', { assigned_to: 'fang' }).claim('t1', 'fang').retire('fang').card('t1');
    expect([c.state, c.lane, c.flags]).toEqual(['claimed', 'attention', ['retired_holder']]);
  });
  it('released_assignee: the assignee\'s claim is released', () => {
    const c = base().order('t1', { assigned_to: 'fang' }).claim('t1', 'fang').release('t1', 'fang', 'ops').card('t1');
    expect([c.state, c.holder, c.flags]).toEqual(['offered', 'fang', ['released_assignee']]);
  });
  it('bad_record for a problem row in the order\'s folder; sync_conflict for a conflict copy', () => {
    const b = base().order('t1').claim('t1', 'fang').raw('tasks/t1/result.fang.001.json', '{"order_id": "t1",');
    expect(b.card('t1').flags).toEqual(['bad_record']);
    b.raw('tasks/t1/claim.fang.sync-conflict-20261120-090512-ABCDEFG.json', '{}');
    expect(b.card('t1').flags).toEqual(['bad_record', 'sync_conflict']);
  });
  it('missing_dependency, and blocked until every dependency is done or accepted', () => {
    const b = base().order('a').order('b', { depends_on: ['a'] }).order('c', { depends_on: ['a', 'zzz'] });
    expect(b.card('b').state).toBe('blocked');
    const c = b.card('c');
    expect([c.state, c.lane, c.flags]).toEqual(['blocked', 'attention', ['missing_dependency']]);
    b.claim('a', 'fang').heartbeat('a', 'fang');
    expect(b.card('b').state).toBe('blocked'); // claimed is not finished
    b.result('a', 'fang', 1);
    expect(b.card('b').state).toBe('open');
  });
  it('a dependency that is awaiting review still blocks; accepted does not', () => {
    const b = base().order('a', { requires_review: true }).claim('a', 'fang').result('a', 'fang', 1).order('b', { depends_on: ['a'] });
    expect(b.card('b').state).toBe('blocked');
    b.review('a', 1, true);
    expect(b.card('b').state).toBe('open');
  });
});

describe('lanes (§7 "Lanes")', () => {
  it('maps every state to its lane and any flag to attention', () => {
    expect(laneOf('stale', [])).toBe('stale');
    expect(laneOf('claimed', [])).toBe('running');
    expect(laneOf('changes_requested', [])).toBe('queue');
    expect(laneOf('changes_requested', [], 'running')).toBe('running');
    expect(laneOf('changes_requested', [], 'stale')).toBe('stale');
    expect(laneOf('awaiting_review', [])).toBe('review');
    for (const s of ['open', 'offered', 'blocked'] as const) expect(laneOf(s, [])).toBe('queue');
    for (const s of ['done', 'accepted', 'closed'] as const) expect(laneOf(s, [])).toBe('done');
    expect(laneOf('done', ['late_result'])).toBe('attention');
    expect(laneOf('stale', ['bad_record'])).toBe('attention');
  });
});
