/**
 * Bad input is data: every bad file is one problem row
 * with the first code that applies, and the rest of the folder derives as if it were absent.
 */
import { describe, expect, it } from 'vitest';
import { ChannelBuilder, seedOf } from '../../test/support/channel-builder';
import { naclPublicKey, naclSign } from './nacl-verify';
import { signFields } from './sign';

const base = () => new ChannelBuilder().roster().order('t1').claim('t1', 'fang');
const problemsAt = (b: ChannelBuilder, path: string) => b.derive().problems.filter((p) => p.path === path).map((p) => p.problem);

describe('problem codes, first that applies (§2)', () => {
  it('symlink before anything else, and it is not followed', () => {
    const b = base().raw('tasks/t1/result.fang.001.json', '', { type: 'symlink', size: 5_000_000 });
    expect(problemsAt(b, 'tasks/t1/result.fang.001.json')).toEqual(['symlink']);
  });
  it('too_large before sync_conflict and invalid: over 1 MiB is not parsed', () => {
    const big = new Uint8Array(1024 * 1024 + 1).fill(0x20);
    const b = base().raw('tasks/t1/result.fang.001.json', big).raw('tasks/t1/claim.wisp.sync-conflict-20261120-090512-ABCDEFG.json', big);
    expect(problemsAt(b, 'tasks/t1/result.fang.001.json')).toEqual(['too_large']);
    expect(problemsAt(b, 'tasks/t1/claim.wisp.sync-conflict-20261120-090512-ABCDEFG.json')).toEqual(['too_large']);
  });
  it('exactly 1 MiB is still parsed (here: invalid, being spaces)', () => {
    const b = base().raw('tasks/t1/result.fang.001.json', new Uint8Array(1024 * 1024).fill(0x20));
    expect(problemsAt(b, 'tasks/t1/result.fang.001.json')).toEqual(['invalid']);
  });
  it('invalid: duplicate key, BOM, wrong type, float revision, order_id of another directory', () => {
    const b = base()
      .raw('tasks/t1/heartbeat.fang.json', '{"order_id":"t1","agent":"fang","agent":"fang","run":"r","pid":1,"at":"2026-11-20T09:00:00Z"}')
      .raw('tasks/t1/heartbeat.wisp.json', '\uFEFF{"order_id":"t1","agent":"wisp","run":"r","pid":1,"at":"2026-11-20T09:00:00Z"}')
      .raw('tasks/t1/heartbeat.nebra.json', '{"order_id":"t1","agent":"nebra","run":"r","pid":"1","at":"2026-11-20T09:00:00Z"}')
      .raw('tasks/t1/claim.nebra.json', '{"order_id":"t2","agent":"nebra","claimed_at":"2026-11-20T09:00:00Z"}')
      .raw('tasks/t1/claim.wisp.json', '{"order_id":"t1","agent":"wisp","claimed_at":"2026-02-30T09:00:00Z"}');
    for (const f of ['heartbeat.fang', 'heartbeat.wisp', 'heartbeat.nebra', 'claim.nebra', 'claim.wisp']) {
      expect(problemsAt(b, `tasks/t1/${f}.json`), f).toEqual(['invalid']);
    }
    const bad = b.raw('tasks/t1/result.fang.001.json', JSON.stringify(signFields('result', { order_id: 't1', agent: 'fang', revision: 1, submitted_at: '2026-11-20T09:30:00Z', payload: {} }, 'fang', (p) => naclSign(seedOf('fang'), p))).replace('"revision":1', '"revision":1.0'));
    expect(problemsAt(bad, 'tasks/t1/result.fang.001.json')).toEqual(['invalid']);
  });
  it('invalid UTF-8 is invalid', () => {
    const b = base().raw('tasks/t1/heartbeat.fang.json', new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]));
    expect(problemsAt(b, 'tasks/t1/heartbeat.fang.json')).toEqual(['invalid']);
  });
  it('name_mismatch: the fields compute another file name (names compared case-insensitively)', () => {
    const b = base().json('tasks/t1/claim.wisp.json', { order_id: 't1', agent: 'fang', claimed_at: '2026-11-20T09:00:00Z' })
      .json('tasks/t1/claim.NEBRA.json', { order_id: 't1', agent: 'Nebra', claimed_at: '2026-11-20T09:10:00Z' });
    expect(problemsAt(b, 'tasks/t1/claim.wisp.json')).toEqual(['name_mismatch']);
    expect(problemsAt(b, 'tasks/t1/claim.NEBRA.json')).toEqual([]);
  });
  it('unsigned, unknown_signer, invalid_signature, unauthorized_signer', () => {
    const b = base()
      .json('tasks/t1/result.fang.001.json', { order_id: 't1', agent: 'fang', revision: 1, submitted_at: '2026-11-20T09:30:00Z', payload: {} })
      .signed('tasks/t1/result.ghost.001.json', 'result', { order_id: 't1', agent: 'ghost', revision: 1, submitted_at: '2026-11-20T09:30:00Z', payload: {} }, 'ghost')
      .signed('tasks/t1/result.wisp.001.json', 'result', { order_id: 't1', agent: 'wisp', revision: 1, submitted_at: '2026-11-20T09:30:00Z', payload: {} }, 'fang')
      .signed('tasks/t1/release.fang.wisp.json', 'release', { order_id: 't1', released: 'wisp', releaser: 'fang', reason: 'mine', at: '2026-11-20T09:40:00Z' }, 'fang');
    // A valid signature over other content: wisp's signature fields pasted onto changed content.
    const forged = signFields('result', { order_id: 't1', agent: 'nebra', revision: 1, submitted_at: '2026-11-20T09:30:00Z', payload: { ok: true } }, 'nebra', (p) => naclSign(seedOf('nebra'), p));
    b.json('tasks/t1/result.nebra.001.json', { ...forged, payload: { ok: false } });
    expect(problemsAt(b, 'tasks/t1/result.fang.001.json')).toEqual(['unsigned']);
    expect(problemsAt(b, 'tasks/t1/result.ghost.001.json')).toEqual(['unknown_signer']);
    expect(problemsAt(b, 'tasks/t1/result.nebra.001.json')).toEqual(['invalid_signature']);
    expect(problemsAt(b, 'tasks/t1/result.wisp.001.json')).toEqual(['unauthorized_signer']);
    expect(problemsAt(b, 'tasks/t1/release.fang.wisp.json')).toEqual(['unauthorized_signer']);
    // ferry reads the two whose signature verifies (any roster member's): wisp's result signed by
    // fang makes the order done (a result by an agent that does not hold it: late_result); the
    // other three are dropped. All five are problem rows: bad_record.
    const c = b.card('t1');
    expect([c.state, c.holder, c.flags]).toEqual(['done', 'fang', ['late_result', 'bad_record']]);
  });
  it('a roster name without a key is unknown_signer', () => {
    const b = new ChannelBuilder().agent('ops', 'operator').agent('fang', 'worker', { key: null }).order('t1').claim('t1', 'fang').result('t1', 'fang', 1);
    expect(problemsAt(b, 'tasks/t1/result.fang.001.json')).toEqual(['unknown_signer']);
  });
});

