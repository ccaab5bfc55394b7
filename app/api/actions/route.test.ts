/**
 * POST /api/actions (and the bulk endpoint's results) through the real route handlers, on an
 * index of a vector folder: the guards (origin, content type, read-only), success, and refusals
 * that write nothing, each with its reason code.
 */
import fs from 'node:fs';
import { folderSnapshot } from '@/test/support/folder';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openWriter } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { buildAction } from '@/lib/ledger/actions';
import { naclSign } from '@/lib/ledger/nacl-verify';
import { nodeVerify } from '@/lib/index/disk/node-verify';
import { channelStateOf } from '@/lib/index/channel-state';
import { VECTORS_DIR, vectorKeys } from '@/test/support/vectors';
import { POST } from './route';
import { POST as POST_BULK } from './bulk/route';
import { nameChannel, TEST_CHANNEL } from '@/test/support/channel';

const keys = vectorKeys() as Record<string, { seed: string }>;
let dir = '';
let root = '';


beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-route-'));
  root = path.join(dir, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '11-give-up-ack-reopen', 'channel'), root, { recursive: true });
  nameChannel(root);
  const db = openWriter(path.join(dir, 'index.sqlite'));
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify });
  await ix.start();
  await ix.stop();
  db.close();
  process.env.CLAIMBOARD_DB = path.join(dir, 'index.sqlite');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  delete process.env.CLAIMBOARD_READ_ONLY;
});

const ackG1 = (who = 'ops') => {
  const card = channelStateOf(root).orders.find((o) => o.order_id === 'g1');
  if (!card) throw new Error('no g1');
  return buildAction({ action: 'ack', card, note: 'seen' }, who, (p) => naclSign(keys[who]?.seed ?? '', p), '2026-11-30T12:00:00Z', '', TEST_CHANNEL);
};
const post = (body: unknown, headers: Record<string, string> = {}) =>
  POST(new Request('http://127.0.0.1:3000/api/actions', { method: 'POST', headers: { 'content-type': 'application/json', host: '127.0.0.1:3000', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }));

/** A refusal's status and reason code. */
const reply = async (r: Response) => [r.status, ((await r.json()) as { reason_code?: string }).reason_code] as const;

describe('POST /api/actions', () => {
  it('refuses another origin (403), a cross-site fetch (403), non-JSON (415) and read-only mode (403), writing nothing', async () => {
    const before = folderSnapshot(root);
    const body = ackG1();
    const r1 = await post(body, { origin: 'http://evil.example' });
    expect([r1.status, await r1.json()]).toEqual([403, { error: 'forbidden', reason_code: 'cross_origin', message: 'cross-origin request refused (origin http://evil.example)' }]);
    expect(await reply(await post(body, { 'sec-fetch-site': 'cross-site' }))).toEqual([403, 'cross_origin']);
    expect(await reply(await post(JSON.stringify(body), { 'content-type': 'text/plain' }))).toEqual([415, 'malformed']);
    process.env.CLAIMBOARD_READ_ONLY = '1';
    expect(await reply(await post(body, { origin: 'http://127.0.0.1:3000' }))).toEqual([403, 'read_only']);
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('refuses a non-operator (403) and a stale expect (409 with the current card), writing nothing', async () => {
    const before = folderSnapshot(root);
    const r = await post(ackG1('fang'));
    expect([r.status, await r.json()]).toEqual([403, { error: 'forbidden', reason_code: 'not_operator', message: 'fang is not an operator of this channel' }]);
    const stale = ackG1();
    const res = await post({ ...stale, expect: { ...stale.expect, order: { ...stale.expect.order, state: 'claimed' } } });
    const b = (await res.json()) as { error: string; reason_code: string; card: { state: string } };
    expect([res.status, b.error, b.reason_code, b.card.state]).toEqual([409, 'conflict', 'card_moved', 'gave_up']);
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('bulk: after a refusal the rest are not applied, each result with its reason code, writing nothing', async () => {
    const before = folderSnapshot(root);
    const stale = ackG1();
    const actions = [{ ...stale, expect: { ...stale.expect, order: { ...stale.expect.order, state: 'claimed' } } }, ackG1()];
    const res = await POST_BULK(new Request('http://127.0.0.1:3000/api/actions/bulk', { method: 'POST', headers: { 'content-type': 'application/json', host: '127.0.0.1:3000' }, body: JSON.stringify({ actions }) }));
    const b = (await res.json()) as { results: { order_id: string; status: number; reason_code?: string; reason?: string }[] };
    expect([res.status, b.results.map((r) => [r.order_id, r.status, r.reason_code])]).toEqual([200, [['g1', 409, 'card_moved'], ['g1', 409, 'chain_broken']]]);
    expect(b.results[1]?.reason).toBe('not applied: the ledger chain stopped at g1; sign again');
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('accepts the operator\'s signed acknowledgement from the same origin: 201 with the written paths and the card after', async () => {
    const res = await post(ackG1(), { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' });
    const b = (await res.json()) as { written: string[]; card: { state: string } };
    expect([res.status, b.written, b.card.state]).toEqual([201, ['tasks/g1/ack.ops.json', 'ledger.ops.jsonl'], 'closed']);
  });
});
