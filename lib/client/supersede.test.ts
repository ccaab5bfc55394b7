import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentSummary, Card, OrderResponse } from '@/lib/api/types';
import { buildAction } from '@/lib/ledger/actions';
import { objectGet, parseStrictJsonText, toPlain } from '@/lib/ledger/json';
import { payloadDigest } from '@/lib/ledger/canonical';
import { naclSign } from '@/lib/ledger/nacl-verify';
import { shapeRecord } from '@/lib/ledger/records';
import { addressees, defaultAddressee, knownOrderIds, newIdProblem, payloadCopiesExactly, proposedId, supersedeCheck, supersedeInput, supersedeLabel, supersedeRelevant } from './supersede';

const SEED = '6d68517bd645bea101e11cba05adb9d59d0bc49f579c3df82192e1946bb45e4c'; // ops in conformance/vectors/keys.json
const VECTORS = path.resolve(__dirname, '../../conformance/vectors');

function card(over: Partial<Card> = {}): Card {
  return {
    order_id: 'w1',
    state: 'offered',
    lane: 'attention',
    holder: 'wisp',
    flags: ['retired_holder'],
    project_id: 'alpha',
    assigned_to: 'wisp',
    issued_by: 'orchestrator',
    created_at: '2026-12-01T08:36:02.973227138Z',
    depends_on: [],
    requires_review: false,
    latest_revision: null,
    holder_fresh: null,
    heartbeat: null,
    missing_dependencies: [],
    other_runs: [],
    late_results: [],
    ferry: { state: 'offered', holder: 'wisp' },
    alerts: [],
    notes: [],
    ...over,
  };
}

function agent(name: string, over: Partial<AgentSummary> = {}): AgentSummary {
  return { name, role: 'worker', is_operator: false, retired: false, public_key: null, key_changed: false, holding: 0, last_arrival_ms: null, clock_offset_ms: null, ...over };
}

/** An order answer's `order` for a vector's order.json, as the server builds it (payload plain, digest of the bytes). */
function orderOf(file: string): OrderResponse['order'] {
  const text = fs.readFileSync(file, 'utf8');
  const p = parseStrictJsonText(text);
  if (!p.ok) throw new Error(p.reason);
  const payload = objectGet(p.node, 'payload');
  if (!payload) throw new Error('no payload');
  const o = JSON.parse(text) as Record<string, unknown>;
  return {
    id: o.id as string,
    project_id: o.project_id as string,
    issued_by: o.issued_by as string,
    assigned_to: (o.assigned_to as string | undefined) ?? null,
    created_at: o.created_at as string,
    requires_review: o.requires_review as boolean,
    requires_approval: o.requires_approval as boolean,
    depends_on: (o.depends_on as string[] | undefined) ?? [],
    result_contract: (o.result_contract as { required: string[] } | undefined) ?? null,
    supersedes: null,
    payload: toPlain(payload),
    payload_digest: payloadDigest(payload),
  };
}

describe('where supersede is offered', () => {
  it('on an addressed order nobody will run, on a give-up, and on finished orders ("do it again in ferry")', () => {
    expect(supersedeRelevant(card())).toBe(true);
    expect(supersedeCheck(card())).toBeNull();
    expect(supersedeRelevant(card({ flags: ['released_assignee'] }))).toBe(true);
    expect(supersedeRelevant(card({ state: 'gave_up', flags: ['gave_up'], assigned_to: null }))).toBe(true);
    for (const state of ['done', 'accepted', 'closed'] as const) {
      const c = card({ state, flags: [], lane: 'done' });
      expect([supersedeRelevant(c), supersedeCheck(c), supersedeLabel(c)]).toEqual([true, null, 'Do it again in ferry: supersede with a new order…']);
    }
    expect(supersedeLabel(card())).toBe('Supersede with a new order…');
  });

  it('shown disabled with the reason while a flagged holder is running; absent on an open order, a plain stale claim, an order already superseded', () => {
    const live = card({ state: 'claimed', holder_fresh: true });
    expect(supersedeRelevant(live)).toBe(true);
    expect(supersedeCheck(live)).toBe("wisp's heartbeat on w1 is fresh: it is being run; a new order would be run as well");
    expect(supersedeRelevant(card({ state: 'open', holder: null, assigned_to: null, flags: [] }))).toBe(false);
    expect(supersedeRelevant(card({ state: 'stale', holder: 'fang', assigned_to: null, flags: [] }))).toBe(false);
    expect(supersedeCheck(card({ state: 'stale', holder: 'fang', assigned_to: null, flags: [] }))).toBe('w1 is not addressed to anyone: re-queue it instead (ferry would run both orders)');
    expect(supersedeRelevant(card({ superseded_by: 'w1-2', flags: [] }))).toBe(false);
  });
});