describe('what is not a record (§2)', () => {
  it('skips dot files, Syncthing temp files and *.tmp silently', () => {
    const b = base()
      .raw('tasks/t1/.syncthing.result.fang.001.json.tmp', 'x')
      .raw('tasks/t1/~syncthing~claim.json.tmp', 'x')
      .raw('tasks/t1/result.fang.001.tmp', 'x')
      .raw('.stversions/tasks/t1/claim.fang.json', 'x')
      .raw('tasks/t1/notes.md', 'x');
    expect(b.derive().problems).toEqual([]);
  });
  it('a directory under tasks/ without a readable order.json is one invalid problem and its files are not read', () => {
    const b = base().claim('t9', 'fang').raw('tasks/t8/order.json', '{"id":');
    const d = b.derive();
    expect(d.problems.map((p) => [p.path, p.problem])).toEqual([
      ['tasks/t8', 'invalid'],
      ['tasks/t9', 'invalid'],
    ]);
    expect(d.orders.map((o) => o.order_id)).toEqual(['t1']);
  });
  it('a conflict copy outside tasks/ is a channel problem', () => {
    const b = base().raw('agents/fang.sync-conflict-20261120-090512-ABCDEFG.json', '{}');
    expect(problemsAt(b, 'agents/fang.sync-conflict-20261120-090512-ABCDEFG.json')).toEqual(['sync_conflict']);
  });
});

