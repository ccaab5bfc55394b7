import { errorResponse, json, withDb, withReadToken } from '@/lib/api/http';
import { agent } from '@/lib/index/queries';
import { isSafeComponent } from '@/lib/ledger/names';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/agents/:name: roster entry, what it holds, what it held and how each hold ended. */
async function get(_req: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  if (!isSafeComponent(name)) return errorResponse('bad_request', `"${name}" is not an agent name`);
  return withDb((db) => {
    const a = agent(db, name, indexNowMs(db));
    return a ? json(a) : errorResponse('not_found', `no agent ${name} in this channel`);
  });
}

export const GET = withReadToken(get);
