/**
 * The operator activity read from an indexed folder: acts performed with the real
 * action code (applyAction, as the page and the CLI do) by two operators show as rows with the
 * right operator, act, subject and reason, newest arrival first, each with its record and its
 * ledger line; the folder's own older records show without a ledger line; the filters and the
 * keyset pages give the same rows as filtering the whole list; a forged ledger line and a forged
 * record show as not verified, with why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, type DB } from '../db';
import { Indexer } from '../indexer';
import { activity } from './activity';
import { applyAction, deriveSubset, type ApplyContext } from '../../actions/apply';
import { ledgerPrevOf } from '../../actions/write';
import { buildAction, type ActionInput } from '../../ledger/actions';
import type { ChannelState } from '../../ledger/channel';
import type { Act } from '../../ledger/acts';
import { naclPublicKey, naclSign } from '../../ledger/nacl-verify';
import { nodeVerify } from '../disk/node-verify';
import { signFields, signLedgerLineAfter } from '../../ledger/sign';
import { VECTORS_DIR } from '../../../test/support/vectors';
import { seedOf } from '../../../test/support/channel-builder';
import { TEST_CHANNEL } from '../../../test/support/channel';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

/** Vectors 06 (ichabod-1650 claimed by fang, no heartbeat) and 11 (g1 gave up; g2, g3 acknowledged by ops; g3 reopened) in one folder, plus a second operator, lead. */
function channel(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-activity-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const v of ['06-stale-no-heartbeat', '11-give-up-ack-reopen']) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  fs.writeFileSync(path.join(root, 'agents/lead.json'), JSON.stringify({ name: 'lead', role: 'operator', capabilities: [], public_key: naclPublicKey(seedOf('lead')) }));
  return root;
}

/** A fresh index of the folder as it is now. */
async function indexed(root: string): Promise<DB> {
  const db = openMemory();
  cleanup.push(() => db.close());
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify, workers: 0 });
  await ix.start();
  await ix.stop();
  return db;
}

/** Waits long enough that the next file written gets a later ctime (arrival) than the last. */
const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);

/** Performs one act as `who` with the real action code, the way the page does; throws when refused. */
function act(root: string, who: string, at: string, input: (s: ChannelState) => ActionInput): void {
  const ctx: ApplyContext = { root, nowMs: Date.now() + 3600_000, staleAfterMs: 300_000, operators: [], proposedChannel: TEST_CHANNEL, verify: nodeVerify };
  const req = buildAction(input(deriveSubset(ctx, null)), who, (p) => naclSign(seedOf(who), p), at, ledgerPrevOf(path.join(root, `ledger.${who}.jsonl`)).prev, TEST_CHANNEL);
  const res = applyAction(req, ctx);
  if (res.status !== 201) throw new Error(`${who}'s ${req.action} refused: ${res.reason}`);
  pause();
}

const card = (s: ChannelState, id: string) => {
  const v = s.views.get(id);
  if (!v) throw new Error(`no order ${id}`);
  return v.card;
};

/** What a row says, as the page shows it. */
const row = (a: Act) => ({ operator: a.operator, act: a.act, order: a.order_id, agent: a.agent, reason: a.reason });

