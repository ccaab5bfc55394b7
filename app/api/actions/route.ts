import { NextResponse } from 'next/server';
import { errorResponse, withDb, withReadToken } from '@/lib/api/http';
import { applyAction } from '@/lib/actions/apply';
import { guardRequest, rateLimited, serverContext } from '@/lib/actions/server';
import { nudgeIndexer } from '@/lib/index/nudge';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const noStore = { 'Cache-Control': 'no-store' };

/**
 * POST /api/actions `{action, record, releases?, ledger_line, expect}` (LEDGER.md §8):
 * 201 `{written, card?, orders?}`; 400 bad input; 403 not an operator, a bad signature, another
 * origin or read-only mode; 409 the folder moved on (body has the current card); 415 not JSON;
 * 422 a rule of LEDGER.md refuses it; 429 too many actions. Every refusal says why and writes nothing.
 */
async function post(req: Request) {
  const guard = guardRequest(req);
  if (guard) return NextResponse.json({ error: guard.status === 415 ? 'unsupported_media_type' : 'forbidden', message: guard.reason }, { status: guard.status, headers: noStore });
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return NextResponse.json({ error: 'bad_request', message: 'the body is not JSON' }, { status: 400, headers: noStore });
  }
  const signer = typeof (body as { record?: { signed_by?: unknown } })?.record?.signed_by === 'string' ? String((body as { record: { signed_by: string } }).record.signed_by) : '';
  const wait = signer ? rateLimited(signer, Date.now()) : 0;
  if (wait > 0) return NextResponse.json({ error: 'too_many_requests', message: `too many actions by ${signer}: wait ${wait} s` }, { status: 429, headers: { ...noStore, 'Retry-After': String(wait) } });
  return withDb((db) => {
    const res = applyAction(body, serverContext(db, Date.now()));
    if (res.status === 201) {
      nudgeIndexer(res.written);
      return NextResponse.json(res, { status: 201, headers: noStore });
    }
    return errorResponse(res.code, res.reason, res.card ? { card: res.card } : {});
  });
}

export const POST = withReadToken(post);
