/**
 * POST /api/actions/bulk's refusals of the whole request, through the real route handler: the
 * prelude it shares with POST /api/actions (content type, JSON, shape, rate limit). No index is
 * needed for these: each is decided before the index is opened (which answers 503 here).
 */
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from './route';

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

const post = (body: string, type = 'application/json') =>
  POST(new Request('http://127.0.0.1:3000/api/actions/bulk', { method: 'POST', headers: { 'content-type': type, host: '127.0.0.1:3000' }, body }));
const answer = async (r: Response) => [r.status, await r.json()] as const;

describe('POST /api/actions/bulk', () => {
  it('refuses non-JSON with 415 as POST /api/actions does (one code for it: unsupported_media_type)', async () => {
    expect(await answer(await post('{"actions":[{}]}', 'text/plain'))).toEqual([415, { error: 'unsupported_media_type', message: 'actions take application/json only' }]);
  });

  it('refuses a body that is not JSON, or not 1 to 500 actions, with 400', async () => {
    expect(await answer(await post('{'))).toEqual([400, { error: 'bad_request', message: 'the body is not JSON' }]);
    for (const body of ['{"actions":[]}', JSON.stringify({ actions: Array.from({ length: 501 }, () => ({})) }), '[]']) {
      expect(await answer(await post(body))).toEqual([400, { error: 'bad_request', message: 'expected {actions: [...]} with 1 to 500 actions' }]);
    }
  });

  it('lets 30 requests of one signer a minute through to the index and refuses the 31st with 429 and Retry-After', async () => {
    const body = JSON.stringify({ actions: [{ record: { signed_by: 'bulk-rate' } }] });
    for (let i = 0; i < 30; i++) expect((await post(body)).status).toBe(503);
    const r = await post(body);
    const wait = Number(r.headers.get('retry-after'));
    expect([r.status, wait >= 1 && wait <= 60, await r.json()]).toEqual([429, true, { error: 'too_many_requests', message: `too many actions by bulk-rate: wait ${wait} s` }]);
  });
});
