/**
 * One schema per record kind (records.ts): the declared zod schema (RECORD_SCHEMAS, the shape
 * then the checks as a transform) and the hot path shapeRecord takes answer the same for every
 * record of the conformance cases and of the channels the real ferry wrote; each check reports
 * its problem detail in the words the templates of records.ts and time.ts give, in the order
 * shape, u32 tokens, names, name lists, timestamps; the parsed types are the declared records.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { parseStrictJson, toPlain } from './json';
import { classifyPath } from './names';
import { describeIssue, RECORD_SCHEMAS, shapeRecord, type ClaimRecord, type FileRecordKind, type GiveupRecord, type LedgerRecord, type OrderRecord } from './records';
import { vectorEntries, vectorNames } from '../../test/support/vectors';
import { FERRY_DIR } from '../../test/support/ferry-cases';

const enc = (o: unknown) => new TextEncoder().encode(typeof o === 'string' ? o : JSON.stringify(o));

/** What the declared schema answers, worded as shapeRecord words it. */
function viaSchema(kind: FileRecordKind, bytes: Uint8Array) {
  const p = parseStrictJson(bytes);
  if (!p.ok || p.node.t !== 'obj') throw new Error('the cases here are JSON objects');
  const r = RECORD_SCHEMAS[kind].safeParse({ fields: toPlain(p.node), tree: p.node, bytes });
  return r.success ? { ok: true, record: r.data } : { ok: false, detail: describeIssue(r.error.issues[0], 1) };
}

/** Every regular file under `root` with its channel-relative path. */
function filesUnder(root: string, rel = ''): { rel: string; bytes: Uint8Array }[] {
  const out: { rel: string; bytes: Uint8Array }[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(root, r));
    else if (e.isFile()) out.push({ rel: r, bytes: new Uint8Array(fs.readFileSync(path.join(root, r))) });
  }
  return out;
}

describe('the declared schema and the hot path agree', () => {
  it('on every record file of the conformance cases and of the real ferry channels', () => {
    const files: { rel: string; bytes: Uint8Array }[] = [];
    for (const name of vectorNames()) {
      for (const e of vectorEntries(name, 0)) if (e.type === 'file' && e.bytes) files.push({ rel: e.path, bytes: e.bytes });
    }
    for (const name of fs.readdirSync(FERRY_DIR)) {
      const channel = path.join(FERRY_DIR, name, 'channel');
      if (fs.existsSync(channel)) files.push(...filesUnder(channel));
    }
    let compared = 0;
    const kinds = new Set<string>();
    for (const f of files) {
      const c = classifyPath(f.rel);
      if (c.class !== 'record' || c.kind === 'ledger') continue;
      const p = parseStrictJson(f.bytes);
      if (!p.ok || p.node.t !== 'obj') continue;
      expect(viaSchema(c.kind, f.bytes), f.rel).toEqual(shapeRecord(c.kind, f.bytes));
      compared++;
      kinds.add(c.kind);
    }
    // The cases hold records of most kinds; a loader that found none would prove nothing.
    expect(compared).toBeGreaterThan(100);
    expect(kinds.size).toBeGreaterThanOrEqual(10);
  });
});

