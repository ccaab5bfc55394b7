import { errorResponse, json, withDb, withReadToken } from '@/lib/api/http';
import { operatorInfo } from '@/lib/actions/server';
import { isSafeComponent } from '@/lib/ledger/names';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/operators/:name: whether the name is in the roster and an operator of this channel,
 * its pinned key (to check an imported key against), and the hash of the last line of its ledger
 * file (`ledger_prev`: what the next signed ledger line must chain to).
 */
async function get(_req: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  if (!isSafeComponent(name)) return errorResponse('bad_request', `"${name}" is not a name`);
  return withDb((db) => json(operatorInfo(db, name)));
}

export const GET = withReadToken(get);