/** Every act matching `f`, following the cursors `limit` at a time. */
function walk(db: DB, f: Parameters<typeof activity>[1], limit: number): Act[] {
  const out: Act[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page = activity(db, f, cursor, 0, limit);
    out.push(...page.acts);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return out;
}

/** The folder's own records before any act (vector 11): acknowledgements of g2 and g3, a reopen of g3, none with a ledger line. */
const FOLDER_ACTS = [
  { operator: 'ops', act: 'ack', order: 'g2', agent: null, reason: 'acknowledged' },
  { operator: 'ops', act: 'ack', order: 'g3', agent: null, reason: 'acknowledged' },
  { operator: 'ops', act: 'reopen', order: 'g3', agent: null, reason: 'reopened' },
];

describe('activity', () => {
  it('lists the acts performed, newest first, with operator, act, subject, reason, record and ledger line', async () => {
    const root = channel();
    const before = activity(await indexed(root), {}, null, 0);
    expect(before.acts.map(row).sort((a, b) => `${a.act}${a.order}`.localeCompare(`${b.act}${b.order}`))).toEqual(FOLDER_ACTS);
    for (const a of before.acts) {
      expect(a.record?.verified, a.key).toBe(true);
      expect(a.ledger, a.key).toBeNull();
      expect(a.writer_time).toBe('2026-11-20T11:00:00Z');
      // Only part of each act is in the folder: said from the files, ops having no ledger file.
      expect(a.partial, a.key).toBe(`${a.act} written; its ledger line is not: ledger.ops.jsonl is not in the folder`);
    }
    expect(before.ledgers).toEqual([]);
    pause();

    act(root, 'ops', '2026-11-30T12:00:01Z', (s) => ({ action: 'requeue', card: card(s, 'ichabod-1650'), note: 'fang is gone' }));
    act(root, 'lead', '2026-11-30T12:00:02Z', (s) => ({ action: 'ack', card: card(s, 'g1'), note: 'will re-issue smaller' }));
    act(root, 'ops', '2026-11-30T12:00:03Z', (s) => ({ action: 'reopen', card: card(s, 'g2'), reason: 'the give-up was a flaky runner' }));
    act(root, 'ops', '2026-11-30T12:00:04Z', () => ({ action: 'retire', agent: 'nebra', orders: ['g3'], reason: 'machine rebuilt', confirmAlive: 0 }));
    act(root, 'lead', '2026-11-30T12:00:05Z', (s) => ({
      action: 'supersede',
      card: card(s, 'g1'),
      order: s.views.get('g1')?.folder.order.record ?? (() => { throw new Error('no g1'); })(),
      newId: 'g1-2',
      assignTo: null,
      reason: 'in smaller pieces',
    }));

    const db = await indexed(root);
    const all = activity(db, {}, null, 0);
    const performed = [
      { operator: 'lead', act: 'supersede', order: 'g1', agent: null, reason: 'in smaller pieces' },
      { operator: 'ops', act: 'retire', order: null, agent: 'nebra', reason: 'machine rebuilt' },
      { operator: 'ops', act: 'reopen', order: 'g2', agent: null, reason: 'the give-up was a flaky runner' },
      { operator: 'lead', act: 'ack', order: 'g1', agent: null, reason: 'will re-issue smaller' },
      { operator: 'ops', act: 'requeue', order: 'ichabod-1650', agent: 'fang', reason: 'fang is gone' },
    ];
    expect(all.acts.slice(0, 5).map(row)).toEqual(performed);
    expect(all.acts.slice(5).map(row)).toEqual(expect.arrayContaining(FOLDER_ACTS));
    expect(all.acts.map((a) => a.partial)).toEqual([null, null, null, null, null, ...FOLDER_ACTS.map(() => expect.stringMatching(/^(ack|reopen) written; its ledger line is not in ledger\.ops\.jsonl$/))]);
    expect(all.total).toBe(8);
    expect(all.operators).toEqual(['lead', 'ops']);

    // Each performed act: its record, its ledger line (each operator's own chain, in order), all verified.
    expect(all.acts.slice(0, 5).map((a) => [a.record?.path, a.ledger?.path, a.ledger?.line, a.writer_time, a.verified])).toEqual([
      ['tasks/g1/supersede.lead.json', 'ledger.lead.jsonl', 2, '2026-11-30T12:00:05Z', true],
      ['retirements/nebra.ops.json', 'ledger.ops.jsonl', 3, '2026-11-30T12:00:04Z', true],
      ['tasks/g2/reopen.ops.json', 'ledger.ops.jsonl', 2, '2026-11-30T12:00:03Z', true],
      ['tasks/g1/ack.lead.json', 'ledger.lead.jsonl', 1, '2026-11-30T12:00:02Z', true],
      ['tasks/ichabod-1650/release.ops.fang.json', 'ledger.ops.jsonl', 1, '2026-11-30T12:00:01Z', true],
    ]);
    const [supersede, retire] = all.acts;
    expect(supersede?.orders).toEqual(['g1', 'g1-2']);
    expect(supersede?.detail).toBe('by g1-2');
    expect(retire?.record?.also).toEqual(['tasks/g3/release.ops.nebra.json']);
    expect(retire?.orders).toEqual(['g3']);
    expect(retire?.ledger?.summary).toBe('retired nebra: machine rebuilt; released g3');
    // Arrivals here, newest first; the folder's own records arrived before any act.
    const arrivals = all.acts.map((a) => a.arrival_ms ?? -1);
    expect(arrivals).toEqual([...arrivals].sort((a, b) => b - a));
    expect(all.ledgers.map((l) => [l.path, l.entries, l.intact])).toEqual([
      ['ledger.lead.jsonl', 2, true],
      ['ledger.ops.jsonl', 3, true],
    ]);

    // Filters, and pages of 2: the same rows as filtering the whole list.
    const every = all.acts;
    const cases: [Parameters<typeof activity>[1], (a: Act) => boolean][] = [
      [{}, () => true],
      [{ operator: 'lead' }, (a) => a.operator === 'lead'],
      [{ operator: 'OPS' }, (a) => a.operator === 'ops'],
      [{ act: 'ack' }, (a) => a.act === 'ack'],
      [{ order: 'g1' }, (a) => a.order_id === 'g1'],
      [{ order: 'g3' }, (a) => a.order_id === 'g3' || a.act === 'retire'],
      [{ order: 'g1-2' }, (a) => a.act === 'supersede'],
      [{ operator: 'ops', act: 'ack', order: 'g2' }, (a) => a.operator === 'ops' && a.act === 'ack' && a.order_id === 'g2'],
      [{ operator: 'nobody' }, () => false],
    ];
    for (const [f, want] of cases) {
      const expected = every.filter(want).map((a) => a.key);
      expect(walk(db, f, 2).map((a) => a.key), JSON.stringify(f)).toEqual(expected);
      expect(activity(db, f, null, 0).total).toBe(expected.length);
    }
    expect(every.filter((a) => a.operator === 'lead').map(row)).toEqual([performed[0], performed[3]]);
  });

  it('shows a forged ledger line and a forged record as not verified, saying why', async () => {
    const root = channel();
    act(root, 'lead', '2026-11-30T12:00:01Z', (s) => ({ action: 'ack', card: card(s, 'g1'), note: 'will re-issue smaller' }));
    // A line that chains to lead's ledger but was signed with another key (ops's), claiming lead.
    const ledger = path.join(root, 'ledger.lead.jsonl');
    const forgedLine = signLedgerLineAfter(
      { kind: 'ack', actor: 'lead', summary: 'acknowledged the give-up on g3', reference: 'g3', created_at: '2026-11-30T12:00:02Z' },
      ledgerPrevOf(ledger).prev,
      'lead',
      (p) => naclSign(seedOf('ops'), p),
    );
    fs.appendFileSync(ledger, forgedLine + '\n');
    pause();
    // A record claiming lead, signed with ops's key.
    const forged = signFields('ack', { order_id: 'g2', operator: 'lead', target: 'giveup:0000000000000000000000000000000000000000000000000000000000000000', note: 'forged', at: '2026-11-30T12:00:03Z' }, 'lead', (p) =>
      naclSign(seedOf('ops'), p),
    );
    fs.writeFileSync(path.join(root, 'tasks/g2/ack.lead.json'), JSON.stringify(forged, null, 2));

    const all = activity(await indexed(root), { operator: 'lead' }, null, 0);
    expect(all.acts.map((a) => [row(a), a.verified, a.record?.verified ?? null, a.ledger === null ? null : [a.ledger.line, a.ledger.chained, a.ledger.signed]])).toEqual([
      // The forged record arrived last: newest. No line of lead's ledger names g2.
      [{ operator: 'lead', act: 'ack', order: 'g2', agent: null, reason: 'forged' }, false, false, null],
      // The forged line has no record; it sorts by its ledger file's arrival, after the genuine ack's record.
      [{ operator: 'lead', act: 'ack', order: 'g3', agent: null, reason: '' }, false, null, [2, true, false]],
      [{ operator: 'lead', act: 'ack', order: 'g1', agent: null, reason: 'will re-issue smaller' }, true, true, [1, true, true]],
    ]);
    const [rec, line] = all.acts;
    expect([rec?.partial, line?.partial, line?.replaced_by]).toEqual(['ack written; its ledger line is not in ledger.lead.jsonl', 'ledger line written; its ack record is not in the folder', null]);
    expect(rec?.record?.problem).toBe("invalid signature: signature does not verify against lead's pinned key");
    expect(line?.ledger?.problem).toBe("line 2's signature does not verify against lead's pinned key");
    expect(line?.ledger?.summary).toBe('acknowledged the give-up on g3');
    expect(all.ledgers.find((l) => l.path === 'ledger.lead.jsonl')).toMatchObject({ entries: 2, intact: false, broken_at: 2 });
  });

  it('a line whose record a later act of the same kind replaced names that file, and is not partly written', async () => {
    const root = channel();
    // lead acknowledged g1 once (its line; the record since replaced), then again through the real action code.
    const ledger = path.join(root, 'ledger.lead.jsonl');
    const first = signLedgerLineAfter({ kind: 'ack', actor: 'lead', summary: 'acknowledged the give-up on g1', reference: 'g1', created_at: '2026-11-30T12:00:00Z' }, '', 'lead', (p) => naclSign(seedOf('lead'), p));
    fs.writeFileSync(ledger, first + '\n');
    pause();
    act(root, 'lead', '2026-11-30T12:00:01Z', (s) => ({ action: 'ack', card: card(s, 'g1'), note: 'again' }));
    // A line without its record sorts by its ledger file's arrival, which the second line made as late as the record's or later: compared by key.
    const acts = [...activity(await indexed(root), { operator: 'lead' }, null, 0).acts].sort((a, b) => a.key.localeCompare(b.key));
    expect(acts.map((a) => [a.key, a.ledger?.line ?? null, a.partial, a.replaced_by, a.verified])).toEqual([
      ['ledger.lead.jsonl#1', 1, null, 'tasks/g1/ack.lead.json', true],
      ['tasks/g1/ack.lead.json', 2, null, null, true],
    ]);
  });
});
