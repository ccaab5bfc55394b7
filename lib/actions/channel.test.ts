/**
 * An act is bound to its channel (lib/ledger/channel-binding.ts): applyAction refuses an act
 * signed for another channel, even where the operator's ledger ends with the same line, and an
 * act that names no channel; the first act on a folder that names none writes its id; records
 * written before acts were bound are read as before. Every refusal leaves the folder
 * byte-for-byte as it was.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyAction, deriveSubset, type ApplyContext } from './apply';
import { operatorInfo } from './server';
import { openMemory } from '../index/db';
import { writeMeta } from '../index/store/meta';
import { ledgerPrevOf } from './write';
import { buildAction, type ActionInput, type ActionRequest } from '../ledger/actions';
import type { RefusalReason } from '../errors';
import type { ChannelState } from '../ledger/channel';
import { channelPayload, CHANNEL_FILE } from '../ledger/channel-binding';
import { signingPayload } from '../ledger/payloads';
import { shapeRecord, type SignedRecord } from '../ledger/records';
import { naclSign, naclVerify } from '../ledger/nacl-verify';
import { nodeVerify } from '../index/disk/node-verify';
import { channelStateOf } from '../index/channel-state';
import { folderSnapshot } from '../../test/support/folder';
import { VECTORS_DIR, vectorKeys } from '../../test/support/vectors';
import { nameChannel } from '../../test/support/channel';

const OPS_SEED = (vectorKeys() as Record<string, { seed: string }>).ops?.seed ?? '';
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A copy of vector 11 (g1: fang gave up; g2, g3 acknowledged by ops, g3 reopened), named `channel` unless null. */
function vector11(channel: string | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-channel-'));
  dirs.push(dir);
  fs.cpSync(path.join(VECTORS_DIR, '11-give-up-ack-reopen', 'channel'), dir, { recursive: true });
  if (channel !== null) nameChannel(dir, channel);
  return dir;
}

const ctxOf = (root: string, over: Partial<ApplyContext> = {}): ApplyContext => ({ root, nowMs: Date.now(), staleAfterMs: 300_000, operators: [], verify: nodeVerify, ...over });

/** ops's act on `root`'s board as it is now, signed for `channel`, chained to ops's ledger there. */
function signedFor(root: string, channel: string, input: (s: ChannelState) => ActionInput): ActionRequest {
  const state = deriveSubset(ctxOf(root), null);
  return buildAction(input(state), 'ops', (p) => naclSign(OPS_SEED, p), '2026-11-30T12:00:00Z', ledgerPrevOf(path.join(root, 'ledger.ops.jsonl')).prev, channel);
}
const card = (s: ChannelState, id: string) => {
  const c = s.views.get(id)?.card;
  if (!c) throw new Error(`no ${id}`);
  return c;
};
const ackG1 = (s: ChannelState): ActionInput => ({ action: 'ack', card: card(s, 'g1'), note: 'seen' });
const strip = (o: Record<string, unknown>) => {
  const { channel: _c, channel_signature: _s, ...rest } = o;
  return rest;
};