describe('problem details, first check that fails', () => {
  const claim = { order_id: 't1', agent: 'fang', claimed_at: '2026-11-20T09:00:00Z' };
  const heartbeat = { order_id: 't1', agent: 'fang', run: 'r', pid: 1, at: '2026-11-20T09:00:00Z' };
  const detail = (kind: FileRecordKind, o: unknown) => {
    const a = shapeRecord(kind, enc(o));
    expect(viaSchema(kind, enc(o))).toEqual(a);
    return a.ok ? null : a.detail;
  };

  it('shape: an absent field, and a wrong type, both read "missing field" (zod 4 reports no input in its issue)', () => {
    expect(detail('claim', { order_id: 't1', agent: 'fang' })).toBe('missing field "claimed_at"');
    expect(detail('heartbeat', { ...heartbeat, pid: '1' })).toBe('missing field "pid"');
    expect(detail('agent', { name: 'fang', role: 'worker', capabilities: ['a', 1] })).toBe('missing field "capabilities.1"');
  });
  it("shape: a value outside an enum is zod's own message", () => {
    const interrupt = { order_id: 't1', action: 'stop', note: '', issued_by: 'ops', created_at: '2026-11-20T09:00:00Z' };
    expect(detail('interrupt', interrupt)).toBe('field "action": Invalid option: expected one of "kill"|"pause"|"steer"');
  });
  it('u32 fields are read on their token: 1.0 and 1e0 are numbers, not u32', () => {
    expect(detail('heartbeat', JSON.stringify(heartbeat).replace('"pid":1', '"pid":1.0'))).toBe('field "pid" is not an unsigned 32-bit integer');
    expect(detail('heartbeat', JSON.stringify(heartbeat).replace('"pid":1', '"pid":1e0'))).toBe('field "pid" is not an unsigned 32-bit integer');
    expect(detail('heartbeat', { ...heartbeat, pid: 4294967296 })).toBe('field "pid" is not an unsigned 32-bit integer');
    expect(detail('heartbeat', { ...heartbeat, pid: 4294967295 })).toBeNull();
  });
  it('names must be safe once trimmed; depends_on entries too; timestamps last', () => {
    expect(detail('claim', { ...claim, agent: 'bad/name' })).toBe('field "agent" is not a safe name: "bad/name"');
    expect(detail('claim', { ...claim, agent: ' Fang ' })).toBeNull();
    const order = { id: 't1', project_id: 'p', issued_by: 'ops', created_at: '2026-11-20T09:00:00Z', payload: {} };
    expect(detail('order', { ...order, depends_on: ['ok', '..'] })).toBe('depends_on entry is not a safe name: ".."');
    expect(detail('claim', { ...claim, claimed_at: '2026-02-30T09:00:00Z' })).toBe('field "claimed_at": day 30 does not exist in February 2026');
  });
  it('the order of the checks: shape before u32 before names before timestamps, whatever the field order', () => {
    // A bad name first in the file, a wrong type after it: the shape speaks first.
    expect(detail('heartbeat', { ...heartbeat, order_id: 'bad/id', at: 5 })).toBe('missing field "at"');
    expect(detail('heartbeat', JSON.stringify({ ...heartbeat, agent: 'bad/name' }).replace('"pid":1', '"pid":1.5'))).toBe('field "pid" is not an unsigned 32-bit integer');
    // supersedes (a name) comes after created_at in the shape, yet names are checked before timestamps.
    const order = { id: 't1', project_id: 'p', issued_by: 'ops', created_at: 'soon', payload: {}, supersedes: 'a b' };
    expect(detail('order', order)).toBe('field "supersedes" is not a safe name: "a b"');
  });
});

describe('what the schemas produce', () => {
  it('names canonical, defaults filled, raw as written, the payload digest and the file digest', () => {
    const r = shapeRecord('order', enc({ id: 'T1', project_id: 'p', issued_by: ' Ops ', created_at: '2026-11-20T09:00:00Z', payload: 1, depends_on: ['A'], extra: true }));
    expect(r.ok).toBe(true);
    const o = (r as { record: OrderRecord }).record;
    expect([o.id, o.issued_by, o.depends_on, o.assigned_to, o.requires_review, o.result_contract, o.signed_by]).toEqual(['t1', 'ops', ['a'], null, false, null, null]);
    // raw: the shaped fields as written, in the shape's order, unknown ones dropped.
    expect(o.raw).toEqual({ id: 'T1', project_id: 'p', issued_by: ' Ops ', created_at: '2026-11-20T09:00:00Z', payload: 1, depends_on: ['A'] });
    expect(o.created_at.epochMs).toBe(Date.parse('2026-11-20T09:00:00Z'));
    const bytes = enc({ order_id: 't1', agent: 'fang', run: 'r', reason: 'x', attempts: 2, at: '2026-11-20T09:00:00Z' });
    const g = shapeRecord('giveup', bytes) as { record: GiveupRecord };
    // sha256 of the exact bytes, as `giveup:<digest>` targets name it.
    expect(g.record.file_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(g.record.file_digest).not.toBe((shapeRecord('giveup', enc(new TextDecoder().decode(bytes) + ' ')) as { record: GiveupRecord }).record.file_digest);
  });
  it('types (checked by tsc): z.output of each kind schema is its declared record', () => {
    type Outputs = { [K in FileRecordKind]: z.output<(typeof RECORD_SCHEMAS)[K]> };
    type Declared = { [K in FileRecordKind]: Extract<LedgerRecord, { readonly kind: K }> };
    expectTypeOf<Outputs>().toEqualTypeOf<Declared>();
    expectTypeOf<z.output<(typeof RECORD_SCHEMAS)['claim']>>().toEqualTypeOf<ClaimRecord>();
  });
});
