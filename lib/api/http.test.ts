import { describe, expect, it } from 'vitest';
import { ClaimboardError } from '../errors';
import { errorResponse, respond } from './http';

const answer = async (r: Response) => [r.status, r.headers.get('cache-control'), r.headers.get('retry-after'), await r.json()] as const;

describe('errorResponse', () => {
  it('answers a ClaimboardError with its code\'s status and {error, message, ...detail}, never cached', async () => {
    const card = { order_id: 'g1', state: 'gave_up' };
    expect(await answer(errorResponse(new ClaimboardError('conflict', 'g1 is now gave_up', { detail: { card } })))).toEqual([
      409,
      'no-store',
      null,
      { error: 'conflict', message: 'g1 is now gave_up', card },
    ]);
  });

  it('sends the wait of too_many_requests as Retry-After, and the body stays {error, message}', async () => {
    expect(await answer(errorResponse(new ClaimboardError('too_many_requests', 'too many actions by ops: wait 7 s', { retryAfterS: 7 })))).toEqual([
      429,
      'no-store',
      '7',
      { error: 'too_many_requests', message: 'too many actions by ops: wait 7 s' },
    ]);
  });

  it('carries a refused act\'s reason code as reason_code beside the message', async () => {
    const card = { order_id: 'g1', state: 'gave_up' };
    expect(await answer(errorResponse(new ClaimboardError('conflict', 'there is already an order g1-2; choose another id', { reasonCode: 'id_taken', detail: { card } })))).toEqual([
      409,
      'no-store',
      null,
      { error: 'conflict', reason_code: 'id_taken', message: 'there is already an order g1-2; choose another id', card },
    ]);
  });

  it('(code, message, detail) is the same as a new ClaimboardError', async () => {
    expect(await answer(errorResponse('unsupported_media_type', 'actions take application/json only'))).toEqual([
      415,
      'no-store',
      null,
      { error: 'unsupported_media_type', message: 'actions take application/json only' },
    ]);
  });
});

describe('respond', () => {
  it('answers what the work returns, a ClaimboardError it throws as its error response, and lets anything else through', async () => {
    expect((await respond(() => new Response('ok', { status: 201 }))).status).toBe(201);
    const refused = await respond(() => {
      throw new ClaimboardError('refused', 'd depends on e');
    });
    expect(await answer(refused)).toEqual([422, 'no-store', null, { error: 'refused', message: 'd depends on e' }]);
    await expect(
      respond(() => {
        throw new TypeError('a bug');
      }),
    ).rejects.toThrow('a bug');
  });
});