describe('an act names its channel', () => {
  it('every file of an act carries the channel and a channel signature by its signer, over the channel and its own signing payload', () => {
    const req = signedFor(vector11('channel-a-0001'), 'channel-a-0001', ackG1);
    const shaped = shapeRecord('ack', new TextEncoder().encode(JSON.stringify(req.record)));
    if (!shaped.ok) throw new Error(shaped.detail);
    const r = shaped.record as SignedRecord;
    expect([r.raw.channel, r.signed_by]).toEqual(['channel-a-0001', 'ops']);
    const opsKey = (vectorKeys() as Record<string, { public_key: string }>).ops?.public_key ?? '';
    expect(naclVerify(opsKey, channelPayload('channel-a-0001', signingPayload(r)), String(r.raw.channel_signature))).toBe(true);
    // The record's own signature is ferry's, over ferry's payload: unchanged by the binding.
    expect(naclVerify(opsKey, signingPayload(r), r.signature ?? '')).toBe(true);
    const line = JSON.parse(req.ledger_line) as Record<string, unknown>;
    expect([line.channel, typeof line.channel_signature]).toEqual(['channel-a-0001', 'string']);
  });

  it('an act signed for channel A is refused by channel B (403), though B\'s ledger of ops ends with the same line; A takes it', () => {
    const a = vector11('channel-a-0001');
    // One act in A; then B, another channel with the same history (its own id).
    expect(applyAction(signedFor(a, 'channel-a-0001', ackG1), ctxOf(a)).status).toBe(201);
    const b = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-channel-'));
    dirs.push(b);
    fs.cpSync(a, b, { recursive: true });
    nameChannel(b, 'channel-b-0001');
    expect(ledgerPrevOf(path.join(b, 'ledger.ops.jsonl')).prev).toBe(ledgerPrevOf(path.join(a, 'ledger.ops.jsonl')).prev);

    const reopen = signedFor(a, 'channel-a-0001', (s) => ({ action: 'reopen', card: card(s, 'g1'), reason: 'try again' }));
    const before = folderSnapshot(b);
    expect(applyAction(reopen, ctxOf(b))).toMatchObject({
      status: 403,
      reason_code: 'other_channel',
      reason: 'the reopen record was signed for channel channel-a-0001, not this channel (channel-b-0001): an act is applied only to the channel it was signed for',
    });
    expect(folderSnapshot(b)).toEqual(before);
    expect(applyAction(reopen, ctxOf(a))).toMatchObject({ status: 201, written: ['tasks/g1/reopen.ops.json', 'ledger.ops.jsonl'] });
  });

  it('a record or a ledger line that names no channel, or names this one under a signature for another, is refused, writing nothing', () => {
    const root = vector11('channel-a-0001');
    const req = signedFor(root, 'channel-a-0001', ackG1);
    const forB = signedFor(root, 'channel-b-0001', ackG1);
    const cases: [string, ActionRequest, number, RefusalReason, string][] = [
      ['unbound record', { ...req, record: strip(req.record) }, 400, 'unbound', 'the ack record names no channel: an act must be signed for this channel (channel-a-0001); sign it again'],
      ['unbound line', { ...req, ledger_line: JSON.stringify(strip(JSON.parse(req.ledger_line) as Record<string, unknown>)) }, 400, 'unbound', 'the ledger line names no channel: an act must be signed for this channel (channel-a-0001); sign it again'],
      ['line for B', { ...req, ledger_line: forB.ledger_line }, 403, 'other_channel', 'the ledger line was signed for channel channel-b-0001, not this channel (channel-a-0001): an act is applied only to the channel it was signed for'],
      ["B's record relabelled A", { ...req, record: { ...forB.record, channel: 'channel-a-0001' } }, 403, 'bad_signature', "the ack record's channel signature: invalid signature"],
    ];
    const before = folderSnapshot(root);
    for (const [name, body, status, code, reason] of cases) {
      expect([name, applyAction(body, ctxOf(root))]).toMatchObject([name, { status, reason_code: code, reason }]);
      expect(folderSnapshot(root)).toEqual(before);
    }
    expect(applyAction(req, ctxOf(root)).status).toBe(201);
  });

  it('records written before acts were bound are read as before: vector 11\'s own acknowledgements and reopen count', () => {
    // g2 is closed by ops's acknowledgement, which names no channel; the channel file is no problem row.
    const s = channelStateOf(vector11('channel-a-0001'));
    expect(s.problems).toEqual([]);
    expect([card(s, 'g1').state, card(s, 'g2').state, card(s, 'g3').state]).toEqual(['gave_up', 'closed', 'claimed']);
  });

  it('the first act on a folder that names no channel writes claimboard.channel.json with it; one signed for another proposal is then refused', () => {
    const root = vector11(null);
    const before = folderSnapshot(root);
    // No proposal (a caller that does not name channels): refused, nothing written.
    expect(applyAction(signedFor(root, 'first-channel-01', ackG1), ctxOf(root))).toMatchObject({ status: 422, reason_code: 'no_channel', reason: 'claimboard.channel.json is not in the channel: no act can be bound to it' });
    expect(folderSnapshot(root)).toEqual(before);

    const req = signedFor(root, 'first-channel-01', ackG1);
    const other = signedFor(root, 'other-proposal-02', ackG1);
    expect(applyAction(req, ctxOf(root, { proposedChannel: 'first-channel-01' }))).toMatchObject({ status: 201, written: [CHANNEL_FILE, 'tasks/g1/ack.ops.json', 'ledger.ops.jsonl'] });
    expect(JSON.parse(fs.readFileSync(path.join(root, CHANNEL_FILE), 'utf8'))).toMatchObject({ channel: 'first-channel-01' });
    // The folder names its channel now: another process's proposal does not replace it.
    const after = folderSnapshot(root);
    expect(applyAction(other, ctxOf(root, { proposedChannel: 'other-proposal-02' }))).toMatchObject({ status: 403, reason: expect.stringMatching(/^the ack record was signed for channel other-proposal-02, not this channel \(first-channel-01\)/) });
    expect(folderSnapshot(root)).toEqual(after);
  });

  it('a channel file that is not read (a symlink) or names no valid id refuses every act, writing nothing', () => {
    const root = vector11(null);
    fs.symlinkSync('/etc/hostname', path.join(root, CHANNEL_FILE));
    const before = folderSnapshot(root);
    expect(applyAction(signedFor(root, 'first-channel-01', ackG1), ctxOf(root, { proposedChannel: 'first-channel-01' }))).toMatchObject({
      status: 422,
      reason_code: 'no_channel',
      reason: 'claimboard.channel.json is not read (a symlink; not followed): no act can be bound to this channel',
    });
    expect(folderSnapshot(root)).toEqual(before);
    fs.unlinkSync(path.join(root, CHANNEL_FILE));
    fs.writeFileSync(path.join(root, CHANNEL_FILE), '{"channel": "a b"}');
    expect(applyAction(signedFor(root, 'first-channel-01', ackG1), ctxOf(root, { proposedChannel: 'first-channel-01' }))).toMatchObject({
      status: 422,
      reason: 'claimboard.channel.json names no channel (its "channel" is not a channel id (8 to 128 letters, digits, ".", "-", "_")): no act can be bound to this channel',
    });
  });
});

describe('GET /api/operators/:name says which channel the next act is for', () => {
  it('on a folder that names none: a proposal, and that the act writes claimboard.channel.json; once named: its id, nothing new', () => {
    const root = vector11(null);
    const db = openMemory();
    writeMeta(db, 'channel', root);
    const ch = { name: 'channel', db: () => db, dbFile: null, operators: [], nudgeAs: null };
    try {
      const fresh = operatorInfo(ch, 'ops');
      expect(fresh.channel_new).toBe(true);
      expect(fresh.channel).toMatch(/^[0-9a-f]{32}$/);
      nameChannel(root, 'named-channel-0002');
      expect(operatorInfo(ch, 'ops')).toMatchObject({ channel: 'named-channel-0002', channel_new: false, channel_problem: null });
    } finally {
      db.close();
    }
  });
});
