/**
 * Pairing records with ledger lines (acts.ts) on hand-made inputs: claimboard's stamps (equal),
 * ferry's (its line a moment after its record), a record replaced by a later one, a record whose
 * line never came, a retirement with its releases, and whose acts these are.
 */
import { describe, expect, it } from 'vitest';
import { pairActs, type ActRecord, type ReadLine, type ReadRecord } from './acts';
import { shapeRecord } from './records';
import { parseTimestamp } from './time';
import type { LedgerEntry } from './ledger-file';

const AUTHORITIES = new Set(['ops', 'lead', 'orchestrator']);
const isAuthority = (n: string) => AUTHORITIES.has(n);

function rec(kind: ActRecord['kind'], fields: Record<string, unknown>, path: string, arrivalMs: number, problem: string | null = null): ReadRecord {
  const s = shapeRecord(kind, new TextEncoder().encode(JSON.stringify({ ...fields, signed_by: 'x', signature: 'y' })));
  if (!s.ok) throw new Error(s.detail);
  return { path, arrivalMs, record: s.record as ActRecord, problem };
}

function line(path: string, n: number, kind: string, reference: string, createdAt: string, fileArrivalMs: number, over: Partial<LedgerEntry> = {}): ReadLine {
  const t = parseTimestamp(createdAt);
  if (!t.ok) throw new Error(t.reason);
  const signer = path.slice('ledger.'.length, -'.jsonl'.length);
  return {
    path,
    signer,
    fileArrivalMs,
    entry: { line: n, kind, actor: signer, summary: `${kind} ${reference} line ${n}`, reference, created_at: t.value, prev: '', signed_by: signer, chained: true, signature: 'valid', ok: true, ...over },
  };
}

/** (key, ledger line or null) of each act, newest first. */
const pairs = (acts: ReturnType<typeof pairActs>) => acts.map((a) => [a.key, a.ledger ? a.ledger.line : null]);

