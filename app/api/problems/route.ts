import { json, withDb, withReadToken } from '@/lib/api/http';
import { problems } from '@/lib/index/read/queries';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/problems: every problem row and every ledger file's integrity. */
function get() {
  return withDb((db) => json(problems(db)));
}

export const GET = withReadToken(get);
