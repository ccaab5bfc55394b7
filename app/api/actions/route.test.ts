/**
 * POST /api/actions through the real route handler, on an index of a vector folder: the guards
 * (origin, content type, read-only), success, and refusals that write nothing.
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
  process.env.CLAIMBOARD_CHANNEL = root;
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

describe('POST /api/actions', () => {
  it('refuses another origin (403), a cross-site fetch (403), non-JSON (415) and read-only mode (403), writing nothing', async () => {
    const before = folderSnapshot(root);
    const body = ackG1();
    const r1 = await post(body, { origin: 'http://evil.example' });
    expect([r1.status, ((await r1.json()) as { message: string }).message]).toEqual([403, 'cross-origin request refused (origin http://evil.example)']);
    expect((await post(body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(JSON.stringify(body), { 'content-type': 'text/plain' })).status).toBe(415);
    process.env.CLAIMBOARD_READ_ONLY = '1';
    expect((await post(body, { origin: 'http://127.0.0.1:3000' })).status).toBe(403);
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('refuses a non-operator (403) and a stale expect (409 with the current card), writing nothing', async () => {
    const before = folderSnapshot(root);
    const r = await post(ackG1('fang'));
    expect([r.status, ((await r.json()) as { message: string }).message]).toEqual([403, 'fang is not an operator of this channel']);
    const stale = ackG1();
    const res = await post({ ...stale, expect: { ...stale.expect, order: { ...stale.expect.order, state: 'claimed' } } });
    const b = (await res.json()) as { error: string; card: { state: string } };
    expect([res.status, b.error, b.card.state]).toEqual([409, 'conflict', 'gave_up']);
    expect(folderSnapshot(root)).toEqual(before);
  });
  it('accepts the operator\'s signed acknowledgement from the same origin: 201 with the written paths and the card after', async () => {
    const res = await post(ackG1(), { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' });
    const b = (await res.json()) as { written: string[]; card: { state: string } };
    expect([res.status, b.written, b.card.state]).toEqual([201, ['tasks/g1/ack.ops.json', 'ledger.ops.jsonl'], 'closed']);
  });
});