describe('trust (§5)', () => {
  it('folds case variants of a roster name, keeping the keyed entry', () => {
    const b = new ChannelBuilder().agent('ops', 'operator').agent('Fang', 'worker', { key: null }).agent('fang').order('t1').claim('t1', 'fang').result('t1', 'FANG', 1, { signer: 'fang' });
    expect(b.derive().problems).toEqual([]);
    expect(b.card('t1').state).toBe('done');
  });
  it('a pinned key wins over a changed folder key: key_changed, and records verify against the pin', () => {
    const other = naclPublicKey(seedOf('intruder'));
    const b = base().agent('fang', 'worker', { key: other }).result('t1', 'fang', 1);
    const pins = new Map([['fang', naclPublicKey(seedOf('fang'))]]);
    const d = b.derive({ pins });
    expect(d.problems.map((p) => [p.path, p.problem])).toEqual([['agents/fang.json', 'key_changed']]);
    expect(d.orders[0]?.state).toBe('done'); // signed with the pinned key: still valid
  });
  it('configured operators replace roster roles', () => {
    const b = base().release('t1', 'fang', 'ops');
    expect(b.card('t1').state).toBe('open');
    const d = b.derive({ operators: ['wisp'] });
    expect(d.problems.map((p) => p.problem)).toEqual(['unauthorized_signer']);
    // ops is no operator now, but ferry honours any validly signed release: open, flagged.
    expect([d.orders[0]?.state, d.orders[0]?.flags]).toEqual(['open', ['bad_record']]);
  });
  it('a retirement by a non-operator does not retire anyone', () => {
    const b = base().retire('fang', { operator: 'wisp' });
    expect(problemsAt(b, 'retirements/fang.wisp.json')).toEqual(['unauthorized_signer']);
    expect(b.card('t1').flags).toEqual([]);
  });
});

describe('ledger files (§3.2)', () => {
  it('an intact chain', () => {
    const d = base().ledger('fang', ['a', 'b', 'c']).derive();
    expect(d.ledger['ledger.fang.jsonl']).toMatchObject({ entries: 3, intact: true });
  });
  it('an edited line breaks the chain at the next line; a line signed by another signer breaks at itself', () => {
    const b = base().ledger('fang', ['a', 'b', 'c']);
    const text = new TextDecoder().decode(b.files.get('ledger.fang.jsonl')?.bytes ?? new Uint8Array());
    const lines = text.split('\n');
    // Editing line 2's summary invalidates its own signature (line 2) and line 3's prev.
    b.raw('ledger.fang.jsonl', [lines[0], (lines[1] ?? '').replace('"b"', '"B"'), lines[2], ''].join('\n'));
    const d = b.derive();
    expect(d.ledger['ledger.fang.jsonl']).toMatchObject({ entries: 3, intact: false, broken_at: 2 });
    expect(d.problems.find((p) => p.problem === 'ledger_broken')).toMatchObject({ path: 'ledger.fang.jsonl', line: 2 });
    // wisp's own valid lines placed in fang's file: signed by someone who is not the file's signer.
    const w = base().ledger('wisp', ['x']);
    const wline = new TextDecoder().decode(w.files.get('ledger.wisp.jsonl')?.bytes ?? new Uint8Array());
    const d2 = base().raw('ledger.fang.jsonl', wline).derive();
    expect(d2.ledger['ledger.fang.jsonl']).toMatchObject({ entries: 1, intact: false, broken_at: 1 });
  });
  it('stops reading at a line that does not parse, counting the lines before it', () => {
    const b = base().ledger('fang', ['a', 'b']);
    const text = new TextDecoder().decode(b.files.get('ledger.fang.jsonl')?.bytes ?? new Uint8Array());
    b.raw('ledger.fang.jsonl', text + '{"kind": truncated\n' + text);
    expect(b.derive().ledger['ledger.fang.jsonl']).toMatchObject({ entries: 2, intact: false, broken_at: 3 });
  });
  it('one broken file does not affect another', () => {
    const b = base().ledger('fang', ['a']).ledger('ops', ['b']);
    b.raw('ledger.fang.jsonl', 'garbage\n');
    const d = b.derive();
    expect(d.ledger['ledger.fang.jsonl']).toMatchObject({ entries: 0, intact: false, broken_at: 1 });
    expect(d.ledger['ledger.ops.jsonl']).toMatchObject({ entries: 1, intact: true });
  });
});
