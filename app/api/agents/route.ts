import { json, withDb } from '@/lib/api/http';
import { agents } from '@/lib/index/queries';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/agents: the roster with pinned keys, retirements, holdings, last arrival, clock offset. */
export function GET() {
  return withDb((db) => json(agents(db, Date.now())));
}
