import { describe, expect, it } from 'vitest';
import type { Card } from '@/lib/ledger/derive';
import { buildAction, decisionPath, reopenTargetOf } from '@/lib/ledger/actions';
import { sha256HexOfText } from '@/lib/ledger/canonical';
import { naclSign } from '@/lib/ledger/nacl-verify';
import { ackCheck, ackPlan, ackWhat, bulkFleetEffect, bulkOutcome, chainActions, fleetEffect, notAppliedText, offersReload, planChange, plannedFiles, refusalText, reopenCheck, requeueCheck, requeueRelevant, retireCheck, saysAlive, saysIdTaken } from './action-plan';
import { reasonCodeOf } from './api';

const SEED = '6d68517bd645bea101e11cba05adb9d59d0bc49f579c3df82192e1946bb45e4c'; // ops in conformance/vectors/keys.json

function card(over: Partial<Card> = {}): Card {
  return {
    order_id: 't1',
    state: 'stale',
    lane: 'stale',
    holder: 'fang',
    flags: [],
    project_id: 'p',
    assigned_to: null,
    issued_by: 'ops',
    created_at: '2026-11-20T09:00:00Z',
    depends_on: [],
    requires_review: false,
    latest_revision: null,
    holder_fresh: false,
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

describe('re-queue from the card', () => {
  it('is allowed on a stale or given-up order whose holder is not fresh', () => {
    expect(requeueCheck(card())).toBeNull();
    expect(requeueCheck(card({ state: 'gave_up', flags: ['gave_up'], holder_fresh: null }))).toBeNull();
    expect(requeueCheck(card({ state: 'claimed', flags: ['retired_holder'] }))).toBeNull();
  });

  it('is refused while the holder is fresh, without a holder, or on other states', () => {
    expect(requeueCheck(card({ state: 'gave_up', holder_fresh: true }))).toBe("fang's heartbeat on t1 is fresh: a live run is never stolen from");
    expect(requeueCheck(card({ holder: null }))).toMatch(/no active claim/);
    expect(requeueCheck(card({ state: 'offered', flags: ['retired_holder'] }))).toMatch(/no active claim/);
    expect(requeueCheck(card({ state: 'claimed' }))).toMatch(/re-queue is for stale or given-up orders/);
    expect(requeueCheck(card({ state: 'done', flags: ['retired_holder'] }))).toMatch(/is done/);
  });

  it('belongs on stale, given-up and retired-holder cards only', () => {
    expect(requeueRelevant(card())).toBe(true);
    expect(requeueRelevant(card({ state: 'claimed', flags: ['double_run'] }))).toBe(false);
    expect(requeueRelevant(card({ state: 'claimed', flags: ['retired_holder'] }))).toBe(true);
  });
});

describe('acknowledge, reopen, retire', () => {
  it('acknowledges a give-up, or a late result not yet acknowledged; one ack names both where both are', () => {
    expect(ackCheck(card({ state: 'gave_up', target: 'giveup:ab' }))).toBeNull();
    expect(ackCheck(card({ state: 'closed', target: 'giveup:ab' }))).toBe('t1 is closed: only a give-up or a late result can be acknowledged');
    const late = card({ state: 'open', holder: null, flags: ['late_result'], late_results: ['wisp'], late_target: 'late:1:wisp:open' });
    expect(ackCheck(late)).toBeNull();
    expect(ackWhat(late)).toBe('the late result');
    expect(ackPlan(late, 'ops')).toEqual({ action: 'ack', orderId: 't1', target: 'late:1:wisp:open', giveup: false, late: { agents: ['wisp'], holder: null, twice: false } });
    expect(fleetEffect(ackPlan(late, 'ops')!)).toEqual([
      'The late result by wisp is no longer an alarm; the result stays in its history. Unless another flag keeps it there, t1 leaves Needs attention for the lane of its state.',
      'Board only: ferry does not read acknowledgements. It reads t1 as open and hands it out again.',
      'The ack names the order as it is now: if a worker claims it or another late result arrives, the alarm returns.',
    ]);
    // Acknowledged: the flag is lowered, the target stays; nothing is left to acknowledge.
    expect(ackCheck({ ...late, flags: [] })).toBe('t1: its late result is already acknowledged');
    // A give-up with a late result too: one record names both (an operator has one ack file an order).
    const both = card({ state: 'gave_up', target: 'giveup:ab', flags: ['gave_up', 'late_result'], late_results: ['fang', 'wisp'], late_target: 'late:1:fang,wisp:held:nebra' });
    expect(ackWhat(both)).toBe('the give-up and the late results');
    expect(ackPlan(both, 'ops')).toMatchObject({ target: 'giveup:ab late:1:fang,wisp:held:nebra', giveup: true });
    // ops's earlier files: its new ack and reopen name all they named, so replacing them undoes nothing.
    const done = card({ state: 'done', target: 'result:1', flags: ['late_result'], late_results: ['fang', 'wisp'], late_target: 'late:1:fang,wisp:held:nebra', decided: { acks: { ops: 'giveup:ab' }, reopens: { ops: 'result:0' } } });
    expect(ackPlan(done, 'ops')).toMatchObject({ target: 'giveup:ab late:1:fang,wisp:held:nebra', giveup: false });
    // Another operator's file is theirs: ops2's ack names only the new decision.
    expect(ackPlan(done, 'ops2')).toMatchObject({ target: 'late:1:fang,wisp:held:nebra' });
    expect(reopenTargetOf(done, 'OPS')).toBe('result:0 result:1');
  });

  it('a bulk acknowledge says what happens to give-ups and late results apart', () => {
    expect(bulkFleetEffect('ack', 3, 1)).toEqual([
      'The 2 orders that gave up are closed and move to Done; each give-up stays in its history.',
      'The late result is no longer an alarm: without another flag, its order leaves Needs attention for the lane of its state; ferry hands an open one out again.',
      'Board only: ferry does not read give-ups or acknowledgements.',
    ]);
  });

  it('reopens a terminal order unless a dependent is working', () => {
    const done = card({ state: 'done', target: 'result:1', holder_fresh: null });
    expect(reopenCheck(done, [])).toBeNull();
    expect(reopenCheck(done, [{ order_id: 'u', state: 'open' }, { order_id: 'v', state: 'done' }])).toBeNull();
    expect(reopenCheck(done, [{ order_id: 'u', state: 'claimed' }])).toBe('u (claimed) depends on t1 and already consumed its result');
    expect(reopenCheck(done, [{ order_id: 'u', state: 'gave_up' }, { order_id: 'v', state: 'awaiting_review' }])).toBe(
      'u (gave up), v (awaiting review) depend on t1 and already consumed its result',
    );
    expect(reopenCheck(card({ state: 'stale' }), [])).toMatch(/only done, accepted or closed/);
  });

  it('retires an agent that is not retired', () => {
    expect(retireCheck({ name: 'nebra', retired: false })).toBeNull();
    expect(retireCheck({ name: 'nebra', retired: true })).toBe('nebra is already retired');
  });

  it("says how a retire plan moved in one line: the count now, what was taken on and let go, five ids of each at most", () => {
    expect(planChange(['t1', 't2'], ['t2', 't3'])).toBe('it now holds 2 orders to release: 1 more (t3), 1 let go (t1)');
    expect(planChange(['t1'], [])).toBe('it now holds nothing to release: 1 let go (t1)');
    expect(planChange([], ['t9'])).toBe('it now holds 1 order to release: 1 more (t9)');
    // 400 held, 7 taken on: the line names 5 of them and counts 2, never the 400.
    const held = Array.from({ length: 400 }, (_, i) => `o${String(i).padStart(3, '0')}`);
    const more = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'];
    expect(planChange(held, [...more].reverse().concat(held))).toBe('it now holds 407 orders to release: 7 more (n1, n2, n3, n4, n5 and 2 more)');
  });
});

describe('the files each action writes', () => {
  it('names exactly the paths the server writes (decisionPath), ledger last', () => {
    const rq = plannedFiles({ action: 'requeue', orderId: 'ichabod-1650', holder: 'fang' }, 'Ops');
    expect(rq.map((f) => f.path)).toEqual(['tasks/ichabod-1650/release.ops.fang.json', 'ledger.ops.jsonl']);
    expect(rq[0]!.path).toBe(decisionPath('release', { order_id: 'ichabod-1650', releaser: 'ops', released: 'fang' }));

    expect(plannedFiles({ action: 'reopen', orderId: 'g2', target: 'giveup:ab' }, 'ops').map((f) => f.path)).toEqual(['tasks/g2/reopen.ops.json', 'ledger.ops.jsonl']);
    expect(plannedFiles({ action: 'ack', orderId: 'g1', target: 'giveup:ab', giveup: true }, 'ops').map((f) => f.path)).toEqual(['tasks/g1/ack.ops.json', 'ledger.ops.jsonl']);
    expect(plannedFiles({ action: 'retire', agent: 'nebra', orders: ['g3', 'x'] }, 'ops').map((f) => f.path)).toEqual([
      'retirements/nebra.ops.json',
      'tasks/g3/release.ops.nebra.json',
      'tasks/x/release.ops.nebra.json',
      'ledger.ops.jsonl',
    ]);
  });

  it('says what the real ferry does: releases honoured, an addressed order stays its assignee\'s, claimboard records unread', () => {
    // ferry's holder() returns assigned_to whatever releases exist (C/lib.rs Task::holder)
    expect(fleetEffect({ action: 'requeue', orderId: 'a', holder: 'fang' }).join(' ')).toMatch(/honours the release: a is Open again/);
    expect(fleetEffect({ action: 'requeue', orderId: 'a', holder: 'fang', assignedTo: 'fang' }).join(' ')).toMatch(/keeps offering it to fang.*supersede/);
    // read_task reads none of claimboard's extension kinds
    expect(fleetEffect({ action: 'ack', orderId: 'a', target: 'giveup:x', giveup: true }).join(' ')).toMatch(/ferry does not read give-ups/);
    expect(fleetEffect({ action: 'reopen', orderId: 'a', target: 'result:1' }).join(' ')).toMatch(/ferry has no reopen.*supersede/);
    expect(fleetEffect({ action: 'retire', agent: 'nebra', orders: ['g3'] }).join(' ')).toMatch(/does not read the retirement record/);
    expect(fleetEffect({ action: 'supersede', orderId: 'a', newId: 'a-2', assignTo: 'nebra' }).join(' ')).toMatch(/offered to nebra alone.*cannot withdraw/);
  });
});

describe('bulk', () => {
  it('chains each ledger line to the previous one', () => {
    const cards = [card({ order_id: 'a' }), card({ order_id: 'b' }), card({ order_id: 'c' })];
    const first = 'f'.repeat(64);
    const actions = chainActions(cards, first, (c, prev) => buildAction({ action: 'requeue', card: c, note: 'n' }, 'ops', (p) => naclSign(SEED, p), '2026-11-20T12:00:00Z', prev, 'test-channel-0001'));
    expect(actions.map((a) => a.expect.ledger_prev)).toEqual([first, sha256HexOfText(actions[0]!.ledger_line), sha256HexOfText(actions[1]!.ledger_line)]);
    for (const a of actions) expect((JSON.parse(a.ledger_line) as { prev: string }).prev).toBe(a.expect.ledger_prev);
  });

  it('tells written, not applied (sign again) and refused apart by the reason code', () => {
    expect(bulkOutcome({ order_id: 'a', status: 201, written: ['x'] })).toBe('written');
    expect(bulkOutcome({ order_id: 'a', status: 409, reason_code: 'chain_broken', reason: 'not applied: the ledger chain stopped at b; sign again' })).toBe('not_applied');
    expect(bulkOutcome({ order_id: 'a', status: 409, reason_code: 'ledger_moved', reason: 'ledger.ops.jsonl has a new line since this action was signed: sign again' })).toBe('not_applied');
    // The order itself moved on (its ack must name more now): retrying the same card would sign the same record.
    expect(bulkOutcome({ order_id: 'a', status: 409, reason_code: 'target_moved', reason: 'the ack names giveup:ab; a as it is now needs one naming giveup:00 giveup:ab: reload the order and decide again' })).toBe('refused');
    expect(bulkOutcome({ order_id: 'a', status: 409, reason_code: 'card_moved', reason: 'a is now open; you saw stale held by fang' })).toBe('refused');
    expect(bulkOutcome({ order_id: 'a', status: 422, reason_code: 'rule', reason: 'x' })).toBe('refused');
    // The words do not decide: "sign again" under another code is a refusal, a chain broken in other words is not applied.
    expect(bulkOutcome({ order_id: 'a', status: 400, reason_code: 'unbound', reason: 'the ack record names no channel; sign again' })).toBe('refused');
    expect(bulkOutcome({ order_id: 'a', status: 409, reason_code: 'chain_broken', reason: 'stopped' })).toBe('not_applied');
    expect(bulkOutcome({ order_id: 'a', status: 409, reason: 'no code: sign again' })).toBe('refused');
  });

  it('says a result not applied in the server\'s words when the chain stopped, else after "not applied"', () => {
    expect(notAppliedText({ reason_code: 'chain_broken', reason: 'not applied: the ledger chain stopped at b; sign again' })).toBe('not applied: the ledger chain stopped at b; sign again');
    expect(notAppliedText({ reason_code: 'ledger_moved', reason: 'ledger.ops.jsonl has a new line since this action was signed: sign again' })).toBe(
      'not applied: ledger.ops.jsonl has a new line since this action was signed: sign again',
    );
    expect(notAppliedText({ reason_code: 'ledger_moved' })).toBe('not applied: sign again');
  });
});

describe('refusals', () => {
  it('reads the reason code of an error body, and nothing else as one', () => {
    expect(reasonCodeOf({ error: 'conflict', reason_code: 'id_taken', message: 'there is already an order a-2; choose another id' })).toBe('id_taken');
    expect(reasonCodeOf({ error: 'conflict', message: 'there is already an order a-2; choose another id' })).toBeNull();
    expect(reasonCodeOf({ reason_code: 'there is already an order' })).toBeNull();
    expect(reasonCodeOf('id_taken')).toBeNull();
  });

  it('decides by the reason code, not the words: alive, id taken, reload offered', () => {
    expect(saysAlive({ status: 422, reason_code: 'looks_alive' })).toBe(true);
    expect(saysAlive({ status: 422, reason_code: 'rule' })).toBe(false);
    expect(saysAlive({ status: 422, reason_code: null })).toBe(false);
    expect(saysIdTaken({ status: 409, reason_code: 'id_taken' })).toBe(true);
    expect(saysIdTaken({ status: 409, reason_code: 'card_moved' })).toBe(false);
    // A conflict offers to reload the card, but not over a taken id (choosing another id is the way on), nor for a refusal that is no conflict.
    expect(offersReload({ status: 409, reason_code: 'card_moved' })).toBe(true);
    expect(offersReload({ status: 409, reason_code: 'ledger_moved' })).toBe(true);
    expect(offersReload({ status: 409, reason_code: 'id_taken' })).toBe(false);
    expect(offersReload({ status: 422, reason_code: 'rule' })).toBe(false);
  });

  it('keeps the server message verbatim, after "the board changed" for 409s', () => {
    expect(refusalText(409, 'a is now open; you saw stale held by fang')).toBe('the board changed: a is now open; you saw stale held by fang');
    expect(refusalText(403, 'fang is not an operator of this channel')).toBe('fang is not an operator of this channel');
    expect(refusalText(422, 'rule')).toBe('rule');
  });
});
