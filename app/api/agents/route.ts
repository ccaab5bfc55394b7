import { json, withDb, withReadToken } from '@/lib/api/http';
import { agents } from '@/lib/index/read/queries';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/agents: the roster with pinned keys, retirements, holdings, last arrival, clock offset. */
function get() {
  return withDb((db) => json(agents(db, indexNowMs(db))));
}

export const GET = withReadToken(get);
