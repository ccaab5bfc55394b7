/**
 * The one executor of the endpoints (endpoint.ts), on endpoints made for the test: the read
 * token before anything runs, a request that does not parse answered 400 with zod's reason, each
 * ClaimboardError answered with its code's status and body, an index that cannot be opened a 503,
 * anything else thrown going on, and a synchronous endpoint answered synchronously (the fast
 * path needs it so).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ClaimboardError, ERROR_CODES, HTTP_STATUS } from '../errors';
import { defineEndpoint, Raw, rawRequestOf, runEndpoint, type Endpoint } from './endpoint';
import type { Answer } from './answer';
import type { DB } from '../index/db';

const TOKEN = 'a-read-token-for-the-executor-test';
const saved = process.env.CLAIMBOARD_READ_TOKEN;
beforeEach(() => {
  delete process.env.CLAIMBOARD_READ_TOKEN;
});
afterEach(() => {
  if (saved === undefined) delete process.env.CLAIMBOARD_READ_TOKEN;
  else process.env.CLAIMBOARD_READ_TOKEN = saved;
});

/** The calls an endpoint's execute received. */
let calls: unknown[] = [];

/** GET /t/:id?n=: echoes the parsed request; `throw` makes it throw what `thrown` holds. */
let thrown: Error | null = null;
const echo = defineEndpoint({
  method: 'GET',
  path: '/t/:id',
  request: z.object({ id: z.string().refine((v) => !v.includes(' '), { error: (iss) => `"${String(iss.input)}" is not an id` }), n: z.coerce.number().int().min(1).optional() }),
  execute(_ctx, req) {
    calls.push(req);
    if (thrown !== null) throw thrown;
    return req;
  },
});

/** GET /db: opens the index and answers its answer to `SELECT 1`. */
const needsDb = defineEndpoint({
  method: 'GET',
  path: '/db',
  request: z.object({}),
  execute: (ctx) => ({ one: ctx.db().prepare('SELECT 1 AS one').pluck().get() as number }),
});

/** POST /later: works asynchronously, answers 201 or throws what `thrown` holds. */
const later = defineEndpoint({
  method: 'POST',
  path: '/later',
  request: z.object({}),
  status: 201,
  async execute() {
    await Promise.resolve();
    if (thrown !== null) throw thrown;
    return { done: true };
  },
});

const run = <R,>(e: Endpoint<R>, url: string, params: Record<string, string> = {}, headers: Record<string, string> = {}, open?: () => DB) =>
  runEndpoint(e, { url, params, header: (n) => headers[n.toLowerCase()] ?? null }, open ? { open } : {});