describe('the new order: id and addressee', () => {
  it('proposes <id>-2, or the next -N no known order has', () => {
    expect(proposedId(card(), new Set())).toBe('w1-2');
    expect(proposedId(card(), new Set(['w1-2', 'w1-3']))).toBe('w1-4');
    expect(proposedId(card({ order_id: 'build-7' }), new Set(['build-8']))).toBe('build-9');
  });

  it('refuses an empty, unsafe, own or known id', () => {
    const known = new Set(['w1-2']);
    expect(newIdProblem('w1-3', card(), known)).toBeNull();
    expect(newIdProblem('  ', card(), known)).toBe('give the new order an id');
    expect(newIdProblem('w1/2', card(), known)).toBe('“w1/2” is not a valid order id (letters, digits, “.”, “-” and “_” only)');
    expect(newIdProblem('..', card(), known)).toMatch(/not a valid order id/);
    expect(newIdProblem('W1', card(), known)).toBe('the new order needs an id of its own');
    expect(newIdProblem('W1-2', card(), known)).toBe('there is already an order w1-2; choose another id');
  });

  it('addresses roster agents that are not retired, never the retired holder; a finished order starts with its own assignee', () => {
    const agents = [agent('wisp'), agent('nebra'), agent('fang', { retired: true }), agent('ops', { role: 'operator', is_operator: true })];
    const choices = addressees(agents, card());
    expect(choices).toEqual([
      { name: 'nebra', role: 'worker' },
      { name: 'ops', role: 'operator' },
    ]);
    expect(defaultAddressee(card(), choices)).toBeNull();
    const done = card({ state: 'done', flags: [], assigned_to: 'nebra', holder: 'nebra' });
    expect(addressees(agents, done).map((a) => a.name)).toEqual(['nebra', 'ops', 'wisp']);
    expect(defaultAddressee(done, addressees(agents, done))).toBe('nebra');
    expect(defaultAddressee(card({ state: 'done', flags: [], assigned_to: 'fang' }), choices)).toBeNull(); // fang is retired
  });

  it('knows the ids of the board, lane pages and order answers it holds', () => {
    const board = { lanes: [{ lane: 'attention', cards: [card()] }, { lane: 'done', cards: [card({ order_id: 'x', depends_on: ['y'] })] }] };
    const lanePages = { pages: [{ cards: [card({ order_id: 'z', superseded_by: 'z-2' })] }], pageParams: [''] };
    const answer = { card: card({ order_id: 'q', supersedes: 'p' }), dependents: [{ order_id: 'r', state: 'open' }] };
    expect([...knownOrderIds([board, lanePages, answer, null, 'junk'])].sort()).toEqual(['p', 'q', 'r', 'w1', 'x', 'y', 'z', 'z-2']);
  });
});

describe('the signed input, from the order answer', () => {
  it('copies project, payload, review, approval, dependencies and result contract; the new order carries the old digest', () => {
    const order = orderOf(path.join(VECTORS, '19-timestamps-and-payloads/channel/tasks/t2/order.json'));
    expect(payloadCopiesExactly(order.payload, order.payload_digest)).toBe(true);
    const c = card({ order_id: 't2', state: 'done', flags: [], project_id: 'demo', depends_on: ['t1'] });
    const input = supersedeInput(c, order, ' T2-2 ', 'Nebra', '  do it again  ');
    expect(input).toMatchObject({ action: 'supersede', newId: 't2-2', assignTo: 'nebra', reason: 'do it again' });
    const req = buildAction(input, 'ops', (p) => naclSign(SEED, p), '2026-12-01T10:00:00Z', '', 'test-channel-0001');
    const shaped = shapeRecord('order', new TextEncoder().encode(JSON.stringify(req.order)));
    expect(shaped.ok).toBe(true);
    if (!shaped.ok || shaped.record.kind !== 'order') return;
    expect(shaped.record).toMatchObject({
      id: 't2-2',
      project_id: 'demo',
      issued_by: 'ops',
      assigned_to: 'nebra',
      requires_review: false,
      requires_approval: true,
      depends_on: ['t1'],
      result_contract: { required: ['summary', 'ratio'] },
      supersedes: 't2',
      payload_digest: order.payload_digest,
    });
    expect(req.record).toMatchObject({ order_id: 't2', operator: 'ops', by: 't2-2', reason: 'do it again' });
    expect(supersedeInput(c, order, 't2-2', null, 'x')).toMatchObject({ assignTo: null });
  });

  it('a payload with a number beyond double precision does not copy exactly (the server refuses it); -0 neither', () => {
    const order = orderOf(path.join(VECTORS, '19-timestamps-and-payloads/channel/tasks/t1/order.json'));
    expect(payloadCopiesExactly(order.payload, order.payload_digest)).toBe(false);
    const tiny = parseStrictJsonText('{"n": -0}');
    if (!tiny.ok) throw new Error('parse');
    expect(payloadCopiesExactly(toPlain(tiny.node), payloadDigest(tiny.node))).toBe(false);
    const fine = parseStrictJsonText('{"task": "Answer the soak report", "n": [1, 2.5, 1e21]}');
    if (!fine.ok) throw new Error('parse');
    expect(payloadCopiesExactly(toPlain(fine.node), payloadDigest(fine.node))).toBe(true);
  });
});
