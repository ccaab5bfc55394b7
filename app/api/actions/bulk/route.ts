import { NextResponse } from 'next/server';
import { z } from 'zod';
import { withDb, withReadToken } from '@/lib/api/http';
import { applyAction } from '@/lib/actions/apply';
import { guardRequest, rateLimited, serverContext } from '@/lib/actions/server';
import { nudgeIndexer } from '@/lib/index/nudge';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const Bulk = z.object({ actions: z.array(z.unknown()).min(1).max(500) });
const noStore = { 'Cache-Control': 'no-store' };

/**
 * POST /api/actions/bulk `{actions: ActionRequest[]}` (at most 500; re-queue or acknowledge
 * over a lane selection). Each action is checked against what the operator saw, exactly as
 * POST /api/actions does, in order; the ledger lines are chained, so after the first refusal
 * the rest are not applied ("sign again"). 200 `{results: [{order_id, status, written?|reason}]}`.
 */
async function post(req: Request) {
  const guard = guardRequest(req);
  if (guard) return NextResponse.json({ error: 'forbidden', message: guard.reason }, { status: guard.status, headers: noStore });
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return NextResponse.json({ error: 'bad_request', message: 'the body is not JSON' }, { status: 400, headers: noStore });
  }
  const parsed = Bulk.safeParse(body);
  if (!parsed.success) return NextResponse.json({ error: 'bad_request', message: 'expected {actions: [...]} with 1 to 500 actions' }, { status: 400, headers: noStore });
  const first = parsed.data.actions[0] as { record?: { signed_by?: unknown } };
  const signer = typeof first?.record?.signed_by === 'string' ? first.record.signed_by : '';
  const wait = signer ? rateLimited(signer, Date.now()) : 0;
  if (wait > 0) return NextResponse.json({ error: 'too_many_requests', message: `too many actions by ${signer}: wait ${wait} s` }, { status: 429, headers: { ...noStore, 'Retry-After': String(wait) } });
  return withDb((db) => {
    const results: { order_id: string | null; status: number; written?: readonly string[]; reason?: string }[] = [];
    let broken: string | null = null;
    for (const a of parsed.data.actions) {
      const id = (a as { expect?: { order?: { order_id?: string } } })?.expect?.order?.order_id ?? null;
      if (broken) {
        results.push({ order_id: id, status: 409, reason: `not applied: ${broken}; sign again` });
        continue;
      }
      const res = applyAction(a, serverContext(db, Date.now()));
      if (res.status === 201) {
        nudgeIndexer(res.written);
        results.push({ order_id: id, status: 201, written: res.written });
      }
      else {
        results.push({ order_id: id, status: res.status, reason: res.reason });
        broken = `the ledger chain stopped at ${id ?? 'an earlier action'}`;
      }
    }
    return NextResponse.json({ results }, { status: 200, headers: noStore });
  });
}

export const POST = withReadToken(post);
