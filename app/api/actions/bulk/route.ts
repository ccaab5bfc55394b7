import { z } from 'zod';
import { json, respond, withDb, withReadToken } from '@/lib/api/http';
import { actionRequest, applyBulk } from '@/lib/actions/server';
import { ClaimboardError } from '@/lib/errors';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const Bulk = z.object({ actions: z.array(z.unknown()).min(1).max(500) });

function parseBulk(body: unknown): readonly unknown[] {
  const parsed = Bulk.safeParse(body);
  if (!parsed.success) throw new ClaimboardError('bad_request', 'expected {actions: [...]} with 1 to 500 actions', { reasonCode: 'malformed' });
  return parsed.data.actions;
}

/**
 * POST /api/actions/bulk `{actions: ActionRequest[]}` (at most 500; re-queue or acknowledge
 * over a lane selection). Each action is checked against what the operator saw, exactly as
 * POST /api/actions does, in order; the ledger lines are chained, so after the first refusal
 * the rest are not applied ("sign again"). 200 `{results: [{order_id, status, written?|reason and reason_code}]}`;
 * the whole request refused as POST /api/actions refuses one (400, 403, 413, 415, 429).
 */
function post(req: Request) {
  return respond(async () => {
    const actions = await actionRequest(req, parseBulk, (a) => a);
    return withDb((db) => json({ results: applyBulk(db, actions) }));
  });
}

export const POST = withReadToken(post);
