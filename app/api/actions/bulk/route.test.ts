/**
 * POST /api/actions/bulk's refusals of the whole request, through the real route handler: the
 * prelude it shares with POST /api/actions (content type, JSON, body size and depth, shape, rate limit). No index is
 * needed for these: each is decided before the index is opened (which answers 503 here).
 */
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from './route';
import { CLIENT_ADDRESS_HEADER, MAX_POST_BODY_BYTES } from '@/lib/security';

const saved = { db: process.env.CLAIMBOARD_DB, token: process.env.CLAIMBOARD_READ_TOKEN, ro: process.env.CLAIMBOARD_READ_ONLY };
beforeAll(() => {
  process.env.CLAIMBOARD_DB = path.join(os.tmpdir(), `cb-no-bulk-index-${process.pid}.sqlite`);
  delete process.env.CLAIMBOARD_READ_TOKEN;
  delete process.env.CLAIMBOARD_READ_ONLY;
});
afterAll(() => {
  for (const [k, v] of [['CLAIMBOARD_DB', saved.db], ['CLAIMBOARD_READ_TOKEN', saved.token], ['CLAIMBOARD_READ_ONLY', saved.ro]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const post = (body: string, type = 'application/json', client = '10.9.9.9') =>
  POST(new Request('http://127.0.0.1:3000/api/actions/bulk', { method: 'POST', headers: { 'content-type': type, host: '127.0.0.1:3000', [CLIENT_ADDRESS_HEADER]: client }, body }));
const answer = async (r: Response) => [r.status, await r.json()] as const;

describe('POST /api/actions/bulk', () => {
  it('refuses non-JSON with 415 as POST /api/actions does (one code for it: unsupported_media_type)', async () => {
    expect(await answer(await post('{"actions":[{}]}', 'text/plain'))).toEqual([415, { error: 'unsupported_media_type', reason_code: 'malformed', message: 'actions take application/json only' }]);
  });

  it('refuses a body that is not JSON, or not 1 to 500 actions, with 400', async () => {
    expect(await answer(await post('{'))).toEqual([400, { error: 'bad_request', reason_code: 'malformed', message: 'the body is not JSON' }]);
    for (const body of ['{"actions":[]}', JSON.stringify({ actions: Array.from({ length: 501 }, () => ({})) }), '[]']) {
      expect(await answer(await post(body))).toEqual([400, { error: 'bad_request', reason_code: 'malformed', message: 'expected {actions: [...]} with 1 to 500 actions' }]);
    }
  });

  it('a request refused before its signer is verified spends its address\'s budget (120 a minute), never the name it claims', async () => {
    const body = JSON.stringify({ actions: [{ record: { signed_by: 'ops' } }] });
    for (let i = 0; i < 120; i++) expect((await post(body, 'application/json', '10.9.0.1')).status).toBe(400);
    const r = await post(body, 'application/json', '10.9.0.1');
    const wait = Number(r.headers.get('retry-after'));
    expect([r.status, wait >= 1 && wait <= 60, await r.json()]).toEqual([429, true, { error: 'too_many_requests', reason_code: 'rate_limited', message: `too many refused action requests from 10.9.0.1: wait ${wait} s` }]);
    // Another address is not held, and no operator's budget was spent (the signer is never read from an unverified record).
    expect((await post(body, 'application/json', '10.9.0.2')).status).toBe(400);
  });

  it('refuses a body over the limit with 413 and JSON nested too deep with 400, reading no further', async () => {
    const deep = `{"actions":[${'['.repeat(200_000)}${']'.repeat(200_000)}]}`;
    expect(await answer(await post(deep, 'application/json', '10.9.0.3'))).toEqual([400, { error: 'bad_request', reason_code: 'malformed', message: 'the body nests deeper than 64 levels' }]);
    const big = ' '.repeat(MAX_POST_BODY_BYTES + 1);
    expect((await post(big, 'application/json', '10.9.0.3')).status).toBe(413);
  });

  it('reads a body over the limit to its end and lets it go (a client still sending would get a reset before the 413), at most as much again', async () => {
    const MiB = 1024 * 1024;
    const limitMiB = MAX_POST_BODY_BYTES / MiB;
    /** A body of `mib` MiB, counting the MiB read from it. */
    const streamed = (mib: number) => {
      const got = { read: 0 };
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (got.read === mib) return c.close();
          got.read++;
          c.enqueue(new Uint8Array(MiB).fill(0x20));
        },
      });
      const req = new Request('http://127.0.0.1:3000/api/actions/bulk', { method: 'POST', headers: { 'content-type': 'application/json', host: '127.0.0.1:3000', [CLIENT_ADDRESS_HEADER]: '10.9.0.4' }, body, duplex: 'half' } as RequestInit);
      return { req, got };
    };
    const over = streamed(limitMiB + 8);
    expect((await POST(over.req)).status).toBe(413);
    expect(over.got.read).toBe(limitMiB + 8);
    // Far over: read up to the limit and as much again (the stream may have queued one MiB ahead), then no more.
    const far = streamed(limitMiB * 4);
    expect((await POST(far.req)).status).toBe(413);
    expect(far.got.read).toBeGreaterThanOrEqual(2 * limitMiB + 1);
    expect(far.got.read).toBeLessThanOrEqual(2 * limitMiB + 2);
  });
});