describe('pairActs', () => {
  it("pairs ferry's interrupt with the line stamped a moment after it", () => {
    const r = rec('interrupt', { order_id: 'k', action: 'kill', note: 'stop', issued_by: 'ops', created_at: '2026-12-01T11:17:00.922415039Z' }, 'tasks/k/interrupt.ops.json', 5000);
    const l = line('ledger.ops.jsonl', 1, 'interrupt', 'k', '2026-12-01T11:17:00.923652796Z', 6000);
    const acts = pairActs([r], [l], isAuthority);
    expect(acts.map((a) => [a.act, a.operator, a.order_id, a.detail, a.reason, a.ledger?.line, a.arrival_ms, a.writer_time])).toEqual([
      ['interrupt', 'ops', 'k', 'kill', 'stop', 1, 5000, '2026-12-01T11:17:00.922415039Z'],
    ]);
  });

  it('a record replaced by a later one keeps its newer line; the older line stands alone', () => {
    // Two acknowledgements of g1 by ops: ack.ops.json holds the second; the ledger has both lines.
    const r = rec('ack', { order_id: 'g1', operator: 'ops', target: 'giveup:ab', note: 'second', at: '2026-11-30T12:00:05Z' }, 'tasks/g1/ack.ops.json', 9000);
    const l1 = line('ledger.ops.jsonl', 1, 'ack', 'g1', '2026-11-30T12:00:01Z', 9500);
    const l2 = line('ledger.ops.jsonl', 2, 'ack', 'g1', '2026-11-30T12:00:05Z', 9500);
    const acts = pairActs([r], [l1, l2], isAuthority);
    // The lone line sorts by its ledger file's arrival (9500), after the record's (9000).
    expect(pairs(acts)).toEqual([
      ['ledger.ops.jsonl#1', 1],
      ['tasks/g1/ack.ops.json', 2],
    ]);
    expect(acts[0]?.record).toBeNull();
    expect(acts[0]?.arrival_ms).toBeNull();
    expect(acts[0]?.sort_ms).toBe(9500);
  });

  it('never pairs a record with a line stamped before it: a record whose line never came stands alone', () => {
    const r = rec('ack', { order_id: 'g1', operator: 'ops', target: 'giveup:ab', note: 'second', at: '2026-11-30T12:00:05Z' }, 'tasks/g1/ack.ops.json', 9000);
    const l1 = line('ledger.ops.jsonl', 1, 'ack', 'g1', '2026-11-30T12:00:01Z', 8000);
    expect(pairs(pairActs([r], [l1], isAuthority))).toEqual([
      ['tasks/g1/ack.ops.json', null],
      ['ledger.ops.jsonl#1', 1],
    ]);
  });

  it('of two lines after a record, takes the earliest; lines pair only within their signer, kind and subject', () => {
    const r = rec('interrupt', { order_id: 'k', action: 'pause', note: 'wait', issued_by: 'ops', created_at: '2026-12-01T10:00:00Z' }, 'tasks/k/interrupt.ops.json', 100);
    const lines = [
      line('ledger.ops.jsonl', 1, 'interrupt', 'other', '2026-12-01T10:00:00Z', 50), // another order
      line('ledger.lead.jsonl', 1, 'interrupt', 'k', '2026-12-01T10:00:00Z', 50), // another signer
      line('ledger.ops.jsonl', 2, 'release', 'k', '2026-12-01T10:00:00Z', 50), // another kind
      line('ledger.ops.jsonl', 3, 'interrupt', 'K', '2026-12-01T10:00:00.5Z', 50), // same subject (case folded)
      line('ledger.ops.jsonl', 4, 'interrupt', 'k', '2026-12-01T10:00:01Z', 50),
    ];
    const acts = pairActs([r], lines, isAuthority);
    expect(acts.find((a) => a.key === 'tasks/k/interrupt.ops.json')?.ledger?.line).toBe(3);
    expect(acts.map((a) => a.key)).toEqual([
      'tasks/k/interrupt.ops.json',
      'ledger.ops.jsonl#4',
      'ledger.ops.jsonl#2',
      'ledger.ops.jsonl#1',
      'ledger.lead.jsonl#1',
    ]);
  });

  it("groups a retirement's releases with it; leaves out self-releases and non-authorities' acts", () => {
    const at = '2026-11-30T12:00:04Z';
    const records = [
      rec('retirement', { agent: 'nebra', operator: 'ops', reason: 'rebuilt', at }, 'retirements/nebra.ops.json', 300),
      rec('release', { order_id: 'g3', released: 'nebra', releaser: 'ops', reason: 'retired', at }, 'tasks/g3/release.ops.nebra.json', 301),
      rec('release', { order_id: 'g4', released: 'nebra', releaser: 'ops', reason: 'retired', at }, 'tasks/g4/release.ops.nebra.json', 302, 'invalid signature: x'),
      // The same agent released by ops at another moment: an act of its own.
      rec('release', { order_id: 'g5', released: 'nebra', releaser: 'ops', reason: 'retired', at: '2026-11-30T12:09:00Z' }, 'tasks/g5/release.ops.nebra.json', 400),
      rec('release', { order_id: 'g6', released: 'fang', releaser: 'ops', reason: 'requeued: gone', at }, 'tasks/g6/release.ops.fang.json', 200),
      rec('release', { order_id: 'g7', released: 'orchestrator', releaser: 'orchestrator', reason: 'orphaned at startup', at }, 'tasks/g7/release.orchestrator.json', 500),
      rec('ack', { order_id: 'g8', operator: 'fang', target: 'giveup:ab', note: 'not mine to give', at }, 'tasks/g8/ack.fang.json', 600),
    ];
    const acts = pairActs(records, [line('ledger.ops.jsonl', 1, 'retire', 'nebra', at, 700), line('ledger.fang.jsonl', 1, 'ack', 'g8', at, 700)], isAuthority);
    expect(acts.map((a) => [a.key, a.act, a.agent, a.orders, a.detail, a.reason, a.verified])).toEqual([
      ['tasks/g5/release.ops.nebra.json', 'release', 'nebra', ['g5'], 'released nebra', 'retired', true],
      ['retirements/nebra.ops.json', 'retire', 'nebra', ['g3', 'g4'], 'released g3, g4', 'rebuilt', false],
      ['tasks/g6/release.ops.fang.json', 'requeue', 'fang', ['g6'], 'released fang', 'gone', true],
    ]);
    expect(acts[1]?.record).toEqual({
      path: 'retirements/nebra.ops.json',
      also: ['tasks/g3/release.ops.nebra.json', 'tasks/g4/release.ops.nebra.json'],
      verified: false,
      problem: 'tasks/g4/release.ops.nebra.json: invalid signature: x',
    });
    expect(acts[1]?.ledger?.line).toBe(1);
  });

  it('says why a line does not verify: its chain, its signature, its signer', () => {
    const lines = [
      line('ledger.ops.jsonl', 1, 'ack', 'a', '2026-11-30T12:00:00Z', 10, { chained: false, ok: false }),
      line('ledger.ops.jsonl', 2, 'ack', 'b', '2026-11-30T12:00:00Z', 10, { signature: 'invalid_signature', ok: false }),
      line('ledger.ops.jsonl', 3, 'ack', 'c', '2026-11-30T12:00:00Z', 10, { signature: 'wrong_signer', signed_by: 'lead', ok: false }),
      line('ledger.ops.jsonl', 4, 'ack', 'd', '2026-11-30T12:00:00Z', 10),
    ];
    expect(pairActs([], lines, isAuthority).map((a) => [a.order_id, a.verified, a.ledger?.problem])).toEqual([
      ['d', true, null],
      ['c', false, "line 3 is signed by lead, not by the file's signer ops"],
      ['b', false, "line 2's signature does not verify against ops's pinned key"],
      ['a', false, 'line 1 does not chain: its prev is not the hash of an empty ledger'],
    ]);
  });
});
