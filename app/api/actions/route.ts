import { json, respond, withDb, withReadToken } from '@/lib/api/http';
import { actionRequest, applyOne } from '@/lib/actions/server';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * POST /api/actions `{action, record, releases?, ledger_line, expect}`:
 * 201 `{written, card?, orders?}`; 400 bad input; 403 not an operator, a bad signature, another
 * origin or read-only mode; 409 the folder moved on (body has the current card); 413 a body over 16 MiB; 415 not JSON;
 * 422 a rule of docs/channel-format.md refuses it; 429 too many actions. Every refusal says why (`message`, and
 * `reason_code` for a client to decide by: lib/errors.ts REFUSAL_REASONS) and writes nothing.
 */
function post(req: Request) {
  return respond(async () => {
    const body = await actionRequest(req, (b) => b, (b) => [b]);
    return withDb((db) => json(applyOne(db, body), 201));
  });
}

export const POST = withReadToken(post);
