/**
 * The rules added to the rulebook, each on a small folder built in memory (the real-ferry
 * channels of conformance/ferry hold them to ferry's own files): work done twice, an order
 * addressed to a name nobody has, a review loop, and whether an interrupt's acknowledgement can be
 * of it, told without comparing two writers' clocks.
 */
import { describe, expect, it } from 'vitest';
import { ChannelBuilder } from '../../../test/support/channel-builder';
import type { OrderFacts } from './facts';
import { interruptsOf, seenOf } from './interrupts';
import { ledgerFactsOf, ledgerRetiredNames } from '../ledger-facts';
import { RULEBOOK } from '.';
import { ATTENTION_FLAGS } from '../card';
import type { LedgerFileReport } from '../ledger-file';
import type { Roster } from '../verify';

const base = () => new ChannelBuilder().roster();

describe('the rulebook', () => {
  it('has one rule, with its words, for every flag, in the order cards list them', () => {
    expect(RULEBOOK.map((r) => r.flag)).toEqual([...ATTENTION_FLAGS]);
    for (const r of RULEBOOK) for (const w of [r.label, r.glossary, r.rule, r.ferry, r.clocks]) expect(w.trim().length).toBeGreaterThan(0);
  });
});

describe('work done twice', () => {
  it('flags a released agent\'s result another agent did again, until an ack names both, whatever the state', () => {
    const b = base().order('t1').claim('t1', 'wisp').release('t1', 'wisp', 'ops', { reason: 'retired', ferrymanName: true }).result('t1', 'wisp', 1).claim('t1', 'nebra').result('t1', 'nebra', 2);
    const c = b.card('t1');
    expect([c.state, c.holder, c.flags, c.late_target]).toEqual(['done', 'nebra', ['late_result'], 'late:1:wisp:twice:nebra']);
    expect(c.alerts[0]?.text).toMatch(/^result by wisp at revision 1, whose claim was released, and nebra's at revision 2: .*done twice/);
    b.ack('t1', 'late:1:wisp:twice:nebra');
    expect(b.card('t1').flags).toEqual([]);
  });
  it('is not a revision sent back and redone by another: a review of the earlier revision decided it', () => {
    const b = base().order('t1', { requires_review: true }).claim('t1', 'wisp').result('t1', 'wisp', 1).review('t1', 1, false).release('t1', 'wisp', 'ops').claim('t1', 'nebra').result('t1', 'nebra', 2);
    expect(b.card('t1').flags).toEqual([]);
  });
});

describe('addressed to a name nobody has', () => {
  it('flags an offered order whose assignee no roster knows, with supersede as the way out', () => {
    const c = base().order('t1', { assigned_to: 'nebar' }).card('t1');
    expect([c.state, c.flags]).toEqual(['offered', ['unknown_assignee']]);
    expect(c.alerts[0]?.text).toContain('whom no roster knows');
    expect(c.alerts[0]?.text).toContain('supersede');
  });
  it('leaves a reserved name (a keyless roster entry) alone: it may come online', () => {
    expect(base().agent('kite', 'worker', { key: null }).order('t1', { assigned_to: 'kite' }).card('t1').flags).toEqual([]);
  });
});

describe('a review loop', () => {
  const loop = (n: number, reviewer: string) => {
    const b = base().order('t1', { requires_review: true }).claim('t1', 'nebra');
    for (let r = 1; r <= n; r++) b.result('t1', 'nebra', r).review('t1', r, false, { reviewer });
    return b.card('t1');
  };
  it('needs a person after three send-backs in a row by a machine reviewer', () => {
    expect(loop(3, 'fang').flags).toEqual(['review_loop']);
    expect(loop(2, 'fang').flags).toEqual([]);
  });
});

describe('whether an acknowledgement can be of the interrupt (no two writers\' clocks compared)', () => {
  const facts = (issued: number | null, ackMs: number, interruptMs: number): OrderFacts =>
    ({
      order: { id: 't1' },
      folder: {
        interrupts: [{ record: { issued_by: 'ops', action: 'pause', note: '' }, arrivalMs: interruptMs, path: 'tasks/t1/interrupt.ops.json' }],
        interruptAcks: [{ record: { issued_by: 'ops', agent: 'fang' }, arrivalMs: ackMs, path: 'tasks/t1/interrupt.ops.fang.acked.json' }],
      },
      ctx: issued === null ? {} : { ledger: { retires: new Map(), interrupts: new Map([['t1', new Map([['ops', issued]])]]), acted: new Map() } },
    }) as unknown as OrderFacts;
  const seen = (f: OrderFacts) => seenOf(f, interruptsOf(f)[0]!).seen;
  it('the sync race: the only interrupt, its acknowledgement arrived here first, is seen', () => {
    expect(seen(facts(1, 1_000, 2_000))).toBe('seen');
    expect(seen(facts(null, 1_000, 2_000))).toBe('seen');
  });
  it('a later interrupt of the same issuer that arrived after the acknowledgement was never seen', () => {
    expect(seen(facts(2, 1_000, 2_000))).toBe('unseen');
  });
  it('where the acknowledgement arrived after it, it cannot be told', () => {
    expect(seen(facts(2, 3_000, 2_000))).toBe('unknown');
    expect(seen(facts(2, 2_000, 2_000))).toBe('unknown');
  });
});

describe('an interrupt the holder will not see (every kind ferry has: kill, pause, steer)', () => {
  const steers = (n: number) => Array.from({ length: n }, () => ({ kind: 'interrupt', summary: 'steer interrupt on t1', reference: 't1' }));
  // fang ran revision 1 (acknowledging ops's first steer) and it was sent back; ops steered again,
  // which overwrote interrupt.ops.json. The acknowledgement arrived here 200 s ago.
  const sentBack = (issued: number, steerAge: number) =>
    base()
      .order('t1', { requires_review: true })
      .claim('t1', 'fang', { age: 900 })
      .interruptAck('t1', 'ops', 'fang', { age: 200 })
      .result('t1', 'fang', 1, { age: 150 })
      .review('t1', 1, false, { age: 120 })
      .interrupt('t1', 'steer', 'Use the v2 API.', { age: steerAge })
      .ledger('ops', steers(issued));
  const why = "(ops's ledger has 2 interrupts on this order; ferry keeps only the last in its file and reads one acknowledgement per issuer as having seen any of them)";
  it('an overwritten steer whose acknowledgement arrived here before it was never seen: an alarm that says so', () => {
    const c = sentBack(2, 100).card('t1');
    expect([c.state, c.lane, c.flags]).toEqual(['changes_requested', 'attention', ['interrupt_unacknowledged']]);
    expect(c.alerts[0]?.text).toBe(
      `ops's steer ("Use the v2 API.") was never seen by fang: the acknowledgement arrived here before it, so it is of an earlier interrupt ${why}: fang will not see it at any later run either`,
    );
  });
  it('where the acknowledgement arrived after it, the card says it may not have been seen', () => {
    const c = sentBack(2, 300).card('t1');
    expect(c.flags).toEqual(['interrupt_unacknowledged']);
    expect(c.alerts[0]?.text).toBe(`ops's steer ("Use the v2 API.") may not have been seen by fang ${why}: fang will not see it at any later run either`);
  });
  it('the sync race: the only steer, whose acknowledgement arrived here before it, is seen: no alarm', () => {
    const c = sentBack(1, 100).card('t1');
    expect([c.state, c.lane, c.flags]).toEqual(['changes_requested', 'queue', []]);
    // No ledger at all says nothing otherwise either.
    const bare = base().order('t1').claim('t1', 'fang').interruptAck('t1', 'ops', 'fang', { age: 200 }).interrupt('t1', 'steer', 'Use the v2 API.', { age: 100 }).heartbeat('t1', 'fang');
    expect(bare.card('t1').flags).toEqual([]);
  });
  it('once a result is in, an unseen steer is a note for the reviewer, not an alarm', () => {
    const c = sentBack(2, 100).result('t1', 'fang', 2, { age: 10 }).card('t1');
    expect([c.state, c.flags]).toEqual(['awaiting_review', []]);
    expect(c.notes).toContain(`ops's steer ("Use the v2 API.") was never seen by fang: the acknowledgement arrived here before it, so it is of an earlier interrupt ${why}: the result was made without it`);
  });
  it('a steer that overwrote an acknowledged kill is never seen by the worker that will run the order again', () => {
    // fang acknowledged the kill and deleted its claim (ferry offers the addressed order to fang again); ops then steered.
    const b = base()
      .order('t1', { assigned_to: 'fang' })
      .interruptAck('t1', 'ops', 'fang', { age: 200 })
      .interrupt('t1', 'steer', 'Go ahead, on the v2 API.', { age: 100 })
      .ledger('ops', [{ kind: 'interrupt', summary: 'kill interrupt on t1', reference: 't1' }, ...steers(1)]);
    const c = b.card('t1');
    expect([c.state, c.flags]).toEqual(['offered', ['interrupt_unacknowledged']]);
    expect(c.alerts[0]?.text).toMatch(/^ops's steer \("Go ahead, on the v2 API\."\) was never seen by fang: .*: fang will not see it at any later run either$/);
  });
  it('the worker\'s own ledger says it acted on a kill: a steer in the file now was never seen, whatever the arrivals and with no issuer ledger', () => {
    // The acknowledgement arrived after the steer (a copy, a first index: arrivals in any order).
    const c = base()
      .order('t1', { assigned_to: 'fang' })
      .interrupt('t1', 'steer', 'Go ahead, on schema v3.', { age: 300 })
      .interruptAck('t1', 'ops', 'fang', { age: 200 })
      .ledger('fang', [{ kind: 'interrupt', summary: 'killed t1 on interrupt from ops', reference: 't1' }])
      .card('t1');
    expect([c.state, c.flags]).toEqual(['offered', ['interrupt_unacknowledged']]);
    expect(c.alerts[0]?.text).toBe(
      `ops's steer ("Go ahead, on schema v3.") was never seen by fang: its ledger says it acted on a kill of ops's, so the acknowledgement is of that earlier interrupt (ferry keeps only the last in its file and reads one acknowledgement per issuer as having seen any of them): fang will not see it at any later run either`,
    );
  });
  it('an acknowledged kill or pause stays stop_not_holding\'s; an unacknowledged steer waits for the next run when none is going', () => {
    const kill = base().order('t1', { assigned_to: 'fang' }).interruptAck('t1', 'ops', 'fang', { age: 200 }).interrupt('t1', 'pause', 'Hold.', { age: 300 }).card('t1');
    expect(kill.flags).toEqual(['stop_not_holding']);
    const waiting = base().order('t1', { requires_review: true }).claim('t1', 'fang', { age: 900 }).result('t1', 'fang', 1).review('t1', 1, false).interrupt('t1', 'steer', 'Use v2.', { age: 900 });
    expect(waiting.card('t1').flags).toEqual([]);
    // The same steer while fang runs revision 2 (its heartbeat shows it) is not seen by that run.
    expect(waiting.heartbeat('t1', 'fang').card('t1').flags).toEqual(['interrupt_unacknowledged']);
  });
});

describe('ledger facts', () => {
  const line = (actor: string, kind: string, summary: string, reference: string, ok = true) => ({ line: 1, kind, actor, summary, reference, ok }) as unknown as LedgerFileReport['lines'][number];
  const roster = { authorities: new Set(['orchestrator', 'ops']) } as unknown as Roster;
  it('keeps each retire an authority\'s ledger says it made, and counts interrupts per issuer', () => {
    const report = {
      lines: [
        line('orchestrator', 'release', "released wisp's claim on r1 (retired)", 'r1'),
        line('orchestrator', 'release', "released kite's claim on r1 (retired)", 'r1'),
        line('fang', 'release', "released wisp's claim on r2 (retired)", 'r2'),
        line('ops', 'interrupt', 'kill interrupt on i1', 'i1'),
        line('ops', 'interrupt', 'pause interrupt on i1', 'i1'),
        line('ops', 'interrupt', 'kill interrupt on i2', 'i2', false),
        // A worker's line that it acted on one (O/agent.rs do_work) is not an interrupt issued.
        line('fang', 'interrupt', 'killed i1 on interrupt from ops', 'i1'),
        line('wisp', 'interrupt', 'paused i1 on interrupt from Ops', 'i1'),
        line('wisp', 'interrupt', 'paused i2 on interrupt from ops', 'i1'),
      ],
    } as unknown as LedgerFileReport;
    const f = ledgerFactsOf([report], roster);
    expect(f.retires.get('r1')).toEqual([{ agent: 'wisp', by: 'orchestrator' }, { agent: 'kite', by: 'orchestrator' }]);
    expect(f.retires.has('r2')).toBe(false);
    expect(f.interrupts.get('i1')?.get('ops')).toBe(2);
    expect(f.interrupts.get('i1')?.has('fang')).toBe(false);
    // What each worker acted on, issuers folded to their canonical names; a line naming another order than its reference says nothing.
    expect([...(f.acted.get('i1') ?? [])]).toEqual([
      ['fang', ['ops:kill']],
      ['wisp', ['ops:pause']],
    ]);
    expect(f.interrupts.has('i2')).toBe(false);
    expect([...ledgerRetiredNames(f)].sort()).toEqual(['kite', 'wisp']);
  });
});