/** A synchronous answer as [status, headers, body text]. */
function sync(a: ReturnType<typeof run>): [number, Readonly<Record<string, string>>, string] {
  if (a instanceof Promise || 'stream' in a) throw new Error('expected a synchronous answer of bytes');
  return [a.status, a.headers, a.body.toString('utf8')];
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

beforeEach(() => {
  calls = [];
  thrown = null;
});

describe('runEndpoint', () => {
  it('answers what execute returns as JSON with the endpoint status, synchronously when execute is', async () => {
    expect(sync(run(echo, '/t/x?n=3', { id: 'x' }))).toEqual([200, JSON_HEADERS, '{"id":"x","n":3}']);
    const a = run(later, '/later');
    expect(a).toBeInstanceOf(Promise);
    const done = (await a) as Answer;
    expect([done.status, done.headers, done.body.toString()]).toEqual([201, JSON_HEADERS, '{"done":true}']);
  });

  it('answers Raw bytes as they are, with their content type', () => {
    const raw = defineEndpoint({ method: 'GET', path: '/raw', request: z.object({}), execute: () => Raw.bytes(Buffer.from('# text\n'), 'text/plain; version=0.0.4') });
    expect(sync(run(raw, '/raw'))).toEqual([200, { 'Content-Type': 'text/plain; version=0.0.4', 'Cache-Control': 'no-store' }, '# text\n']);
  });

  it('without the read token: 401 and the endpoint neither parses nor runs; with it (bearer, cookie, ?token=) it runs', () => {
    process.env.CLAIMBOARD_READ_TOKEN = TOKEN;
    const [status, headers, body] = sync(run(echo, '/t/x?n=not-a-number', { id: 'x' }));
    expect([status, headers, body]).toEqual([401, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, 'claimboard: a read token is required (open the URL with ?token=<CLAIMBOARD_READ_TOKEN>)\n']);
    expect(calls).toEqual([]);
    expect(sync(run(echo, '/t/x', { id: 'x' }, { authorization: `Bearer ${TOKEN}` }))[0]).toBe(200);
    expect(sync(run(echo, '/t/x', { id: 'x' }, { cookie: `claimboard_token=${TOKEN}` }))[0]).toBe(200);
    expect(sync(run(echo, `/t/x?token=${TOKEN}`, { id: 'x' }))).toEqual([200, JSON_HEADERS, '{"id":"x"}']);
    expect(calls).toEqual([{ id: 'x' }, { id: 'x' }, { id: 'x' }]);
  });

  it('a request that does not parse: 400 with the reason, a query key named, a path parameter said by its message alone; execute does not run', () => {
    expect(sync(run(echo, '/t/x?n=0', { id: 'x' }))).toEqual([400, JSON_HEADERS, JSON.stringify({ error: 'bad_request', message: 'n: Too small: expected number to be >=1' })]);
    expect(sync(run(echo, '/t/a%20b', { id: 'a b' }))).toEqual([400, JSON_HEADERS, JSON.stringify({ error: 'bad_request', message: '"a b" is not an id' })]);
    expect(sync(run(echo, '/t/a%20b?n=1.5', { id: 'a b' }))[2]).toBe(JSON.stringify({ error: 'bad_request', message: '"a b" is not an id; n: Invalid input: expected int, received number' }));
    expect(calls).toEqual([]);
  });

  it('each ClaimboardError is answered with its code status and {error, reason_code?, message, ...detail}; Retry-After when it says how long', async () => {
    for (const code of ERROR_CODES) {
      thrown = new ClaimboardError(code, `refused as ${code}`);
      expect(sync(run(echo, '/t/x', { id: 'x' })), code).toEqual([HTTP_STATUS[code], JSON_HEADERS, JSON.stringify({ error: code, message: `refused as ${code}` })]);
    }
    thrown = new ClaimboardError('conflict', 'g1 is now gave_up', { reasonCode: 'card_moved', detail: { card: { order_id: 'g1' } } });
    expect(sync(run(echo, '/t/x', { id: 'x' }))).toEqual([409, JSON_HEADERS, '{"error":"conflict","reason_code":"card_moved","message":"g1 is now gave_up","card":{"order_id":"g1"}}']);
    thrown = new ClaimboardError('too_many_requests', 'too many actions by ops: wait 7 s', { retryAfterS: 7, reasonCode: 'rate_limited' });
    const a = (await run(later, '/later')) as Answer;
    expect([a.status, a.headers, a.body.toString()]).toEqual([429, { ...JSON_HEADERS, 'Retry-After': '7' }, '{"error":"too_many_requests","reason_code":"rate_limited","message":"too many actions by ops: wait 7 s"}']);
  });

  it('an index that cannot be opened is a 503 index_unavailable saying why', () => {
    const closed = () => {
      throw new Error('unable to open database file');
    };
    expect(sync(run(needsDb, '/db', {}, {}, closed))).toEqual([503, JSON_HEADERS, JSON.stringify({ error: 'index_unavailable', message: 'the index is not available yet: unable to open database file' })]);
  });

  it('anything else thrown goes on (a programming error: Next.js and the fast path answer 500), synchronously or not', async () => {
    thrown = new TypeError('a bug');
    expect(() => run(echo, '/t/x', { id: 'x' })).toThrow(TypeError);
    await expect(run(later, '/later')).rejects.toThrow('a bug');
  });
});

describe('rawRequestOf', () => {
  it('takes the query without empty values and the read token, the last of a repeated key, and the path parameters over the query', () => {
    expect(rawRequestOf('/api/x?a=1&b=&token=secret&a=2&id=q', { id: 'p' })).toEqual({ a: '2', id: 'p' });
    expect(rawRequestOf('http://127.0.0.1:3000/api/x', {})).toEqual({});
  });
});
